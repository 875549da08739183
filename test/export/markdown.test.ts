/** One synthetic page layout per Markdown rule, typeset by hand, and the Markdown a reader gets from it. */
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, type MarkdownOptions } from '../../src/export/markdown.js';
import { pageWords, type OcrBox, type OcrPage } from '../../src/project/index.js';
import { A5, PageSetter, setWords } from './markdown-builder.js';

// Each sets as four lines on the page, the last one short.
const LOREM =
  'The rain had not stopped since the morning, and the road along the river was hardly more than a ribbon of mud between the hedges, so that the carts kept to the farmyards and the children stayed at home';
const OTHER =
  'Nobody in the village could remember a spring so wet, and the miller spoke of it every evening to whoever would listen, though most of them had heard him say it many times before and had long stopped answering';

function md(pages: PageSetter[], options?: MarkdownOptions): string {
  return documentToMarkdown(
    pages.map((p) => p.page()),
    options,
  );
}

/** The Markdown blocks of the output, page comments (`<!-- page 2 -->`, `<!-- page 2 (p. 13) -->`) left out. */
function blocks(markdown: string): string[] {
  return markdown
    .trim()
    .split('\n\n')
    .filter((b) => !/^<!-- page \d+( \(p\. \w+\))? -->$/.test(b));
}

describe('pages', () => {
  it('starts each page with an HTML comment carrying its number', () => {
    const one = new PageSetter().paragraph(`${LOREM}.`);
    const two = new PageSetter().paragraph(`${OTHER}.`, { indent: 1.5 });
    expect(md([one, two])).toBe(`<!-- page 1 -->\n\n${LOREM}.\n\n<!-- page 2 -->\n\n${OTHER}.\n`);
    expect(md([one, two], { pageNumbers: [41, 42] })).toBe(`<!-- page 41 -->\n\n${LOREM}.\n\n<!-- page 42 -->\n\n${OTHER}.\n`);
  });

  it('keeps the comment of a page with no text', () => {
    expect(md([new PageSetter().paragraph(`${LOREM}.`), new PageSetter()])).toBe(`<!-- page 1 -->\n\n${LOREM}.\n\n<!-- page 2 -->\n`);
    expect(documentToMarkdown([])).toBe('');
  });

  it('reads a two-column page left column first', () => {
    const left = new PageSetter({ ...A5, right: 840, size: 30, pitch: 38 });
    const right = new PageSetter({ ...A5, left: 908, size: 30, pitch: 38 });
    left.paragraph(`${LOREM}, and the carts had given up trying to use it`);
    right.paragraph(`so the baker walked. ${OTHER}.`, { justifyLast: false });
    const page = left.page();
    page.blocks.push(...right.page().blocks);
    expect(blocks(documentToMarkdown([page]))).toEqual([`${LOREM}, and the carts had given up trying to use it so the baker walked. ${OTHER}.`]);
  });
});

