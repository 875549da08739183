import { describe, expect, it } from 'vitest';
import { undoCorrections } from '../../../src/ocr/correct/correct.js';
import {
  correctApostrophes,
  correctGuillemets,
  correctHighPunctuation,
  correctReferences,
  documentApostrophes,
  documentGuillemets,
  documentHighPunctuation,
  documentReferences,
} from '../../../src/ocr/correct/typography.js';
import { pageWords, type OcrPage, type OcrWord } from '../../../src/project/index.js';

function page(...texts: string[]): OcrPage {
  const words: OcrWord[] = texts.map((text) => ({ text, box: { x0: 0, y0: 0, x1: 10, y1: 10 }, confidence: 90 }));
  const box = { x0: 0, y0: 0, x1: 100, y1: 100 };
  return { width: 100, height: 100, dpi: 300, engine: 'tesseract', languages: ['fra'], blocks: [{ box, paragraphs: [{ box, lines: [{ box, words }] }] }] };
}

const texts = (p: OcrPage): string[] => pageWords(p).map((w) => w.text);

describe('one apostrophe for the document', () => {
  it('sets the apostrophes the engine read straight to the typographic one the book prints, and records each change', () => {
    const pages = [
      page('l’évêque', 'd’Alexandrie', 'l’unanimité', 'qu’il', 'l’histoire', 's’il', 'n’a', 'c’est-à-dire'),
      page('l’ajout', 'd’une', "l'opposition", 'l’homme', "«l'unique»", 'aujourd’hui', "'arien'"),
    ];
    const counted = documentApostrophes();
    for (const p of pages) counted.add(p);
    expect(counted.kind).toBe('’');
    expect(correctApostrophes(pages[0], '’')).toBe(0);
    expect(correctApostrophes(pages[1], '’')).toBe(2);
    // Quotation marks are not apostrophes: only the ones between two letters change.
    expect(texts(pages[1])).toEqual(['l’ajout', 'd’une', 'l’opposition', 'l’homme', '«l’unique»', 'aujourd’hui', "'arien'"]);
    expect(pageWords(pages[1])[2].correction).toEqual({ from: "l'opposition", reason: 'punctuation', change: "'→’" });
    expect(texts(undoCorrections(pages[1]))).toContain("l'opposition");
  });

  it('leaves a document alone while its apostrophe is not clear, and a word a person checked', () => {
    const mixed = documentApostrophes();
    mixed.add(page("l'a", 'l’b', "l'c", 'l’d', "l'e", 'l’f', "l'g", 'l’h', "l'i", 'l’j'));
    expect(mixed.kind).toBeUndefined();
    const few = documentApostrophes();
    few.add(page('l’a', 'l’b', "l'c"));
    expect(few.kind).toBeUndefined();
    const typescript = documentApostrophes();
    typescript.add(page(..."don't can't won't it's I'm you're we're they're isn't wasn't".split(' '), 'doesn’t'));
    expect(typescript.kind).toBe("'");

    const checked = page("l'opposition");
    pageWords(checked)[0].edit = { from: "l'opposition" };
    expect(correctApostrophes(checked, '’')).toBe(0);
    expect(texts(checked)).toEqual(["l'opposition"]);
  });
});

describe('guillemets set apart as the book sets them', () => {
  it('sets apart a guillemet read glued to its word when the document sets them apart, following its quotations', () => {
    const quoted = ['arien', 'prendre', 'consubstantiel', 'discorde', 'dissension', 'changer', 'revenir', 'se repentir'];
    const spaced = page(...quoted.flatMap((w) => ['«', w, '»,']));
    const glued = page('parti', '«arien', '»', 'de', '«été»,', 'changer', 'ἐαλλάττει»,', '«', 'changer', 'une', 'opinion»');
    const counted = documentGuillemets();
    for (const p of [spaced, glued]) counted.add(p);
    expect(counted.spaced).toBe(true);
    expect(correctGuillemets(spaced)).toBe(0);
    expect(correctGuillemets(glued)).toBe(3);
    // A "»" glued to a word with no quotation open is a misread letter more likely than a quote: it stays.
    expect(texts(glued)).toEqual(['parti', '« arien', '»', 'de', '« été »,', 'changer', 'ἐαλλάττει»,', '«', 'changer', 'une', 'opinion »']);
    expect(pageWords(glued)[1].correction).toEqual({ from: '«arien', reason: 'punctuation', change: 'guillemet set apart' });
    expect(texts(undoCorrections(glued))).toContain('«arien');
  });

  it('leaves a document that glues its guillemets, or has too few, as read', () => {
    const glued = documentGuillemets();
    glued.add(page('«arien»', '«été»', '«consubstantiel»', '«', 'autre', '»'));
    expect(glued.spaced).toBe(false);
    const few = documentGuillemets();
    few.add(page('«', 'arien', '»', '«été»'));
    expect(few.spaced).toBe(false);
  });
});

