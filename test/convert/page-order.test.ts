/**
 * The pipeline's threads finish frames in any order; the pages are handed on (to the language sample and the OCR)
 * in document order, so a loaded machine decides a document's languages on the same first pages as an idle one.
 */
import { describe, expect, it } from 'vitest';
import { inDocumentOrder } from '../../src/convert/document.js';

describe('pages handed on in document order', () => {
  it('holds a frame finished early until every frame before it has come', () => {
    const handed: string[] = [];
    const put = inDocumentOrder<string>((pages) => handed.push(pages));
    put(2, 'third');
    put(1, 'second');
    expect(handed).toEqual([]);
    put(0, 'first');
    expect(handed).toEqual(['first', 'second', 'third']);
    put(4, 'fifth');
    expect(handed).toEqual(['first', 'second', 'third']);
    put(3, 'fourth');
    expect(handed).toEqual(['first', 'second', 'third', 'fourth', 'fifth']);
  });

  it('hands on a frame that made no page, so the ones after it are not held for ever', () => {
    const handed: string[][] = [];
    const put = inDocumentOrder<string[]>((pages) => handed.push(pages));
    put(1, ['0002-left', '0002-right']);
    put(0, []);
    expect(handed).toEqual([[], ['0002-left', '0002-right']]);
  });
});
