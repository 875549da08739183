import { describe, expect, it } from 'vitest';
import { DOUBTFUL_CONFIDENCE, editWord, isDoubtful, pageWords, proofreadingCounts, restoreWord, withoutRemovedWords, type OcrPage, type OcrWord } from '../../src/project/index.js';

const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
const word = (text: string, confidence = 95, extra: Partial<OcrWord> = {}): OcrWord => ({ text, box, confidence, ...extra });

function page(...lines: OcrWord[][]): OcrPage {
  return { width: 100, height: 100, dpi: 300, engine: 'tesseract', languages: ['eng'], blocks: [{ box, paragraphs: [{ box, lines: lines.map((words) => ({ box, words })) }] }] };
}

describe('proofreading words', () => {
  it('takes a word as doubtful when the engine was unsure or the correction step changed it, until a person checks it', () => {
    expect(isDoubtful(word('sure', DOUBTFUL_CONFIDENCE))).toBe(false);
    expect(isDoubtful(word('unsure', DOUBTFUL_CONFIDENCE - 1))).toBe(true);
    expect(isDoubtful(word('modern', 96, { correction: { from: 'rnodern', reason: 'lexicon' } }))).toBe(true);
    expect(isDoubtful(word('the', 30, { edit: { from: 'tbe' } }))).toBe(false);
  });

  it('edits a word in place, keeping what it was before the first edit, and restores it', () => {
    const p = page([word('It'), word('tbe', 41)], [word('end.')]);
    expect(pageWords(p).map((w) => w.text)).toEqual(['It', 'tbe', 'end.']);
    editWord(p, 1, '  th e ');
    editWord(p, 1, 'the');
    expect(pageWords(p)[1]).toMatchObject({ text: 'the', edit: { from: 'tbe' }, confidence: 41 });
    expect(proofreadingCounts(p)).toEqual({ words: 3, doubtful: 0, checked: 1 });
    restoreWord(p, 1);
    expect(pageWords(p)[1]).toEqual(word('tbe', 41));
    expect(() => editWord(p, 3, 'x')).toThrow('The page has no word number 3.');
    expect(() => editWord(p, 0, 'x'.repeat(201))).toThrow(/at most 200 characters/);
  });

  it('leaves words a person emptied out of what exports read, and lines left empty with them', () => {
    const p = page([word('keep')], [word('~')]);
    editWord(p, 1, '');
    const exported = withoutRemovedWords(p);
    expect(pageWords(exported).map((w) => w.text)).toEqual(['keep']);
    expect(exported.blocks[0].paragraphs[0].lines).toHaveLength(1);
    // The project keeps the word and what it was.
    expect(pageWords(p)[1]).toMatchObject({ text: '', edit: { from: '~' } });
  });
});
