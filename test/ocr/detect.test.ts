import { describe, expect, it } from 'vitest';
import { detectLanguages, firstGuessLanguages, otherPageLanguages } from '../../src/ocr/index.js';
import type { OcrPage } from '../../src/project/index.js';

const INSTALLED = ['deu', 'ell', 'eng', 'fra', 'ita', 'lat', 'por', 'spa'];

const TEXT = {
  fra:
    "Il était une fois, dans un petit village au bord de la mer, un vieux pêcheur qui partait chaque matin avant l'aube. " +
    'Sa femme lui préparait du pain et du fromage, et il revenait le soir avec des paniers remplis de poissons.',
  eng:
    'Once upon a time, in a small village by the sea, an old fisherman set out every morning before dawn. His wife ' +
    'prepared bread and cheese for him, and he came back in the evening with baskets full of fish.',
  deu:
    'Es war einmal in einem kleinen Dorf am Meer ein alter Fischer, der jeden Morgen vor Sonnenaufgang hinausfuhr. ' +
    'Seine Frau bereitete ihm Brot und Käse zu, und am Abend kam er mit Körben voller Fische zurück.',
  lat:
    'Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui ipsorum lingua ' +
    'Celtae, nostra Galli appellantur. Hi omnes lingua, institutis, legibus inter se differunt.',
  vulgate:
    'In principio creavit Deus caelum et terram. Terra autem erat inanis et vacua, et tenebrae super faciem abyssi, ' +
    'et spiritus Dei ferebatur super aquas. Dixitque Deus: Fiat lux. Et facta est lux.',
  ita:
    "C'era una volta, in un piccolo villaggio sul mare, un vecchio pescatore che usciva ogni mattina prima dell'alba. " +
    'Sua moglie gli preparava il pane e il formaggio, e lui tornava la sera con ceste piene di pesci.',
  spa:
    'Había una vez, en un pequeño pueblo junto al mar, un viejo pescador que salía cada mañana antes del amanecer. ' +
    'Su mujer le preparaba pan y queso, y él volvía por la tarde con cestas llenas de peces.',
  ell: 'Μια φορά κι έναν καιρό, σε ένα μικρό χωριό δίπλα στη θάλασσα, ζούσε ένας γέρος ψαράς που έβγαινε κάθε πρωί πριν από την αυγή.',
  fraWithGreek:
    "Athanase écrit dans sa lettre que le Verbe s'est fait homme, et il cite l'évangile : « ὁ λόγος σὰρξ ἐγένετο καὶ " +
    'ἐσκήνωσεν ἐν ἡμῖν ». Cette formule revient souvent dans ses traités contre les ariens, où il défend la divinité du Fils.',
  fraWithLatin:
    "Augustin reprend la question dans les Confessions, au livre premier, où il médite sur la grandeur de Dieu et sur l'inquiétude " +
    "de l'homme qui le cherche sans repos. Le passage est célèbre et souvent cité par les auteurs spirituels.\n\n" +
    'Magnus es, domine, et laudabilis valde: magna virtus tua, et sapientiae tuae non est numerus. Et laudare te vult homo, ' +
    'aliqua portio creaturae tuae, quia fecisti nos ad te et inquietum est cor nostrum, donec requiescat in te.\n\n' +
    "La phrase finale résume toute la pensée augustinienne sur le désir de Dieu, et les commentateurs y ont vu le programme de l'ouvrage entier.",
};