describe('rows on camera pages', () => {
  /** The page with the word boxes of line `index` changed by `change` (what a curved or warped page does to them). */
  const warp = (setter: PageSetter, index: number, change: (box: OcrBox) => OcrBox): OcrPage => {
    const page = setter.page();
    const line = page.blocks[0].paragraphs[0].lines[index];
    for (const word of line.words) word.box = change(word.box);
    return page;
  };

  it('keeps lines apart whose boxes overlap, one above the other', () => {
    const setter = new PageSetter().paragraph(`${LOREM}.`).paragraph(`${OTHER}.`, { indent: 1.5 });
    // The second line's boxes reach well into the third, as on a page curving away from the camera.
    const page = warp(setter, 1, (b) => ({ ...b, y1: b.y1 + (b.y1 - b.y0) }));
    expect(blocks(documentToMarkdown([page]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
  });

  it('keeps warped lines inside paragraphs as text, however tall their boxes', () => {
    const setter = (): PageSetter => new PageSetter().paragraph(`${LOREM}.`).skip(1).paragraph(`${OTHER}.`);
    const taller = (b: OcrBox): OcrBox => ({ ...b, y0: b.y0 - 0.5 * (b.y1 - b.y0) });
    // A paragraph's short last line with boxes half again as tall; the full first line of the next one.
    for (const line of [3, 4]) {
      expect(blocks(documentToMarkdown([warp(setter(), line, taller)]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
    }
  });

  it('measures a tilted line along its baseline, so it is not taken for a larger title', () => {
    const setter = new PageSetter().paragraph(`${LOREM}.`).skip(1).paragraph(`${OTHER}.`, { indent: 1.5 });
    const page = setter.page();
    const line = page.blocks[0].paragraphs[0].lines[4];
    const slope = 0.12;
    const start = line.words[0].box.x0;
    const end = line.words[line.words.length - 1].box.x1;
    for (const word of line.words) {
      word.box = { ...word.box, y0: word.box.y0 + slope * (word.box.x0 - start), y1: word.box.y1 + slope * (word.box.x1 - start) };
    }
    const base = setter.set[4].baseline;
    line.baseline = { x0: start, y0: base, x1: end, y1: base + slope * (end - start) };
    expect(blocks(documentToMarkdown([page]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
  });
});

describe('paragraphs', () => {
  it('starts a new paragraph after a larger gap', () => {
    const spaced = new PageSetter().paragraph(`${LOREM}.`, { justifyLast: true }).skip(0.8).paragraph(`${OTHER}.`);
    expect(blocks(md([spaced]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
    const tight = new PageSetter().paragraph(`${LOREM}.`, { justifyLast: true }).paragraph(`${OTHER}.`);
    expect(blocks(md([tight]))).toEqual([`${LOREM}. ${OTHER}.`]);
  });

  it('starts a new paragraph at a first-line indent', () => {
    const page = new PageSetter().paragraph(`${LOREM}.`, { justifyLast: true }).paragraph(`${OTHER}.`, { indent: 1.5 });
    expect(blocks(md([page]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
  });

  it('starts a new paragraph after a short line that ends a sentence, not after one that does not', () => {
    const ended = new PageSetter().paragraph(`${LOREM}.`).paragraph(`${OTHER}.`);
    expect(blocks(md([ended]))).toEqual([`${LOREM}.`, `${OTHER}.`]);
    const open = new PageSetter().paragraph(`${LOREM},`).paragraph(`${OTHER}.`);
    expect(blocks(md([open]))).toEqual([`${LOREM}, ${OTHER}.`]);
  });
});

describe('hyphenation at line ends', () => {
  const page = (lines: string[]): PageSetter => {
    const s = new PageSetter();
    lines.forEach((line, i) => s.body(line, { end: i === lines.length - 1 }));
    return s;
  };

  it('joins a word split at a line end', () => {
    expect(blocks(md([page(['He waited for the right mo-', 'ment, then spoke.'])]))).toEqual(['He waited for the right moment, then spoke.']);
  });

  it('keeps the hyphen of a compound the document writes with one', () => {
    const kept = page(['It had rained for twenty-four hours, and twenty-', 'four more were to come.']);
    expect(blocks(md([kept]))).toEqual(['It had rained for twenty-four hours, and twenty-four more were to come.']);
    const joined = page(['It had rained for two days, and twenty-', 'four more were to come.']);
    expect(blocks(md([joined]))).toEqual(['It had rained for two days, and twentyfour more were to come.']);
  });

  it('keeps the hyphen before a capital', () => {
    expect(blocks(md([page(['The old charter was written in Anglo-', 'Saxon by a monk.'])]))).toEqual([
      'The old charter was written in Anglo-Saxon by a monk.',
    ]);
  });

  it('asks the lexicon when the document does not say: a compound keeps its hyphen, a split word is joined', () => {
    const lexicon = new Set(['peut-être', 'moment', 'consubstantialité', 'l’arrière-plan']);
    const isWord = (word: string): boolean => lexicon.has(word.toLowerCase());
    const text = (lines: string[]): string[] => blocks(md([page(lines)], { isWord }));
    expect(text(['Il viendra peut-', 'être demain, au bon mo-', 'ment, sur l’arrière-', 'plan du tableau.'])).toEqual([
      'Il viendra peut-être demain, au bon moment, sur l’arrière-plan du tableau.',
    ]);
    // OCR read the start of the second line as a capital: the lexicon knows the word joined.
    expect(text(['Le Fils est de même substance : sa consub-', 'Stantialité est affirmée.'])).toEqual([
      'Le Fils est de même substance : sa consubstantialité est affirmée.',
    ]);
    // Without the lexicon the compound is joined, as any split word.
    expect(blocks(md([page(['Il viendra peut-', 'être demain.'])]))).toEqual(['Il viendra peutêtre demain.']);
  });

  it('keeps a hyphen after a single letter, where no typesetter splits a word', () => {
    expect(blocks(md([page(['Il se tenait vis-à-', 'vis de la porte, c’est-à-', 'dire dehors.'])]))).toEqual([
      'Il se tenait vis-à-vis de la porte, c’est-à-dire dehors.',
    ]);
  });
});

describe('margins', () => {
  const NARROW = { ...A5, left: 300, right: 1400 };

  it('sets a side note apart as a blockquote before the paragraph it stands beside, and drops line numbers', () => {
    const body = new PageSetter(NARROW).paragraph(`${LOREM}.`, { indent: 1.5 }).paragraph(`${OTHER}.`, { indent: 1.5 });
    const page = body.page();
    const lines = page.blocks[0].paragraphs[0].lines;
    const beside = (index: number, texts: string[], x: number, size: number): void => {
      const baseline = body.set[index].baseline;
      texts.forEach((text, k) => {
        const words = setWords(text, x, baseline + k * 1.2 * size, size);
        lines.push({ box: { x0: words[0].box.x0, y0: words[0].box.y0, x1: words[words.length - 1].box.x1, y1: words[0].box.y1 }, words });
      });
    };
    // A note beside the second paragraph's first lines in the right margin; line numbers every few lines on the left.
    beside(
      body.set.findIndex((line) => line.text.startsWith('Nobody')),
      ['The miller’s', 'complaint.'],
      1450,
      30,
    );
    beside(1, ['5'], 200, 36);
    beside(6, ['10'], 190, 36);
    expect(blocks(documentToMarkdown([page]))).toEqual([`${LOREM}.`, '> The miller’s complaint.', `${OTHER}.`]);
  });

  it('takes a number standing past the text block’s edge out of the body line the engine read it with', () => {
    const body = new PageSetter(NARROW).paragraph(`${LOREM}.`, { indent: 1.5 });
    const page = body.page();
    const line = page.blocks[0].paragraphs[0].lines[2];
    // Set one em to the right of the justified line, too close for the engine to see two lines.
    const [number] = setWords('15', line.box.x1 + 46, body.set[2].baseline, 46);
    line.words.push(number);
    line.box = { ...line.box, x1: number.box.x1 };
    expect(blocks(documentToMarkdown([page]))).toEqual([`${LOREM}.`]);
  });
});

describe('headings', () => {
  it('makes a line set larger a heading', () => {
    const page = new PageSetter().skip(2).centred('The Long Rain', 64).skip(1).paragraph(`${LOREM}.`);
    expect(blocks(md([page]))).toEqual(['# The Long Rain', `${LOREM}.`]);
  });

  it('makes a short line in capitals or centred a heading when space sets it apart (capitals ranking above centring), and text otherwise', () => {
    const apart = new PageSetter()
      .paragraph(`${LOREM}.`)
      .skip(1)
      .body('THE MILLER', { end: true })
      .skip(1)
      .paragraph(`${OTHER}.`)
      .skip(1)
      .centred('An Evening by the Fire')
      .skip(1)
      .paragraph(`${LOREM}.`);
    expect(blocks(md([apart]))).toEqual([`${LOREM}.`, '# THE MILLER', `${OTHER}.`, '## An Evening by the Fire', `${LOREM}.`]);
    const inside = new PageSetter().paragraph(`${LOREM}, wrote`).body('THE MILLER', { end: true }).paragraph(`${OTHER}.`, { indent: 1.5 });
    expect(blocks(md([inside]))).toEqual([`${LOREM}, wrote THE MILLER`, `${OTHER}.`]);
  });

  it('makes a short line alone between spaces a heading when it does not end like a sentence', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}.`)
      .skip(1)
      .body('3) Sources and methods', { end: true })
      .skip(0.5)
      .paragraph(`${OTHER}.`, { indent: 1.5 })
      .skip(1)
      .body('It rained all night.', { end: true })
      .skip(1)
      .paragraph(`${LOREM}.`);
    expect(blocks(md([page]))).toEqual([`${LOREM}.`, '# 3) Sources and methods', `${OTHER}.`, 'It rained all night.', `${LOREM}.`]);
  });

  it('makes a numbered subhead on a line of its own between two paragraphs a heading, space or not', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}.`)
      .body('c) Concret et universel', { end: true })
      .paragraph(`${OTHER}, and so on, as in`, { indent: 1.5, justifyLast: true })
      .body('d) the last line of a paragraph', { end: true });
    expect(blocks(md([page]))).toEqual([`${LOREM}.`, '# c) Concret et universel', `${OTHER}, and so on, as in d) the last line of a paragraph`]);
  });

  it('makes a short flush line between a paragraph that ended and one that starts indented a subhead', () => {
    const page = new PageSetter().paragraph(`${LOREM}.`).body('Concret et universel', { end: true }).paragraph(`${OTHER}.`, { indent: 1.5 });
    expect(blocks(md([page]))).toEqual([`${LOREM}.`, '# Concret et universel', `${OTHER}.`]);
  });

  it('gives the same kind of title the same level on every page', () => {
    const one = new PageSetter().centred('CHAPTER I', 64).skip(1).paragraph(`${LOREM}.`).skip(1).centred('The Mill', 54).skip(1).paragraph(`${OTHER}.`);
    const two = new PageSetter().centred('CHAPTER II', 64).skip(1).paragraph(`${LOREM}.`);
    const three = new PageSetter()
      .centred('The Bridge', 54)
      .skip(1)
      .paragraph(`${OTHER}.`)
      .skip(1)
      .centred('Another Chapter', 64)
      .skip(1)
      .paragraph(`${LOREM}.`);
    expect(blocks(md([one, two, three])).filter((b) => b.startsWith('#'))).toEqual([
      '# CHAPTER I',
      '## The Mill',
      '# CHAPTER II',
      '## The Bridge',
      '# Another Chapter',
    ]);
  });
});

describe('running heads, running feet and page numbers', () => {
  const bodyPage = (text: string): PageSetter => new PageSetter().paragraph(text, { indent: 1.5 });

  it('drops text repeated at the top of pages, digits aside', () => {
    const pages = [12, 13, 14].map((n, i) =>
      new PageSetter()
        .row({ centre: `A History of Rome ${n}` })
        .skip(1)
        .paragraph(`${[LOREM, OTHER, LOREM][i]}.`, { indent: 1.5 }),
    );
    expect(blocks(md(pages))).toEqual([`${LOREM}.`, `${OTHER}.`, `${LOREM}.`]);
  });

  it('drops a running head the OCR read a little differently on each page', () => {
    const heads = ['THE LETTERS OF A TRAVELLER', 'THE LETTFRS OF A TRAVELLER', 'THE LETTERS OF A TRAVELIER'];
    const pages = heads.map((head, i) =>
      new PageSetter()
        .centred(head)
        .skip(1)
        .paragraph(`${[LOREM, OTHER, LOREM][i]}.`, { indent: 1.5 }),
    );
    expect(blocks(md(pages))).toEqual([`${LOREM}.`, `${OTHER}.`, `${LOREM}.`]);
  });

  it('drops a running head that the text below crowds, when a nearby page has it too', () => {
    const crowded = new PageSetter().centred('THE TREATISE ON THE SYNODS').paragraph(`${LOREM}.`, { indent: 1.5 });
    const plain = new PageSetter().paragraph(`${OTHER}.`, { indent: 1.5 });
    const numbered = new PageSetter().row({ left: '0IZA 11 :', centre: 'THE TREATISE ON THE SYNODS' }).skip(1).paragraph(`${LOREM}.`, { indent: 1.5 });
    expect(blocks(md([crowded, plain, numbered]))).toEqual([`${LOREM}.`, `${OTHER}.`, `${LOREM}.`]);
  });

  it('drops lone page numbers at the foot, arabic or roman', () => {
    const pages = ['17', '- 18 -', 'xix'].map((n) => bodyPage(`${LOREM}.`).at(2330).centred(n));
    expect(blocks(md(pages))).toEqual([`${LOREM}.`, `${LOREM}.`, `${LOREM}.`]);
  });

  it('drops a top line that repeats the title, and keeps it without the title', () => {
    const page = (): PageSetter => new PageSetter().centred('THE QUIET SEA').skip(1).paragraph(`${OTHER}.`, { indent: 1.5 });
    expect(blocks(md([page()], { title: 'The Quiet Sea' }))).toEqual([`${OTHER}.`]);
    expect(blocks(md([page()]))).toEqual(['# THE QUIET SEA', `${OTHER}.`]);
  });

  it('drops a page number and title set apart at the top', () => {
    const page = new PageSetter().row({ left: '214', centre: 'THE LETTERS OF A TRAVELLER' }).skip(1).paragraph(`${OTHER}.`);
    expect(blocks(md([page]))).toEqual([`${OTHER}.`]);
  });

  it('keeps the chapter title on its first page and drops it where it repeats as a running head', () => {
    const first = new PageSetter().centred('CHAPTER ONE').skip(1).paragraph(`${LOREM}.`, { indent: 1.5 });
    const later = [2, 3].map((n) =>
      new PageSetter()
        .row({ centre: 'CHAPTER ONE', right: String(n) })
        .skip(1)
        .paragraph(`${OTHER}.`, { indent: 1.5 }),
    );
    expect(blocks(md([first, ...later]))).toEqual(['# CHAPTER ONE', `${LOREM}.`, `${OTHER}.`, `${OTHER}.`]);
  });
});

describe('footnotes', () => {
  const NOTE = 36;

  it('makes the smaller block below a gap at the foot notes, one Markdown footnote each, linked to its call', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}¹ and the cart² stood still.`)
      .skip(2)
      .body('1 Near the old ford.', { size: NOTE, indent: 1, end: true })
      .body('2 The miller’s cart, which carried flour to the town every', { size: NOTE, indent: 1 })
      .body('market day.', { size: NOTE, end: true });
    expect(md([page])).toBe(
      `<!-- page 1 -->\n\n${LOREM}[^1] and the cart[^2] stood still.\n\n[^1]: Near the old ford.\n\n[^2]: The miller’s cart, which carried flour to the town every market day.\n`,
    );
  });

  it('keeps the number of notes marked with superscripts or brackets, and names the sign of others', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}.`)
      .skip(2)
      .body('¹ A superscript mark.', { size: NOTE, indent: 1, end: true })
      .body('(2) A number in brackets.', { size: NOTE, indent: 1, end: true })
      .body('* A star for a sign.', { size: NOTE, indent: 1, end: true })
      .body('† A dagger for a sign.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([page])).slice(1)).toEqual([
      '[^1]: A superscript mark.',
      '[^2]: A number in brackets.',
      '[^star]: A star for a sign.',
      '[^dagger]: A dagger for a sign.',
    ]);
  });

  it('recognises notes set at body size by their number when the text refers to it', () => {
    const page = (reference: string): PageSetter =>
      new PageSetter().paragraph(`${LOREM}${reference} and stood still.`).at(1900).body('3 Near the old ford.', { indent: 1, end: true });
    expect(blocks(md([page('³')]))).toEqual([`${LOREM}[^3] and stood still.`, '[^3]: Near the old ford.']);
    expect(blocks(md([page('')]))).toEqual([`${LOREM} and stood still.`, '3 Near the old ford.']);
  });

  it('takes the rows below a short rule in the lower page as notes, the rule dropped', () => {
    const page = (rule: string, ruleWidth?: number): OcrPage => {
      const setter = new PageSetter()
        .paragraph(`${LOREM}.`)
        .paragraph(`${OTHER}.`, { indent: 1.5 })
        .at(1900)
        .body(rule, { end: true })
        .body('1 Near the old ford.', { indent: 1, end: true })
        .body('2 The mill.', { indent: 1, end: true });
      const result = setter.page();
      const ruleBox = result.blocks[0].paragraphs[0].lines[8].words[0].box;
      if (ruleWidth) ruleBox.x1 = ruleBox.x0 + ruleWidth;
      return result;
    };
    // The text has no calls: each note is called at the end of its page's text, so that none is left unlinked.
    const expected = [`${LOREM}.`, `${OTHER}.[^1][^2]`, '[^1]: Near the old ford.', '[^2]: The mill.'];
    expect(blocks(documentToMarkdown([page('———————')]))).toEqual(expected);
    // A long rule the OCR reads as a single dash.
    expect(blocks(documentToMarkdown([page('—', 420)]))).toEqual(expected);
  });

  it('joins a note continued at the foot of the next page to its start', () => {
    const one = new PageSetter().paragraph(`${LOREM}¹.`).skip(2).body('1 This note is long enough to run on to the foot of', { size: NOTE, indent: 1 });
    const two = new PageSetter().paragraph(`${OTHER}.`, { indent: 1.5 }).skip(2).body('the next page.', { size: NOTE, end: true });
    expect(blocks(md([one, two]))).toEqual([`${LOREM}[^1].`, '[^1]: This note is long enough to run on to the foot of the next page.', `${OTHER}.`]);
  });

  it('numbers notes from their sequence, whatever the OCR made of a number or a call', () => {
    // Notes 13 to 15 across two pages; OCR read 14 as `4` and 15 as `l5`, and the calls as `¹³`, `!#` and `15`.
    const one = new PageSetter().paragraph(`${LOREM}¹³.`).skip(2).body('13 The first note.', { size: NOTE, indent: 1, end: true });
    const two = new PageSetter()
      .paragraph(`${OTHER}, the mill!# and the bridge15 stood still.`, { indent: 1.5 })
      .skip(2)
      .body('4 The second note.', { size: NOTE, indent: 1, end: true })
      .body('l5 The third note.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([one, two]))).toEqual([
      `${LOREM}[^13].`,
      '[^13]: The first note.',
      `${OTHER}, the mill[^14] and the bridge[^15] stood still.`,
      '[^14]: The second note.',
      '[^15]: The third note.',
    ]);
  });

  it('links a call whose superscript one was read as `!`, and a numbered note’s call read as an asterisk', () => {
    // Notes 9 and 10; OCR read the calls `¹⁰` as `!0` and `⁹` as `*`.
    const page = new PageSetter()
      .paragraph(`${LOREM}* and the stream, the mill and the bridge of the old town stood still!0.`)
      .skip(2)
      .body('9 The first note.', { size: NOTE, indent: 1, end: true })
      .body('10 The second note.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([page]))).toEqual([
      `${LOREM}[^9] and the stream, the mill and the bridge of the old town stood still[^10].`,
      '[^9]: The first note.',
      '[^10]: The second note.',
    ]);
    // With two notes and the asterisk alone, it could call either: both are called at the paragraph's end instead,
    // and the asterisk, a call's mark, leaves the text.
    const two = new PageSetter()
      .paragraph(`${LOREM} and the stream, the mill and the bridge of the old town stood still*.`)
      .skip(2)
      .body('9 The first note.', { size: NOTE, indent: 1, end: true })
      .body('10 The second note.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([two]))[0]).toBe(`${LOREM} and the stream, the mill and the bridge of the old town stood still.[^9][^10]`);
  });

  it('links notes to the calls the correction step read in the ink where the text shows none or a mark', () => {
    // Notes 7, 8 and 9: the engine read the call 7 as a quote, 8 as a letter (`contradictions.` for `contradiction⁸.`)
    // and dropped 9; the correction step read the raised figures at those words' ends.
    const setter = new PageSetter()
      .paragraph(`${LOREM} and the mill”. And the bridge stood in contradictions. Then the old town slept in its simulation.`)
      .skip(2)
      .body('7. Syn 10, 9, p. 238, l. 14.', { size: NOTE, indent: 1, end: true })
      .body('8. Μεταβάλλεσθαι (31, 2).', { size: NOTE, indent: 1, end: true })
      .body('9. Par exemple : (37, 3).', { size: NOTE, indent: 1, end: true });
    const page = setter.page();
    const raised: Record<string, string> = { 'mill”.': '7', 'contradictions.': '8', 'simulation.': '9' };
    for (const word of pageWords(page)) if (raised[word.text]) word.raised = raised[word.text];
    const [text, ...notes] = blocks(documentToMarkdown([page]));
    expect(text).toBe(`${LOREM} and the mill[^7]. And the bridge stood in contradictions[^8]. Then the old town slept in its simulation[^9].`);
    expect(notes).toEqual(['[^7]: Syn 10, 9, p. 238, l. 14.', '[^8]: Μεταβάλλεσθαι (31, 2).', '[^9]: Par exemple : (37, 3).']);
    // Digits read where no note lacks a call, or that no note bears, change nothing.
    const other = new PageSetter()
      .paragraph(`${LOREM}¹ and the stream, the mill and the bridge of the old town stood still.`)
      .skip(2)
      .body('1 The note.', { size: NOTE, indent: 1, end: true })
      .page();
    for (const word of pageWords(other)) if (word.text === 'still.' || word.text === 'bridge') word.raised = '4';
    expect(blocks(documentToMarkdown([other]))[0]).toBe(`${LOREM}[^1] and the stream, the mill and the bridge of the old town stood still.`);
  });

  it('starts a note at a number glued to its first word with its stop (`6.Syn`)', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}¹ and the stream, the mill and the bridge of the old town stood still².`)
      .skip(2)
      .body('1 Syn 32, 4, p. 260, l. 23.', { size: NOTE, indent: 1, end: true })
      .body('2.Syn 10, 9, p. 238, l. 14.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([page]))).toEqual([
      `${LOREM}[^1] and the stream, the mill and the bridge of the old town stood still[^2].`,
      '[^1]: Syn 32, 4, p. 260, l. 23.',
      '[^2]: Syn 10, 9, p. 238, l. 14.',
    ]);
  });

  it('numbers a note whose number was read as a letter from the notes around it, and links a quote read for a call only where no other note could be meant', () => {
    // Notes 6, 7 and 8: OCR read 7 as a Greek capital iota (`Ἰ.`), the call of 6 is lost, 7's read as a quote.
    const page = new PageSetter()
      .paragraph(`${LOREM} and the stream, the mill”. And the bridge of the old town stood still.`)
      .skip(2)
      .body('6.Syn 10, 9, p. 238, l. 14.', { size: NOTE, indent: 1, end: true })
      .body('Ἰ. Μεταβάλλεσθαι, « changer d’avis » (31, 2).', { size: NOTE, indent: 1, end: true })
      .body('8. Par exemple : (37, 3).', { size: NOTE, indent: 1, end: true });
    const [text, ...notes] = blocks(md([page]));
    expect(notes).toEqual(['[^6]: Syn 10, 9, p. 238, l. 14.', '[^7]: Μεταβάλλεσθαι, « changer d’avis » (31, 2).', '[^8]: Par exemple : (37, 3).']);
    // The quote could call 6 as well as 7 (6 has no call either): linked to neither, all three called at the end,
    // and the quote, a call's mark, dropped.
    expect(text).toBe(`${LOREM} and the stream, the mill. And the bridge of the old town stood still.[^6][^7][^8]`);
  });

  it('calls a note whose call is lost at the end of its page’s last sentence', () => {
    const page = new PageSetter()
      .paragraph(`${LOREM}.`)
      .paragraph('and then it rained again', { indent: 1.5 })
      .skip(2)
      .body('1 A note.', { size: NOTE, indent: 1, end: true });
    expect(blocks(md([page]))).toEqual([`${LOREM}.[^1]`, 'and then it rained again', '[^1]: A note.']);
  });

  it('keeps a note without a number apart when the note before it ended', () => {
    const one = new PageSetter().paragraph(`${LOREM}¹.`).skip(2).body('1 This note ends here.', { size: NOTE, indent: 1, end: true });
    const two = new PageSetter().paragraph(`${OTHER}.`, { indent: 1.5 }).skip(2).body('A note whose number was lost.', { size: NOTE, end: true });
    expect(blocks(md([one, two]))).toEqual([`${LOREM}[^1].`, '[^1]: This note ends here.', `${OTHER}.`, 'A note whose number was lost.']);
  });
});

describe('page breaks', () => {
  it('stitches a paragraph broken across a page break, the page comment after it', () => {
    const one = new PageSetter().paragraph(`${OTHER}, and the rain`, { justifyLast: true });
    const two = new PageSetter().paragraph('fell all night.');
    expect(md([one, two])).toBe(`<!-- page 1 -->\n\n${OTHER}, and the rain fell all night.\n\n<!-- page 2 -->\n`);
  });

  it('joins a word hyphenated across the page break', () => {
    const one = new PageSetter().body('He waited for the right mo-');
    const two = new PageSetter().body('ment, then spoke.', { end: true });
    expect(md([one, two])).toBe('<!-- page 1 -->\n\nHe waited for the right moment, then spoke.\n\n<!-- page 2 -->\n');
  });

  it('does not stitch when the page ends a sentence and the next starts indented', () => {
    const one = new PageSetter().paragraph(`${OTHER}.`, { justifyLast: true });
    const two = new PageSetter().paragraph(`${LOREM}.`, { indent: 1.5 });
    expect(md([one, two])).toBe(`<!-- page 1 -->\n\n${OTHER}.\n\n<!-- page 2 -->\n\n${LOREM}.\n`);
  });

  it('puts a page’s notes after the paragraph it continues onto the next page, and the next page’s comment after them', () => {
    const one = new PageSetter()
      .paragraph(`${OTHER}¹ and the rain`, { justifyLast: true })
      .skip(2)
      .body('1 Every evening.', { size: 36, indent: 1, end: true });
    const two = new PageSetter().paragraph('fell all night.').paragraph(`${LOREM}.`, { indent: 1.5 });
    expect(md([one, two])).toBe(`<!-- page 1 -->\n\n${OTHER}[^1] and the rain fell all night.\n\n[^1]: Every evening.\n\n<!-- page 2 -->\n\n${LOREM}.\n`);
  });
});

describe('escaping', () => {
  it('escapes what would start Markdown syntax at a line start or inline, and keeps Unicode as it is', () => {
    const s = new PageSetter().paragraph(`${LOREM}.`);
    for (const text of [
      '# not a heading.',
      '- not a list item.',
      '12. not a numbered item.',
      '> not a quote.',
      'a *starred* word and a_snake.',
      'Ἀθανάσιος, œuvre, Πατέρες.',
    ]) {
      s.body(text, { indent: 1.5, end: true });
    }
    expect(blocks(md([s]))).toEqual([
      `${LOREM}.`,
      '\\# not a heading.',
      '\\- not a list item.',
      '12\\. not a numbered item.',
      '\\> not a quote.',
      'a \\*starred\\* word and a\\_snake.',
      'Ἀθανάσιος, œuvre, Πατέρες.',
    ]);
  });
});
