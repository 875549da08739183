import { describe, expect, it } from 'vitest';
import {
  DOUBTFUL_CONFIDENCE,
  DOUBTFUL_GREEK_CONFIDENCE,
  DOUBTFUL_UNKNOWN_CONFIDENCE,
  editWord,
  isDoubtful,
  pageWords,
  proofreadingCounts,
  restoreWord,
  withoutRemovedWords,
  type OcrPage,
  type OcrWord,
} from '../../src/project/index.js';

const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
const word = (text: string, confidence = 95, extra: Partial<OcrWord> = {}): OcrWord => ({ text, box, confidence, ...extra });

function page(...lines: OcrWord[][]): OcrPage {
  return {
    width: 100,
    height: 100,
    dpi: 300,
    engine: 'tesseract',
    languages: ['eng'],
    blocks: [{ box, paragraphs: [{ box, lines: lines.map((words) => ({ box, words })) }] }],
  };
}

describe('proofreading words', () => {
  it('takes a word as doubtful when it is likely wrong, until a person checks it', () => {
    expect(isDoubtful(word('sure', DOUBTFUL_CONFIDENCE))).toBe(false);
    expect(isDoubtful(word('unsure', DOUBTFUL_CONFIDENCE - 1))).toBe(true);
    // Letters the correction step guessed (a second choice, a known confusion, a second reading, another script).
    expect(isDoubtful(word('modern', 96, { correction: { from: 'rnodern', reason: 'known-confusion' } }))).toBe(true);
    expect(isDoubtful(word('premier', 96, { correction: { from: 'memier', reason: 'reread' } }))).toBe(true);
    expect(isDoubtful(word('modern', 96, { correction: { from: 'rnodern', reason: 'lexicon' } }))).toBe(true);
    // What the ink or the grammar settled is not: a full stop seen on the baseline, even where the engine stumbled on
    // the comma it read; "1." between a page and a line number is "l.", "à" before a participle "a".
    expect(isDoubtful(word('synodes.', 59, { correction: { from: 'synodes,', reason: 'punctuation' } }))).toBe(false);
    expect(isDoubtful(word('l.', 90, { correction: { from: '1.', reason: 'grammar' } }))).toBe(false);
    expect(isDoubtful(word('vérité³', 80, { correction: { from: 'vérité*', reason: 'note-call' } }))).toBe(false);
    // But letters the engine never read are a guess: "le 1 octobre" made "le 1er octobre".
    expect(isDoubtful(word('1er', 93, { correction: { from: '1', reason: 'grammar' } }))).toBe(true);
    // A word no dictionary knows: a misreading when read with doubt, a name or a term when read surely.
    expect(isDoubtful(word('Afhanasius', DOUBTFUL_UNKNOWN_CONFIDENCE - 1, { unknown: true }))).toBe(true);
    expect(isDoubtful(word('Athanase', DOUBTFUL_UNKNOWN_CONFIDENCE, { unknown: true }))).toBe(false);
    // A word the correction step doubts for its place: Greek alone in a Latin line.
    expect(isDoubtful(word('ΡΟ', 89, { doubt: 'script' }))).toBe(true);
    expect(isDoubtful(word('the', 30, { edit: { from: 'tbe' } }))).toBe(false);
    expect(isDoubtful(word('ΡΟ', 89, { doubt: 'script', edit: { from: 'ΡΟ' } }))).toBe(false);
  });

  it('flags the words a confident reading got wrong, from the kinds of evidence a real capture showed', () => {
    // Figures read as letters: a short word alone in brackets is a reference more often than an article ("(la)." for
    // "(1a)." at 90), and a short word mixing figures with letters that look like figures.
    expect(isDoubtful(word('(la).', 90))).toBe(true);
    expect(isDoubtful(word('(lO)', 95))).toBe(true);
    expect(isDoubtful(word('1l', 95))).toBe(true);
    expect(isDoubtful(word('la', 96))).toBe(false);
    expect(isDoubtful(word('(1a).', 96))).toBe(false);
    expect(isDoubtful(word('(1-14a)', 96))).toBe(false);
    expect(isDoubtful(word('(a)', 96))).toBe(false);
    expect(isDoubtful(word('(12,', 96))).toBe(false);
    // A stroke set apart as punctuation where it may be the word's second stroke ("I!" → "I !" for "II").
    expect(isDoubtful(word('I !', 84, { correction: { from: 'I!', reason: 'punctuation', change: '! set apart' } }))).toBe(true);
    expect(isDoubtful(word('Oui !', 84, { correction: { from: 'Oui!', reason: 'punctuation', change: '! set apart' } }))).toBe(false);
    // A Greek word a dictionary knows, read below the Greek threshold ("ὡς" for "ἐκ" at 82); a French one is not.
    expect(isDoubtful(word('ὡς', DOUBTFUL_GREEK_CONFIDENCE - 3))).toBe(true);
    expect(isDoubtful(word('οὐσίας', DOUBTFUL_GREEK_CONFIDENCE))).toBe(false);
    expect(isDoubtful(word('comme', DOUBTFUL_GREEK_CONFIDENCE - 3))).toBe(false);
    // A note call the ink shows and the text does not: the raised 8 read as an s ("contradictions." at 81 for
    // "contradiction⁸."); a call the text shows, put there from a mark or read so, leaves the word to its confidence.
    expect(isDoubtful(word('contradictions.', 81, { raised: '8' }))).toBe(true);
    expect(isDoubtful(word('vérité³', 80, { raised: '3', correction: { from: 'vérité*', reason: 'note-call', change: '*→³' } }))).toBe(false);
    expect(isDoubtful(word('symptômes¹²', 95, { raised: '12' }))).toBe(false);
    // A lone letter the correction step found no word of the page's languages (`doubt: 'letter'`: "Ἰ." for note "7.").
    expect(isDoubtful(word('Ἰ.', 86, { doubt: 'letter' }))).toBe(true);
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
