/**
 * When the correction's dictionaries load during OCR: on a core the tesseract processes leave free (a page read
 * alone at the document's end), not while every core reads a page, and never twice.
 */
import { describe, expect, it } from 'vitest';
import { DictionaryWarmUp } from '../../src/convert/recognize-pages.js';

function watched(cores: number, correct = true): { warmUp: DictionaryWarmUp; loads: string[][] } {
  const loads: string[][] = [];
  const warmUp = new DictionaryWarmUp(correct ? {} : { correct: false }, cores, (languages) => loads.push([...languages]));
  return { warmUp, loads };
}

describe('loading the dictionaries while pages are read', () => {
  it('waits for a core free of OCR: three pages on two cores load them once the third reads alone', () => {
    const { warmUp, loads } = watched(2);
    warmUp.pageKnown();
    warmUp.pageKnown();
    warmUp.pageKnown();
    warmUp.lastKnown();
    warmUp.languagesKnown(['fra']);
    warmUp.pageBegins()();
    warmUp.pageBegins()();
    // Two pages on two cores, the third waiting: no core is free.
    expect(loads).toEqual([]);
    warmUp.pageDone();
    const third = warmUp.pageBegins();
    third();
    // The third page took the freed core; the second still reads.
    expect(loads).toEqual([]);
    warmUp.pageDone();
    expect(loads).toEqual([['fra']]);
    third();
    warmUp.pageDone();
    expect(loads).toEqual([['fra']]);
  });

  it('does not load them while more pages may still come from the pipeline', () => {
    const { warmUp, loads } = watched(2);
    warmUp.languagesKnown(['eng']);
    warmUp.pageKnown();
    warmUp.pageBegins()();
    expect(loads).toEqual([]);
    warmUp.lastKnown();
    expect(loads).toEqual([['eng']]);
  });

  it('loads them at once for a document of fewer pages than cores, once its languages are known', () => {
    const { warmUp, loads } = watched(2);
    warmUp.pageKnown(1, true);
    warmUp.pageBegins()();
    expect(loads).toEqual([]);
    warmUp.languagesKnown(['fra', 'ell']);
    expect(loads).toEqual([['fra', 'ell']]);
  });

  it('loads nothing when the correction is off', () => {
    const { warmUp, loads } = watched(2, false);
    warmUp.languagesKnown(['fra']);
    warmUp.pageKnown(1, true);
    warmUp.pageBegins()();
    warmUp.pageDone();
    expect(loads).toEqual([]);
  });
});
