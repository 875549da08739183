import { describe, expect, it } from 'vitest';
import { documentWords, openCorrector, undoCorrections } from '../../../src/ocr/correct/correct.js';
import type { OcrPage, OcrWord } from '../../../src/project/index.js';

/** A word as an engine hands it over; `choices` gives the engine's weighed alternatives, per character. */
function word(text: string, choices?: Record<number, string[]>): OcrWord {
  const w: OcrWord = { text, box: { x0: 0, y0: 0, x1: 10, y1: 10 }, confidence: 80 };
  if (choices) w.alternatives = Array.from(text).map((ch, i) => [ch, ...(choices[i] ?? [])]);
  return w;
}

/** A page of lines of words, in these languages. */
function page(languages: string[], ...lines: OcrWord[][]): OcrPage {
  return {
    width: 1000,
    height: 1000,
    dpi: 300,
    engine: 'tesseract',
    languages,
    blocks: [
      {
        box: { x0: 0, y0: 0, x1: 1000, y1: 1000 },
        paragraphs: [{ box: { x0: 0, y0: 0, x1: 1000, y1: 1000 }, lines: lines.map((words) => ({ box: { x0: 0, y0: 0, x1: 1000, y1: 20 }, words })) }],
      },
    ],
  };
}

function words(p: OcrPage): OcrWord[] {
  return p.blocks.flatMap((b) => b.paragraphs.flatMap((para) => para.lines.flatMap((l) => l.words)));
}

const text = (p: OcrPage): string[] => words(p).map((w) => w.text);

