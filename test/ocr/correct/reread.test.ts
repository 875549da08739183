import { describe, expect, it } from 'vitest';
import { createGray } from '../../../src/imaging/index.js';
import { documentWords, openCorrector } from '../../../src/ocr/correct/correct.js';
import {
  chooseDocumentGreek,
  chooseGreek,
  chooseInk,
  chooseMarks,
  chooseReread,
  cutWord,
  greekToCheck,
  wordsBesideGreek,
  wordsToCheck,
  wordsToReread,
} from '../../../src/ocr/correct/reread.js';
import type { OcrPage, OcrWord } from '../../../src/project/index.js';

function word(text: string, x0: number, y0: number, extra: Partial<OcrWord> = {}): OcrWord {
  return { text, box: { x0, y0, x1: x0 + 40, y1: y0 + 20 }, confidence: 80, ...extra };
}

function page(words: OcrWord[][], size = { width: 400, height: 300 }): OcrPage {
  const box = { x0: 0, y0: 0, x1: size.width, y1: size.height };
  return {
    ...size,
    dpi: 300,
    engine: 'tesseract-cli',
    languages: ['fra'],
    blocks: [
      { box, paragraphs: [{ box, lines: words.map((ws) => ({ box: { x0: 0, y0: ws[0].box.y0 - 4, x1: size.width, y1: ws[0].box.y1 + 4 }, words: ws })) }] },
    ],
  };
}

