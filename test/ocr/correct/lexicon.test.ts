import { describe, expect, it } from 'vitest';
import { listLexiconLanguages, openLexicon } from '../../../src/ocr/correct/lexicon.js';

describe('the lexicon of a language', () => {
  it('has a dictionary for every language Quire ships OCR data for', () => {
    expect(listLexiconLanguages()).toEqual(['deu', 'ell', 'eng', 'fra', 'ita', 'lat', 'por', 'spa']);
  });

  it('knows French words with their accents and hyphens, and not the OCR misreadings of them', async () => {
    const fra = await openLexicon('fra');
    expect(fra).not.toBeNull();
    for (const word of ['avançais', 'même', 'être', 'suprême', 'peut-être', 'arrière-plan', 'Même', 'MÊME', 'l’âge']) expect(fra!.has(word), word).toBe(true);
    for (const word of ['avangais', 'méme', 'étre', 'supréme', 'peutêtre', 'homécns']) expect(fra!.has(word), word).toBe(false);
  });

  it('reads Latin and Greek, and answers null for a language without a dictionary', async () => {
    expect((await openLexicon('lat'))!.has('phantasmata')).toBe(true);
    expect((await openLexicon('ell'))!.has('λόγος')).toBe(true);
    expect(await openLexicon('tlh')).toBeNull();
  });
});