describe('detectLanguages', () => {
  it.each([
    ['fra', TEXT.fra, ['fra']],
    ['eng', TEXT.eng, ['eng']],
    ['deu', TEXT.deu, ['deu']],
    ['lat', TEXT.lat, ['lat']],
    ['lat (Vulgate)', TEXT.vulgate, ['lat']],
    ['ita', TEXT.ita, ['ita']],
    ['spa', TEXT.spa, ['spa']],
    ['ell', TEXT.ell, ['ell']],
  ])('tells %s apart', (_name, text, expected) => {
    expect(detectLanguages(text, { candidates: INSTALLED })).toEqual(expected);
    // Without a candidate list too (franc then weighs its ~190 languages).
    expect(detectLanguages(text)).toEqual(expected);
  });

  it('finds a Greek quotation inside French text, French first', () => {
    expect(detectLanguages(TEXT.fraWithGreek, { candidates: INSTALLED })).toEqual(['fra', 'ell']);
  });

  it('takes Ancient Greek for a polytonic quotation when it is installed, Modern Greek otherwise', () => {
    expect(detectLanguages(TEXT.fraWithGreek, { candidates: [...INSTALLED, 'grc'] })).toEqual(['fra', 'grc']);
    expect(detectLanguages(TEXT.ell, { candidates: [...INSTALLED, 'grc'] })).toEqual(['ell']);
  });

  it('finds a Latin paragraph inside French text, French first', () => {
    expect(detectLanguages(TEXT.fraWithLatin, { candidates: INSTALLED })).toEqual(['fra', 'lat']);
  });

  it('puts Greek first on a Greek page with a few French words', () => {
    expect(detectLanguages(`${TEXT.ell} (voir la note de l'éditeur)`, { candidates: INSTALLED })).toEqual(['ell', 'fra']);
  });

  it('ignores a stray Greek letter, and says nothing on too little text', () => {
    expect(detectLanguages(`${TEXT.eng} The angle α is small.`, { candidates: INSTALLED })).toEqual(['eng']);
    expect(detectLanguages('p. 12', { candidates: INSTALLED })).toEqual([]);
    expect(detectLanguages('', { candidates: INSTALLED })).toEqual([]);
  });

  it('adds no Greek model for Latin words misread in Greek letters, only for words written in Greek', () => {
    // What a first pass with eng+ell made of a French footnote: "A. MARTIN", "ne", "et", "le" half in Greek.
    const misread = `${TEXT.fra} Α. Μλατιν, Athanase, p. 531 ; il πο décrit οἱ commente, εἰ ajoute Ίο reste.`;
    expect(detectLanguages(misread, { candidates: INSTALLED })).toEqual(['fra']);
    expect(detectLanguages(TEXT.fraWithGreek, { candidates: INSTALLED })).toEqual(['fra', 'ell']);
  });

  it('answers only with candidate languages', () => {
    expect(detectLanguages(TEXT.fraWithGreek, { candidates: ['eng', 'fra'] })).toEqual(['fra']);
    expect(detectLanguages(TEXT.lat, { candidates: ['eng', 'fra', 'ita'] })).not.toContain('lat');
  });
});

describe('firstGuessLanguages', () => {
  it('reads the first pages with English plus one model per other installed script', () => {
    expect(firstGuessLanguages(INSTALLED)).toEqual(['eng', 'ell']);
    expect(firstGuessLanguages(['fra', 'grc', 'ell', 'ukr', 'rus'])).toEqual(['fra', 'ell', 'rus']);
    expect(firstGuessLanguages(['ell'])).toEqual(['ell']);
    expect(firstGuessLanguages([])).toEqual([]);
  });
});

/** A page read as `text`, one word per box (the boxes do not matter here). */
function pageReading(text: string): OcrPage {
  const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
  const words = text.split(/\s+/).map((w) => ({ text: w, box, confidence: 90 }));
  return { width: 10, height: 10, dpi: 300, engine: 'tesseract', languages: ['eng'], blocks: [{ box, paragraphs: [{ box, lines: [{ box, words }] }] }] };
}

describe('otherPageLanguages', () => {
  it("reads again in its own language a page plainly in another than the document's, keeping the document's other scripts", () => {
    // An anthology's French page, read with the English and Greek found on the first pages (accents lost as English reads them).
    const french = pageReading(`${TEXT.fra} ${TEXT.fra} ${TEXT.fra}`.normalize('NFD').replace(/\p{M}/gu, ''));
    expect(otherPageLanguages(french, ['eng', 'ell'], INSTALLED)).toEqual(['fra', 'ell']);
    expect(otherPageLanguages(pageReading(`${TEXT.eng} ${TEXT.eng} ${TEXT.eng}`), ['eng', 'ell'], INSTALLED)).toBeUndefined();
    expect(otherPageLanguages(pageReading(`${TEXT.fra} ${TEXT.fra} ${TEXT.fra}`), ['fra'], INSTALLED)).toBeUndefined();
  });

  it('trusts the document on a page with too little text to say', () => {
    expect(otherPageLanguages(pageReading(TEXT.fra.slice(0, 120)), ['eng'], INSTALLED)).toBeUndefined();
  });
});