describe('words read again', () => {
  it('takes a close dictionary word from the second reading, keeping the first reading’s punctuation', async () => {
    const fra = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => fra.known(w);
    expect(chooseReread('memier', ['premier'], known)).toEqual({ text: 'premier', change: 'memier→premier', language: 'fra' });
    expect(chooseReread('(conmais),', ['‘connais'], known)).toEqual({ text: '(connais),', change: 'conmais→connais', language: 'fra' });
    // A mark before the letters that opens nothing was part of the misreading: "&tobre" for "octobre".
    expect(chooseReread('&tobre', ['octobre'], known)?.text).toBe('octobre');
    expect(chooseReread('(συμφων/α5),', ['(συμφωνία),'], known)).toEqual({ text: '(συμφωνία5),', change: 'συμφων/α→συμφωνία', language: 'ell' });
  });

  it('leaves the word as it is unless the second reading is one close word of the same script that a dictionary knows', async () => {
    const fra = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => fra.known(w);
    // Too far from the first reading for its length (at most 1 letter in 4, 2 in 7, 3 beyond).
    expect(chooseReread('pésce', ['pime'], known)).toBeUndefined();
    expect(chooseReread('tmgons', ['tas'], known)).toBeUndefined();
    // Two words, none, a single letter, no word at all, the same word again.
    expect(chooseReread('l’éditson', ['l’édition', 'de'], known)).toBeUndefined();
    expect(chooseReread('conmais', [], known)).toBeUndefined();
    expect(chooseReread('ke', ['k'], known)).toBeUndefined();
    expect(chooseReread('xqzt', ['xqzv'], known)).toBeUndefined();
    // Another script: Greek read again as a French word.
    expect(chooseReread('δὲ', ['de'], known)).toBeUndefined();
    // A Greek word changed for its accents only: the dictionary is modern Greek, the page may be ancient.
    expect(chooseReread('Τίς', ['Τις'], known)).toBeUndefined();
  });

  it('never takes a Greek second reading that only lost letters: the modern dictionary knows ancient words shortened', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => both.known(w);
    // Recorded on the real capture: "(ὁμοούσιον)," read right on the page, "ὁμοούσιο" (a modern word) cut out.
    expect(known('ὁμοούσιο')).toBe('ell');
    expect(chooseReread('(ὁμοούσιον),', ['(ὁμοούσιο),'], known)).toBeUndefined();
  });

  it('combines the grey and bitonal readings of a known word read with doubt: the accent or ligature the bitonal page shows', async () => {
    const fra = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => fra.known(w);
    // Pairs as the two pages read them (grey, then bitonal): the bitonal page keeps the mark the grey one blurred.
    expect(chooseInk('cour', ['cœur'], known)).toEqual({ text: 'cœur', change: 'cour→cœur', language: 'fra' });
    expect(chooseInk('coeur,', ['cœur'], known)?.text).toBe('cœur,');
    expect(chooseInk('d’ail.', ['d’œil'], known)?.text).toBe('d’œil.');
    expect(chooseInk('sale', ['salé'], known)?.text).toBe('salé');
    expect(chooseInk('côte', ['cote'], known)?.text).toBe('cote');
    // A word no dictionary knows is settled by its bitonal cut the same way, by the rule for words read again.
    expect(chooseReread('supréme', ['suprême'], known)?.text).toBe('suprême');
    expect(chooseReread('àme', ['âme'], known)?.text).toBe('âme');
    expect(chooseReread('méme', ['même'], known)?.text).toBe('même');
    // Not when the readings differ by more than marks, by case only, or the bitonal reading is no word; not for the
    // short words a speck of dust would decide ("la"/"là"): the grammar rules have them.
    expect(chooseInk('cour', ['coup'], known)).toBeUndefined();
    expect(chooseInk('Cour', ['cour'], known)).toBeUndefined();
    expect(chooseInk('cour', ['cœurx'], known)).toBeUndefined();
    expect(chooseInk('mon', ['môn'], known)).toBeUndefined();
    expect(chooseInk('la', ['là'], known)).toBeUndefined();
    // Apostrophes are the typography rules' business.
    expect(chooseInk("l'accord", ['l’accord'], known)).toBeUndefined();
    expect(chooseInk('cour', ['cœur', 'x'], known)).toBeUndefined();
  });

  it('reads a word in Latin letters beside Greek again in Greek, and takes a Greek word of about its length', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => both.known(w);
    const read = page([
      [word('bayrioy', 10, 50, { unknown: true }), word('περιπεσεῖν', 60, 50), word('zqxw', 110, 50, { unknown: true }), word('vous', 160, 50)],
    ]);
    expect(wordsBesideGreek(read, wordsToReread(read)).map((w) => w.index)).toEqual([0, 2]);
    expect(
      wordsBesideGreek(page([[word('zqxw', 10, 50, { unknown: true }), word('vous', 60, 50)]]), [
        { index: 0, box: read.blocks[0].box, word: read.blocks[0].box },
      ]),
    ).toEqual([]);
    // Recorded on the real capture: "à bayrioy περιπεσεῖν" for "τὸ ἐναντίον περιπεσεῖν".
    expect(chooseGreek('bayrioy', ['ἐναντίον'], known)).toEqual({ text: 'ἐναντίον', change: 'bayrioy→ἐναντίον', language: 'ell' });
    expect(chooseGreek('(bayrioy),', ['ἐναντίον'], known)?.text).toBe('(ἐναντίον),');
    // Not a Latin reading again, no word, two words, nor a Greek word far longer or shorter.
    expect(chooseGreek('bayrioy', ['bayrioy'], known)).toBeUndefined();
    expect(chooseGreek('bayrioy', ['ξζψχ'], known)).toBeUndefined();
    expect(chooseGreek('bayrioy', ['ἐν', 'τῷ'], known)).toBeUndefined();
    expect(chooseGreek('bayrioyzzz', ['καὶ'], known)).toBeUndefined();
  });

  it('takes the accents and breathings a Greek word’s bitonal cut shows, and the letters an unsure Greek line reading lost', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => both.known(w);
    // Recorded on the real capture: "Ti" spelled "Τι" from its Latin look-alikes, read "Τί" on the bitonal page.
    expect(chooseMarks('Τι', ['Τί'], known)).toEqual({ text: 'Τί', change: 'Τι→Τί', language: 'ell' });
    expect(chooseMarks('(Τι', ['(Τί'], known)?.text).toBe('(Τι'.replace('ι', 'ί'));
    // A mark taken away or changed, other letters, another case, two words, no known word: left as read.
    expect(chooseMarks('Τίς', ['Τις'], known)).toBeUndefined();
    expect(chooseMarks('ἄν', ['ἂν'], known)).toBeUndefined();
    expect(chooseMarks('(Τι', ['(ΤΙ'], known)).toBeUndefined();
    expect(chooseMarks('ὡς', ['εζ'], known)).toBeUndefined();
    expect(chooseMarks('Τι', ['Τί', 'x'], known)).toBeUndefined();
    expect(chooseMarks('ξζψ', ['ξζψ́'], known)).toBeUndefined();
    // Recorded: "ἐαλλάττει»," read at 50 in its line, "ἐναλλάττειν," alone: the same letters and two more, in place
    // (the "»" read after it was its last letter).
    // Taken only from an unsure line reading; no Greek dictionary knows the ancient word, so no language is recorded.
    expect(chooseReread('ἐαλλάττει»,', ['ἐναλλάττειν,'], known, true)).toEqual({ text: 'ἐναλλάττειν,', change: 'ἐαλλάττει→ἐναλλάττειν', language: undefined });
    expect(chooseReread('ἐαλλάττει»,', ['ἐναλλάττειν,'], known, false)).toBeUndefined();
    // Letters changed, not only added ("ἁμτῶν" read "ἑμτῶν"), or a Latin word: left as read.
    expect(chooseReread('ἁμτῶν,', ['ἑμτῶν,'], known, true)).toBeUndefined();
    expect(chooseReread('xqzt', ['xqazt'], known, true)).toBeUndefined();
  });

  it('takes for a Greek word no dictionary knows the one Greek word the document prints confidently one letter from a reading', () => {
    // Recorded on the real capture: "ἁμτῶν," (55) in its line, "ἑατῶν," cut from the bitonal page; "ἑαυτῶν" read at 89
    // and "ἑαυτοῖς" at 91 in the next lines of the same note.
    const document = documentWords();
    document.add(page([[word('τοῖς', 10, 50, { confidence: 92 }), word('ἑαυτῶν', 60, 50, { confidence: 89 }), word('ἑαυτοῖς', 110, 50, { confidence: 91 })]]));
    // A word read below the document's confidence does not count ("ἑατῶς" at 60).
    document.add(page([[word('ἑατῶς', 10, 50, { confidence: 60 })]]));
    const near = (w: string): string[] => document.oneChangeFrom(w);
    expect(chooseDocumentGreek('ἁμτῶν,', ['ἑατῶν,'], near)).toEqual({ text: 'ἑαυτῶν,', change: 'ἁμτῶν→ἑαυτῶν', language: undefined });
    // A word read confidently is a word of the document itself: a cut that lost its last letter leaves it as read.
    expect(chooseDocumentGreek('ἑαυτοῖς', ['ἑαυτοῖ'], near)).toBeUndefined();
    // Two letters from every word of the document ("ἑμτῶν"): left as read.
    expect(chooseDocumentGreek('ἁμτῶν,', ['ἑμτῶν,'], near)).toBeUndefined();
    // One letter from two words the document prints ("ἑατῶ" printed too): left as read.
    document.add(page([[word('ἑατῶ', 10, 50, { confidence: 95 })]]));
    expect(chooseDocumentGreek('ἁμτῶν,', ['ἑατῶν,'], near)).toBeUndefined();
    // Nor a Latin reading, nor two words read alone.
    expect(chooseDocumentGreek('ἁμτῶν,', ['eatwn,'], near)).toBeUndefined();
    expect(chooseDocumentGreek('ἁμτῶν,', ['ἑα', 'τῶν'], near)).toBeUndefined();
  });

  it('checks the marks of the Greek words read with doubt or spelled from Latin look-alikes, not the sure ones nor the unknown ones', () => {
    const read = page([
      [word('Τι', 10, 50, { confidence: 91, correction: { from: 'Ti', reason: 'script' } }), word('ὡς', 60, 50, { confidence: 82 })],
      [word('τῆς', 10, 120, { confidence: 93 }), word('ἁμτῶν', 60, 120, { confidence: 53, unknown: true }), word('même', 110, 120, { confidence: 40 })],
    ]);
    expect(greekToCheck(read, 85).map((d) => d.index)).toEqual([0, 1]);
  });

  it('checks on the bitonal page the known Latin-script words read with doubt, not the sure ones nor the unknown ones', () => {
    const read = page([
      [word('cour', 100, 50, { confidence: 55 }), word('sûr', 150, 50, { confidence: 90 }), word('zqx', 200, 50, { confidence: 40, unknown: true })],
      [word('λόγος', 10, 120, { confidence: 40 }), word('aile', 60, 120, { confidence: 30, correction: { from: 'ailc', reason: 'known-confusion' } })],
    ]);
    expect(wordsToCheck(read, 70).map((d) => d.index)).toEqual([0]);
  });

  it('cuts the unknown words with their line’s height and some paper, without the ink of other words', () => {
    const read = page([
      [word('memier', 100, 50, { unknown: true }), word('jet', 150, 50)],
      [
        word('x', 10, 120, { unknown: true }),
        word('checked', 60, 120, { unknown: true, edit: { from: 'checked' } }),
        word('&tobre', 380, 120, { unknown: true }),
      ],
    ]);
    const doubtful = wordsToReread(read);
    // Not one letter, not a word a person checked; the cut stays on the page.
    expect(doubtful.map((d) => d.index)).toEqual([0, 4]);
    // The line is 28 px high: 7 px of paper around (the line's own height, not the word's).
    expect(doubtful[0].box).toEqual({ x0: 93, y0: 39, x1: 147, y1: 81 });
    expect(doubtful[1].box).toEqual({ x0: 373, y0: 109, x1: 400, y1: 151 });

    // Cut from a page of grey paper (200) with a stroke of ink (40), from an image twice the OCR page's size: the
    // paper comes out white, the ink stays dark.
    const grey = createGray(800, 600, 200);
    for (let y = 90; y < 150; y++) for (let x = 200; x < 210; x++) grey.data[y * 800 + x] = 40;
    const cut = cutWord(grey, read, doubtful[0].box);
    expect([cut.width, cut.height]).toEqual([108, 84]);
    expect(cut.data[0]).toBe(255);
    expect(cut.data[20 * 108 + (200 - 186)]).toBe(51);

    // Ink reaching in from the line below (touching the cut's edge, its middle below the word) is made paper; the
    // word's own letters stay, even one that touches the edge.
    const lined = createGray(400, 300, 255);
    for (let y = 55; y < 68; y++) for (let x = 105; x < 110; x++) lined.data[y * 400 + x] = 30;
    for (let y = 76; y < 81; y++) for (let x = 120; x < 130; x++) lined.data[y * 400 + x] = 30;
    for (let y = 45; y < 81; y++) for (let x = 134; x < 138; x++) lined.data[y * 400 + x] = 30;
    const clean = cutWord(lined, read, doubtful[0].box, read.blocks[0].paragraphs[0].lines[0].words[0].box);
    expect(clean.data[(60 - 39) * 54 + (107 - 93)]).toBe(30);
    expect(clean.data[(78 - 39) * 54 + (125 - 93)]).toBe(255);
    expect(clean.data[(78 - 39) * 54 + (136 - 93)]).toBe(30);
    // Without the word's box, the whole cut counts as the word.
    expect(cutWord(lined, read, doubtful[0].box).data[(78 - 39) * 54 + (125 - 93)]).toBe(30);
  });
});