describe('the lexicon-checked correction', () => {
  it('corrects the accent and e/c confusions of a French page, recording what the engine read and why', async () => {
    const fra = await openCorrector(['fra']);
    const read = page(
      ['fra'],
      // ç read as g, ê as é (the engine weighed ê too), the eye of e closed into c.
      [word('J’avangais'), word('méme', { 1: ['ê'] }), word('si'), word('l’on'), word('peut'), word('étre'), word('sûr,')],
      // …"ti" set tight read as ü, and h closed into b by blur.
      [word('clle'), word('ct'), word('le'), word('suprémc'), word('«avangais»,'), word('se'), word('repenür'), word('les'), word('bommes')],
    );
    const corrected = await fra.correct(read);
    expect(text(corrected)).toEqual([
      'J’avançais',
      'même',
      'si',
      'l’on',
      'peut',
      'être',
      'sûr,',
      'elle',
      'et',
      'le',
      'suprémc',
      '«avançais»,',
      'se',
      'repentir',
      'les',
      'hommes',
    ]);
    const [avancais, meme] = words(corrected);
    expect(avancais.correction).toEqual({ from: 'J’avangais', reason: 'known-confusion', change: 'g→ç', language: 'fra' });
    expect(meme.correction).toEqual({ from: 'méme', reason: 'engine-choice', change: 'é→ê', language: 'fra' });
    // Confidence stays the engine's, for the proofreader.
    expect(meme.confidence).toBe(80);
    expect(words(corrected)[13].correction).toEqual({ from: 'repenür', reason: 'known-confusion', change: 'ü→ti', language: 'fra' });
    expect(corrected.correction).toEqual({ checked: ['fra'], unchecked: [], corrected: 8, unknown: 1 });
    // Put back as read, word for word.
    expect(text(undoCorrections(corrected))).toEqual(text(read));
  });

  it('takes, of several words made from the engine’s choices, the one among the language’s most frequent, and only when it is the only one', async () => {
    const eng = await openCorrector(['eng']);
    // "bn": "in", "im", "fa", "ta"… are words; only "in" is a frequent one. "ia": "in", "is" and "be" all are.
    const read = page(
      ['eng'],
      [word('the'), word('bn', { 0: ['i', 'k', 'f', 't'], 1: ['m', 'a'] }), word('town'), word('ia', { 0: ['b', 'I', 'k'], 1: ['n', 's', 'e'] }), word('May')],
    );
    const corrected = await eng.correct(read);
    expect(text(corrected)).toEqual(['the', 'in', 'town', 'ia', 'May']);
    expect(words(corrected)[1].correction).toEqual({ from: 'bn', reason: 'engine-choice', change: 'b→i', language: 'eng' });
    expect(words(corrected)[3].unknown).toBe(true);
    // "méme": "même" and "mème" are both French, and "même" one of its most frequent words.
    const fra = await openCorrector(['fra']);
    expect(text(await fra.correct(page(['fra'], [word('méme')])))).toEqual(['même']);
  });

  it('reads a rare short word read with little confidence as the frequent word the engine’s choices make of it', async () => {
    const fra = await openCorrector(['fra']);
    // "fat" is French too, but rare; read at 50, its a could be u: "fut". Read at 85, it stays.
    const doubtful = (confidence: number): OcrWord => ({ ...word('fat', { 1: ['u', 'o'] }), confidence });
    const corrected = await fra.correct(page(['fra'], [word('Il'), doubtful(50), word('élevé'), word('et'), doubtful(85)]));
    expect(text(corrected)).toEqual(['Il', 'fut', 'élevé', 'et', 'fat']);
    expect(words(corrected)[1].correction).toEqual({ from: 'fat', reason: 'engine-choice', change: 'a→u', language: 'fra' });
    // A frequent word read with little confidence is left as read ("ou" could be "où": both are frequent).
    const ou: OcrWord = { ...word('ou', { 1: ['ù'] }), confidence: 40 };
    expect(text(await fra.correct(page(['fra'], [ou])))).toEqual(['ou']);
  });

  it('reads a short word of a quoted language, read with little confidence, as the page’s own frequent word', async () => {
    const eng = await openCorrector(['eng']);
    // "ber" is French (a cradle), not English: on an English page, read at 53, its b is the h blur closed ("her").
    // Read at 85, it stays a quotation, as does a longer French word read doubtfully.
    const ber = (confidence: number): OcrWord => ({ ...word('ber'), confidence });
    const corrected = await eng.correct(page(['eng'], [word('to'), ber(53), word('mother'), word('and'), ber(85), { ...word('bonté'), confidence: 40 }]));
    expect(text(corrected)).toEqual(['to', 'her', 'mother', 'and', 'ber', 'bonté']);
    expect(words(corrected)[1].correction).toEqual({ from: 'ber', reason: 'known-confusion', change: 'b→h', language: 'eng' });
  });

  it('never touches a word a person checked while proofreading, correcting or undoing', async () => {
    const fra = await openCorrector(['fra']);
    // "avangais" kept by a person (a name in this book); "méme" corrected by the step, then edited by a person.
    const kept: OcrWord = { ...word('avangais'), edit: { from: 'avangais' } };
    const edited: OcrWord = {
      ...word('Même'),
      correction: { from: 'méme', reason: 'known-confusion', change: 'é→ê', language: 'fra' },
      edit: { from: 'même' },
    };
    const corrected = await fra.correct(page(['fra'], [kept, edited, word('J’avangais')]));
    expect(text(corrected)).toEqual(['avangais', 'Même', 'J’avançais']);
    expect(words(corrected)[0].correction).toBeUndefined();
    const undone = undoCorrections(corrected);
    expect(text(undone)).toEqual(['avangais', 'Même', 'J’avangais']);
    expect(words(undone)[1].edit).toEqual({ from: 'même' });
  });

  it('leaves a word as read, marked unknown, when no candidate or more than one is a word', async () => {
    const fra = await openCorrector(['fra']);
    const corrected = await fra.correct(
      page(
        ['fra'],
        // No single change makes a word of it.
        [word('Qzwvx')],
        // pécher and pêcher are both French: without the engine's say, no choice is made.
        [word('pecher')],
        // Two changes would make "suprême": one change at a time only.
        [word('suprémc', { 4: ['ê'], 6: ['e'] })],
      ),
    );
    expect(text(corrected)).toEqual(['Qzwvx', 'pecher', 'suprémc']);
    for (const w of words(corrected)) {
      expect(w.unknown).toBe(true);
      expect(w.correction).toBeUndefined();
    }
    // The engine's choices stay on the word the proofreader will look at.
    expect(words(corrected)[2].alternatives?.[4]).toEqual(['é', 'ê']);
  });

  it('mends a stroke small type lost only when no known confusion makes a word', async () => {
    const fra = await openCorrector(['fra']);
    // m for n, v for œ; "ao" may be "an" or "au", and two letters are too few to choose.
    const french = await fra.correct(page(['fra'], [word('la'), word('maissance'), word('de'), word('sa'), word('svur'), word('ao')]));
    expect(text(french)).toEqual(['la', 'naissance', 'de', 'sa', 'sœur', 'ao']);
    expect(words(french)[1].correction).toEqual({ from: 'maissance', reason: 'known-confusion', change: 'm→n', language: 'fra' });
    expect(words(french)[5].unknown).toBe(true);
    // A known confusion goes first: "mome" is "môme" (o→ô), never "nome" (m→n).
    expect(text(await fra.correct(page(['fra'], [word('un'), word('mome')])))).toEqual(['un', 'môme']);
    const lat = await openCorrector(['lat']);
    expect(text(await lat.correct(page(['lat'], [word('Matrooa'), word('dividit')])))).toEqual(['Matrona', 'dividit']);
  });

  it('reads "à" before a past participle as the verb "a" (leaving "à" where the preposition fits), and a sentence-initial "H" as "Il"', async () => {
    const fra = await openCorrector(['fra']);
    const read = page(
      ['fra'],
      [word('Acace'), word('à'), word('succédé'), word('à'), word('Eusèbe;'), word('il'), word('à')],
      [word('été'), word('élu,'), word('la'), word('doctrine'), word('qu’il'), word('leur'), word('à'), word('transmise')],
      // The preposition: before a noun that is a participle's form too, a place, "tout à fait", a word after a mark.
      [
        word('à'),
        word('côté,'),
        word('à'),
        word('durée'),
        word('fixe,'),
        word('tout'),
        word('à'),
        word('fait'),
        word('à'),
        word('«été»'),
        word('à'),
        word('Nicée'),
      ],
    );
    const corrected = await fra.correct(read);
    expect(text(corrected).join(' ')).toBe(
      'Acace a succédé à Eusèbe; il a été élu, la doctrine qu’il leur a transmise à côté, à durée fixe, tout à fait à «été» à Nicée',
    );
    expect(words(corrected)[1].correction).toEqual({ from: 'à', reason: 'grammar', change: 'à→a', language: 'fra' });
    expect(corrected.correction).toMatchObject({ corrected: 3 });
    expect(text(undoCorrections(corrected))).toEqual(text(read));
    // "Il" read as "H" at a sentence's start; "H" elsewhere, or before a name, stays.
    const il = await fra.correct(
      page(
        ['fra'],
        [word('homéenne,'), word('H'), word('ne'), word('raconte'), word('la'), word('bombe'), word('H'), word('explose.'), word('H'), word('Martin')],
      ),
    );
    expect(text(il).join(' ')).toBe('homéenne, Il ne raconte la bombe H explose. H Martin');
    expect(words(il)[1].correction).toEqual({ from: 'H', reason: 'grammar', change: 'H→Il', language: 'fra' });
    // Dictionary words no book means there: "mème" for "même", "fous deux" for "tous deux"; "fous" elsewhere stays.
    const traps = await fra.correct(
      page(['fra'], [word('la'), word('mème'), word('ville,'), word('«Mèmes»'), word('fous'), word('deux'), word('des'), word('fous'), word('rires')]),
    );
    expect(text(traps).join(' ')).toBe('la même ville, «Mêmes» tous deux des fous rires');
    expect(words(traps)[1].correction).toEqual({ from: 'mème', reason: 'grammar', change: 'mème→même', language: 'fra' });
    // The first of a month, its raised "er" lost; "1°" (primo) elsewhere stays.
    const dates = await fra.correct(
      page(
        ['fra'],
        [
          word('après'),
          word('le'),
          word('1'),
          word('octobre'),
          word('359,'),
          word('entre'),
          word('le'),
          word('1°'),
          word('et'),
          word('le'),
          word('10'),
          word('octobre'),
          word('1°'),
          word('la'),
          word('foi'),
        ],
      ),
    );
    expect(text(dates).join(' ')).toBe('après le 1er octobre 359, entre le 1er et le 10 octobre 1° la foi');
    expect(words(dates)[7].correction).toEqual({ from: '1°', reason: 'grammar', change: '1°→1er', language: 'fra' });
    // A heading's numeral I read as a bar; a bar before a word in small letters may be anything, and stays.
    const heading = await fra.correct(page(['fra'], [word('|.'), word('MONSIEUR'), word('MYRIEL')], [word('|.'), word('Digne,'), word('chef-lieu')]));
    expect(text(heading).join(' ')).toBe('I. MONSIEUR MYRIEL |. Digne, chef-lieu');
    expect(words(heading)[0].correction).toEqual({ from: '|.', reason: 'known-confusion', change: '|→I' });
    // A bar glued to a word the dictionary knows is a stroke of the gutter; one that makes a word as an l stays.
    const bars = await fra.correct(page(['fra'], [word('|proximité'), word('et'), word('|a'), word('lumière|')]));
    expect(text(bars).join(' ')).toBe('proximité et |a lumière');
    expect(words(bars)[0].correction).toEqual({ from: '|proximité', reason: 'known-confusion', change: '| dropped' });
    // A small s read as a straight quote on a blurred page, where no other quote closes it; a real quotation stays.
    const quotes = await fra.correct(
      page(
        ['fra'],
        [word('peu'), word('après'), word('"a'), word('naissance'), word('"i'), word('bien')],
        [
          word('il'),
          word('dit'),
          word('"oui"'),
          word('et'),
          word('"a'),
          word('vu'),
          word('tout"'),
          word('«e'),
          word('quitter,'),
          word('«a'),
          word('vu'),
          word('»'),
        ],
      ),
    );
    expect(text(quotes).join(' ')).toBe('peu après sa naissance si bien il dit "oui" et "a vu tout" se quitter, «a vu »');
    expect(words(quotes)[2].correction).toEqual({ from: '"a', reason: 'known-confusion', change: '"→s' });
    // Small type reads the s as "<" too; an editor's angle brackets close what they open.
    const angles = await fra.correct(
      page(['fra'], [word('et'), word('<a'), word('galanterie'), word('de'), word('ces'), word('<hérétiques>'), word('<a'), word('vérité>')]),
    );
    expect(text(angles).join(' ')).toBe('et sa galanterie de ces <hérétiques> <a vérité>');
    expect(words(angles)[1].correction).toEqual({ from: '<a', reason: 'known-confusion', change: '<→s' });
    // A capital A read "À": an initial, or the article of an English title; the French preposition stays.
    const titles = await fra.correct(
      page(
        ['fra'],
        [
          word('Constance,'),
          word('À'),
          word('History'),
          word('of'),
          word('Neo-Arianism,'),
          word('À.'),
          word('VON'),
          word('STOCKHAUSEN,'),
          word('À'),
          word('Cambridge,'),
          word('il'),
          word('À'),
          word('peine'),
        ],
      ),
    );
    expect(text(titles).join(' ')).toBe('Constance, A History of Neo-Arianism, A. VON STOCKHAUSEN, À Cambridge, il À peine');
    expect(words(titles)[1].correction).toEqual({ from: 'À', reason: 'grammar', change: 'À→A' });
    // A name in small capitals with letters read small; names that mix cases on purpose stay.
    const names = await fra.correct(page(['fra'], [word('T.'), word('A.'), word('KoPEcEK,'), word('McCOY'), word('Coco'), word('SoS')]));
    expect(text(names).join(' ')).toBe('T. A. KOPECEK, McCOY Coco SoS');
    expect(words(names)[2].correction).toEqual({ from: 'KoPEcEK,', reason: 'known-confusion', change: 'o→O, c→C' });
    // A capital read inside a word in small letters; a name that mixes cases on purpose stays.
    const inside = await fra.correct(page(['fra'], [word('se'), word('disPersèrent.'), word('MacDonald'), word('LaFontaine')]));
    expect(text(inside).join(' ')).toBe('se dispersèrent. MacDonald LaFontaine');
    expect(words(inside)[1].correction).toEqual({ from: 'disPersèrent.', reason: 'known-confusion', change: 'P→p' });
    // A closing bracket glued to a name in capitals with none open is its last I; a bracket that closes one stays.
    const brackets = await fra.correct(
      page(['fra'], [word('M.'), word('SIMONETT],'), word('La'), word('crisi'), word('[ARIUS'), word('VIVIT]'), word('et'), word('[...]')]),
    );
    expect(text(brackets).join(' ')).toBe('M. SIMONETTI, La crisi [ARIUS VIVIT] et [...]');
    expect(words(brackets)[1].correction).toEqual({ from: 'SIMONETT],', reason: 'known-confusion', change: ']→I' });
    // English pages have no such rule.
    const eng = await openCorrector(['eng']);
    expect(text(await eng.correct(page(['eng'], [word('à'), word('été')])))).toEqual(['à', 'été']);
  });

  it('reads the "l." of a citation where the engine saw a digit, and only between a page and a line number', async () => {
    const fra = await openCorrector(['fra']);
    const read = page(
      ['fra'],
      [word('Syn'), word('13,'), word('5,'), word('p.'), word('241,'), word('1,'), word('16.'), word('Syn'), word('12,'), word('4,')],
      [word('p.'), word('240,'), word('1.5;'), word('p.'), word('231,'), word('|.'), word('11-12),'), word('p.'), word('133-135,'), word('I.'), word('9')],
      // Glued by the engine: the line to the page number, the page number to "p."; a Greek iota for the "l".
      [word('p.'), word('241,1.'), word('28.'), word('p.261,'), word('1.12'), word('p.'), word('265,'), word('ἰ.'), word('9),')],
      // Not a citation: a plain list of numbers, a page range without a line, a chapter "1." after a page.
      [word('chapitres'), word('12,'), word('1.'), word('3'), word('et'), word('p.'), word('24,'), word('1.'), word('Il'), word('est')],
    );
    const corrected = await fra.correct(read);
    expect(text(corrected).join(' ')).toBe(
      'Syn 13, 5, p. 241, l. 16. Syn 12, 4, p. 240, l.5; p. 231, l. 11-12), p. 133-135, l. 9 p. 241, l. 28. p.261, l.12 p. 265, l. 9), chapitres 12, 1. 3 et p. 24, 1. Il est',
    );
    expect(words(corrected)[5].correction).toEqual({ from: '1,', reason: 'grammar', change: '1,→l.' });
    expect(text(undoCorrections(corrected))).toEqual(text(read));
  });

  it('leaves quotations and the document’s own names alone', async () => {
    const fra = await openCorrector(['fra']);
    const document = documentWords();
    // "Nikè" printed often and read with confidence: a name of this document, though no dictionary has it.
    const names = page(
      ['fra'],
      [0, 1, 2].map(() => ({ ...word('Nikè'), confidence: 95 })),
    );
    document.add(names);
    const corrected = await fra.correct(page(['fra'], [word('Nikè'), word('the'), word('Constantinian'), word('Ia')]), document);
    // "Nike" is French, "thé" too, but neither is what was printed; "la" was meant here, the capital I misread.
    expect(text(corrected)).toEqual(['Nikè', 'the', 'Constantinian', 'la']);
    // "Myriel" read well once: a misreading of it elsewhere ("Myricl", no dictionary's word) is mended to it; in a
    // document that never printed it, "Myricl" is left as read.
    const once = documentWords();
    once.add(page(['fra'], [{ ...word('Myriel'), confidence: 95 }]));
    expect(text(await fra.correct(page(['fra'], [word('M.'), word('Myricl'), word('était')]), once))).toEqual(['M.', 'Myriel', 'était']);
    expect(text(await fra.correct(page(['fra'], [word('M.'), word('Myricl'), word('était')]), document))).toEqual(['M.', 'Myricl', 'était']);
    // A Latin book's note in French: "la", read confidently, is French; read doubtfully, the engine's j is taken.
    const lat = await openCorrector(['lat']);
    const la = (confidence: number): OcrWord => ({ ...word('la', { 0: ['j'] }), confidence });
    expect(text(await lat.correct(page(['lat'], [word('Garumna:'), la(95), word('Garonne;'), la(60)])))).toEqual(['Garumna:', 'la', 'Garonne;', 'ja']);
  });

  it("leaves the person's own words alone, and mends a misreading to one of them", async () => {
    const fra = await openCorrector(['fra']);
    // "homoousios" and "hypostasis" (in any case) in the person's dictionary, added in proofreading: known, never marked.
    const own = documentWords(['Homoousios', 'hypostasis']);
    const corrected = await fra.correct(page(['fra'], [word('homoousios'), word('et'), word('hypostasis')]), own);
    expect(text(corrected)).toEqual(['homoousios', 'et', 'hypostasis']);
    expect(words(corrected).some((w) => w.unknown)).toBe(false);
    // Without it, both are words to check.
    const plain = await fra.correct(page(['fra'], [word('homoousios'), word('et'), word('hypostasis')]), documentWords());
    expect(
      words(plain)
        .filter((w) => w.unknown)
        .map((w) => w.text),
    ).toEqual(['homoousios', 'hypostasis']);
    // "Myricl" is mended to the person's "Myriel", as to a name the document printed well.
    expect(text(await fra.correct(page(['fra'], [word('M.'), word('Myricl'), word('était')]), documentWords(['Myriel'])))).toEqual(['M.', 'Myriel', 'était']);
  });

  it('corrects a word hyphenated across two lines as one word', async () => {
    const fra = await openCorrector(['fra']);
    const corrected = await fra.correct(page(['fra'], [word('la'), word('dichoto-')], [word('mic'), word('exagérée')]));
    expect(text(corrected)).toEqual(['la', 'dichoto-', 'mie', 'exagérée']);
    expect(words(corrected)[2].correction).toMatchObject({ from: 'mic', change: 'c→e' });
  });

  it('maps Greek look-alike letters inside French back to Latin, and leaves real Greek as it is', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const corrected = await both.correct(
      page(
        ['fra', 'ell'],
        // "A. MARTIN" read with a Greek capital alpha; "ne" with a Greek pi; "Athanase" with a Greek alpha.
        [word('10.'), word('Α.'), word('MARTIN,'), word('Αthanase'), word('πe'), word('décrit'), word('les'), word('débats.'), word('Π'), word('réemploie')],
        // A Greek quotation in the same French text.
        [word('il'), word('cite'), word('«'), word('ὁ'), word('λόγος'), word('σὰρξ'), word('ἐγένετο'), word('»')],
        // "et" read as the Greek article "οἱ", the t's top taken for a breathing.
        [word('nicéen'), word('οἱ'), word('la'), word('minimise')],
      ),
    );
    // "Il" set tight reads as a Greek capital pi.
    expect(text(corrected)).toEqual([
      '10.',
      'A.',
      'MARTIN,',
      'Athanase',
      'ne',
      'décrit',
      'les',
      'débats.',
      'Il',
      'réemploie',
      'il',
      'cite',
      '«',
      'ὁ',
      'λόγος',
      'σὰρξ',
      'ἐγένετο',
      '»',
      'nicéen',
      'et',
      'la',
      'minimise',
    ]);
    expect(words(corrected)[19].correction).toMatchObject({ from: 'οἱ', reason: 'script', change: 'ο→e, ἱ→t', language: 'fra' });
    expect(words(corrected)[1].correction).toMatchObject({ from: 'Α.', reason: 'script', change: 'Α→A' });
    expect(words(corrected)[4].correction).toMatchObject({ from: 'πe', reason: 'script', change: 'π→n', language: 'fra' });
    expect(words(corrected)[8].correction).toMatchObject({ from: 'Π', reason: 'script' });
    // Spellings no Greek word has: a final ζ for ς, δ for θ in "-σθαι", the micro sign for μ; ζ inside a word stays.
    const greek = await both.correct(
      page(['fra', 'ell'], [word('(πατροκτόνουζ)'), word('contre'), word('eux,'), word('μεταβάλλεσδαι,'), word('µεταπείθειν'), word('καὶ'), word('ζῆν')]),
    );
    expect(text(greek)).toEqual(['(πατροκτόνους)', 'contre', 'eux,', 'μεταβάλλεσθαι,', 'μεταπείθειν', 'καὶ', 'ζῆν']);
    expect(words(greek)[0].correction).toEqual({ from: '(πατροκτόνουζ)', reason: 'known-confusion', change: 'ζ→ς' });
  });

  it('marks a Greek word alone in a French line for a look, and not the words of a Greek quotation', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const read = page(
      ['fra', 'ell'],
      // "PG 26" (Patrologia Graeca) read in Greek capitals that spell no Latin word; "l'issue" read as "Ίδους".
      [word('commune'), word('de'), word('MONTFAUCON,'), word('ΡΟ'), word('26,'), word('677')],
      [word('ont'), word('eu'), word('Ίδους'), word('inverse')],
      // A Greek term the Greek dictionary knows, quoted alone: Greek, as read.
      [word('la'), word('πρόφασις'), word('du'), word('traité')],
      [word('il'), word('cite'), word('«'), word('ὁ'), word('λόγος'), word('σὰρξ'), word('ἐγένετο'), word('»')],
    );
    const corrected = await both.correct(read);
    expect(text(corrected)).toEqual(text(read));
    expect(words(corrected).flatMap((w) => (w.doubt ? [`${w.text}: ${w.doubt}`] : []))).toEqual(['ΡΟ: script', 'Ίδους: script']);
    expect(words(undoCorrections(corrected)).some((w) => w.doubt)).toBe(false);
  });

  it('marks a lone letter that no language of the page writes as a word, and not the words, numerals and abbreviations', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const read = page(
      ['fra', 'ell'],
      // The note number "7." read as a Greek capital (the real capture's note 7, at 86), French and Greek one-letter words, a Greek numeral.
      [word('Ἰ.'), word('Μεταβάλλεσθαι,'), word('«'), word('changer'), word('d’avis'), word('»'), word('à'), word('y'), word('ἢ'), word('ὁ'), word('βʹ')],
      // A French abbreviation, Roman numerals, a list item; a stray "q" and a stray "ξ".
      [word('p.'), word('259,'), word('Constance'), word('II'), word('livre'), word('V'), word('(b)'), word('q'), word('ξ')],
    );
    const corrected = await both.correct(read);
    expect(text(corrected)).toEqual(text(read));
    expect(words(corrected).flatMap((w) => (w.doubt ? [`${w.text}: ${w.doubt}`] : []))).toEqual(['Ἰ.: letter', 'q: letter', 'ξ: letter']);
    // A page read in a language whose one-letter words Quire does not list is left alone.
    const other = await both.correct(page(['fra', 'rus'], [word('я'), word('q')]));
    expect(words(other).map((w) => w.doubt)).toEqual([undefined, 'letter']);
  });

  it('maps Latin look-alike letters inside a Greek quotation to Greek, across a line end too, and nothing else', async () => {
    const both = await openCorrector(['fra', 'ell']);
    const read = await both.correct(
      page(
        ['fra', 'ell'],
        // "Τί τοίνυν" with a Latin T and i, the quotation running on to the next line.
        [word('questions'), word('rhétoriques'), word('(Ti')],
        [word('τοίνυν'), word('οὐκ'), word('ἄν...,'), word('kai'), word('δὲ'), word('et'), word('καὶ')],
        // Not beside Greek: left as read; a French word beside Greek ("et") stays French.
        [word('le'), word('symbole'), word('Ti'), word('du'), word('titane')],
      ),
    );
    expect(text(read)).toEqual(['questions', 'rhétoriques', '(Τι', 'τοίνυν', 'οὐκ', 'ἄν...,', 'και', 'δὲ', 'et', 'καὶ', 'le', 'symbole', 'Ti', 'du', 'titane']);
    expect(words(read)[2].correction).toEqual({ from: '(Ti', reason: 'script', change: 'T→Τ, i→ι', language: 'ell' });
    expect(words(read)[12].unknown).toBe(true);
  });

  it('knows the commonest words of an ancient Greek quotation by their modern spelling, and leaves a misread one to check', async () => {
    const both = await openCorrector(['fra', 'ell']);
    // καὶ → και, δὲ → δε, πῶς → πώς, οὐσίας → ουσίας; "ἁμτῶν" is "αὐτῶν" misread: no spelling of it is a word.
    const read = await both.correct(page(['fra', 'ell'], [word('(Τίς'), word('δὲ'), word('καὶ'), word('πῶς'), word('τῆς'), word('οὐσίας'), word('ἁμτῶν,')]));
    expect(words(read).map((w) => w.unknown ?? false)).toEqual([false, false, false, false, false, false, true]);
    expect(text(read)).toEqual(['(Τίς', 'δὲ', 'καὶ', 'πῶς', 'τῆς', 'οὐσίας', 'ἁμτῶν,']);
    expect(both.known('οὐσίας')).toBe('ell');
    expect(both.known('ἁμτῶν')).toBeUndefined();
  });

  it('reads "à" as "a" on a Latin page of an edition that prints no accents, and keeps it where the edition accents its Latin', async () => {
    const lat = await openCorrector(['lat']);
    const caesar =
      'Gallia est omnis divisa in partes tres quarum unam incolunt Belgae aliam Aquitani tertiam qui ipsorum lingua Celtae nostra Galli appellantur Hi omnes lingua institutis legibus inter se differunt Gallos ab Aquitanis Garumna flumen';
    const plain = await lat.correct(
      page(
        ['lat'],
        caesar.split(' ').map((w) => word(w)),
        [word('à'), word('Belgis'), word('(à'), word('cultu')],
      ),
    );
    expect(text(plain).slice(-4)).toEqual(['a', 'Belgis', '(a', 'cultu']);
    expect(words(plain).at(-4)?.correction).toEqual({ from: 'à', reason: 'grammar', change: 'à→a', language: 'lat' });
    const accented = await lat.correct(
      page(
        ['lat'],
        caesar.split(' ').map((w) => word(w)),
        [word('quàm'), word('à'), word('Deo')],
      ),
    );
    expect(text(accented).slice(-3)).toEqual(['quàm', 'à', 'Deo']);
    // No Latin edition prints an acute: a stray mark read as one goes, and the page's "à" then reads "a" too. The é of
    // a French note stays.
    const acutes = await lat.correct(
      page(
        ['lat'],
        caesar.split(' ').map((w) => word(w)),
        [word('dívídit,'), word('à'), word('ánimos')],
      ),
    );
    expect(text(acutes).slice(-3)).toEqual(['dividit,', 'a', 'animos']);
    expect(words(acutes).at(-3)?.correction).toEqual({ from: 'dívídit,', reason: 'known-confusion', change: 'í→i', language: 'lat' });
    const note = await lat.correct(
      page(
        ['lat'],
        caesar.split(' ').map((w) => word(w)),
        [word('ánimos'), word('Genève')],
      ),
    );
    expect(text(note).slice(-2)).toEqual(['animos', 'Genève']);
    // A French page keeps its preposition.
    const french = await (
      await openCorrector(['fra'])
    ).correct(
      page(
        ['fra'],
        caesar.split(' ').map((w) => word(w)),
        [word('à'), word('Genève')],
      ),
    );
    expect(text(french).slice(-2)).toEqual(['à', 'Genève']);
  });

  it('mends a French word whose accent was misread even where the Latin dictionary, which folds accents away, knows its letters', async () => {
    // The Latin dictionary takes "supréme" for "supreme" and "àme" for "ame": on a French page (Latin quoted, or read
    // beside French) they are French words misread, never Latin quotations.
    const fra = await openCorrector(['fra']);
    const read = page(['fra'], [word('le'), word('supréme'), word('bien'), word('de'), word('mon'), word('àme'), word('ou'), word('vidéte')]);
    const corrected = await fra.correct(read);
    expect(text(corrected)).toEqual(['le', 'suprême', 'bien', 'de', 'mon', 'âme', 'ou', 'vidéte']);
    expect(words(corrected)[1].correction).toEqual({ from: 'supréme', reason: 'known-confusion', change: 'é→ê', language: 'fra' });
    expect(words(corrected)[7].unknown).toBe(true);
    // Read with Latin, "supréme" may be French "suprême" or Latin "supreme" with a stray mark (and "àme" "âme" or
    // "ame"): left to check, no longer taken as known.
    const both = await openCorrector(['fra', 'lat']);
    const mixed = await both.correct(page(['fra', 'lat'], [word('supréme'), word('àme'), word('cælum'), word('supreme')]));
    expect(words(mixed).map((w) => [w.text, w.unknown === true])).toEqual([
      ['supréme', true],
      ['àme', true],
      ['cælum', false],
      ['supreme', false],
    ]);
    // A lone letter with an accent French never writes: the one accented form French has of it.
    const lone = await fra.correct(page(['fra'], [word('ó'), word('Dieu,'), word('(á'), word('í')]));
    expect(words(lone).map((w) => [w.text, w.unknown === true])).toEqual([
      ['ô', false],
      ['Dieu,', false],
      ['(à', false],
      ['í', true],
    ]);
    expect(words(lone)[0].correction).toEqual({ from: 'ó', reason: 'known-confusion', change: 'ó→ô', language: 'fra' });
    // A Latin book alone keeps the accents its edition prints.
    const lat = await openCorrector(['lat']);
    expect(text(await lat.correct(page(['lat'], [word('quàm'), word('supreme')])))).toEqual(['quàm', 'supreme']);
  });

  it('says which languages it could not check, and leaves their words as read', async () => {
    const corrector = await openCorrector(['fra', 'tlh']);
    expect(corrector.unchecked).toEqual(['tlh']);
    const corrected = await corrector.correct(page(['fra', 'tlh'], [word('clle')]));
    expect(corrected.correction).toMatchObject({ checked: ['fra'], unchecked: ['tlh'], corrected: 1 });
  });
});