describe('semicolons, colons, question and exclamation marks set apart as a French book sets them', () => {
  it('sets apart a mark read glued to its word when the document sets them apart', () => {
    const apart = [
      'vus',
      'nature',
      'Myriel',
      'beauté',
      'ans',
      'spirituel',
      'précipitèrent',
      'robe',
      'taille',
      'Italie',
      'soirs',
      'riche',
      'inverse',
      'évidente',
    ];
    const spaced = page(...apart.flatMap((w, i) => [w, ';:?!'[i % 4]]));
    const glued = page("d'Aix;", 'noblesse', 'en', '1806;', 'le', 'vérité', '»;', 'Quoi!', 'l.5;', '10:30', '(12,', '4)', 'http://x', "d'Aix", ';', 'ἄν;');
    const counted = documentHighPunctuation();
    for (const p of [spaced, glued]) counted.add(p);
    expect(counted.spaced).toBe(true);
    expect(correctHighPunctuation(spaced)).toBe(0);
    expect(correctHighPunctuation(glued)).toBe(5);
    // Only a mark ending a word after a letter, digit or closing quote: a time or an address stays whole, and a Greek
    // question mark (";") stays glued as Greek prints it.
    expect(texts(glued)).toEqual([
      "d'Aix ;",
      'noblesse',
      'en',
      '1806 ;',
      'le',
      'vérité',
      '» ;',
      'Quoi !',
      'l.5 ;',
      '10:30',
      '(12,',
      '4)',
      'http://x',
      "d'Aix",
      ';',
      'ἄν;',
    ]);
    expect(pageWords(glued)[0].correction).toEqual({ from: "d'Aix;", reason: 'punctuation', change: '; set apart' });
    expect(texts(undoCorrections(glued))).toContain('1806;');
  });

  it('leaves a book that glues them (English, Latin), or has too few, as read', () => {
    const english = documentHighPunctuation();
    english.add(page('England;', 'wisdom;', 'foolishness;', 'belief:', 'Darkness;', 'despair;', 'How', '?'));
    expect(english.spaced).toBe(false);
    const few = documentHighPunctuation();
    few.add(page('vus', ';', 'Myriel', '?', "d'Aix;"));
    expect(few.spaced).toBe(false);
  });
});

describe('a reference’s number set apart from its abbreviation as the book sets it', () => {
  it('sets "p.261" apart as "p. 261" when the document prints its references apart', () => {
    const spaced = page(
      'p.',
      '241,',
      'l.',
      '16',
      '(32,',
      '1,',
      'p.',
      '260,',
      'l.',
      '8',
      ';',
      'n.',
      '292',
      '(p.',
      '231)',
      'p.',
      '264,',
      'l.',
      '22-23',
      'p.',
      '259,',
      'l.',
      '23',
      'p.',
      '232,',
      'l.',
      '2',
      't.',
      '2',
    );
    const glued = page('33,', '4,', 'p.261,', 'l.12', 'et', '13', ';', 'l.5;', '(p.265', 'h.12', 'etc.3', 'p.', 'l.a', '1.5');
    const counted = documentReferences();
    for (const p of [spaced, glued]) counted.add(p);
    expect(counted.spaced).toBe(true);
    expect(correctReferences(spaced)).toBe(0);
    expect(correctReferences(glued)).toBe(4);
    // Only the abbreviations of references, before a digit: "etc.3" (a note call), "l.a", a decimal, stay.
    expect(texts(glued)).toEqual(['33,', '4,', 'p. 261,', 'l. 12', 'et', '13', ';', 'l. 5;', '(p. 265', 'h.12', 'etc.3', 'p.', 'l.a', '1.5']);
    expect(pageWords(glued)[2].correction).toEqual({ from: 'p.261,', reason: 'punctuation', change: 'number set apart from p.' });
    expect(texts(undoCorrections(glued))).toContain('p.261,');
  });

  it('leaves a document that glues them, or has too few, as read', () => {
    const tight = documentReferences();
    tight.add(page('p.12', 'p.13', 'l.4', 'p.', '14', 'p.15', 'l.2', 'p.16'));
    expect(tight.spaced).toBe(false);
    const few = documentReferences();
    few.add(page('p.', '12', 'l.', '4', 'p.13'));
    expect(few.spaced).toBe(false);
  });
});
