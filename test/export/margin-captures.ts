/**
 * A page of a Latin critical text with line numbers in its outer margin, set close to the text as such editions set
 * them, and read by the OCR as a camera capture reads them: one clean, one as letters (`jd` for 10), two glued to the
 * hyphen of the line's last word (`phan-%`, `cor-?$`). For the margin tests and `npm run bench:markdown`. The text is
 * Augustine's (Confessions VII, 1), in the public domain.
 */
import type { OcrPage } from '../../src/project/index.js';
import { A5, PageSetter, setWords } from './markdown-builder.js';

const LINES = [
  'Iam mortua erat adulescentia mea mala et nefanda, et',
  'ibam in iuventutem, quanto aetate maior, tanto vani-',
  'tate turpior, qui cogitare aliquid substantiae nisi',
  'tale non poteram, quale per hos oculos videri solet.',
  'Non te cogitabam, deus, in figura corporis humani;',
  'ex quo audire aliquid coepi de sapientia, semper hoc',
  'fugi et gaudebam me hoc reperisse in fide spiritalis',
  'matris nostrae, catholicae tuae. Sed quid te aliud',
  'cogitarem non occurrebat. Et conabar cogitare te',
  'homo, et talis homo, summum et solum et verum deum,',
  'et te incorruptibilem et inviolabilem et incommu-',
  'tabilem totis medullis credebam, quia nesciens unde',
  'et quomodo, plane tamen videbam et certus eram id',
  'quod corrumpi potest deterius esse quam id quod',
  'non potest. Clamabat violenter cor meum adversus',
  'omnia phantasmata mea, et hoc uno ictu conabar',
  'abigere circumvolantem turbam immunditiae ab acie',
  'mentis meae, et vix dimota in ictu oculi ecce con-',
  'globata rursus aderat et irruebat in aspectum meum',
  'et obnubilabat eum, ut quamvis non forma humani cor-',
  'poris, corporeum tamen aliquid cogitare cogerer.',
];

/** The paragraph as the book prints it, line-end hyphens joined. */
export const MARGIN_TEXT = LINES.join(' ').replace(/- /gu, '');

/** How the OCR read the number beside lines 5, 10, 15, 20: a word of its own, or glued to the line's last word. */
const READINGS: Record<number, { text: string; glued: boolean }> = {
  5: { text: '5', glued: false },
  10: { text: 'jd', glued: false },
  15: { text: '15', glued: false },
  20: { text: '?$', glued: true },
};

/** The numbers set small, this far (in body ems) right of the text block. */
const NUMBER_GAP = 0.6;
const NUMBER_SIZE = 34;

/**
 * What the Markdown of the two pages gets right: line numbers out of the words (each reading of one absent, the
 * hyphenated word it was glued to whole) and the side note apart (a blockquote, the paragraph without its words).
 */
export function scoreMargins(lineNumbered: string, sideNoted: string): { numbersOut: [number, number]; sideNoteApart: [number, number] } {
  const words = lineNumbered.replace(/<!--.*?-->/gu, ' ').split(/\s+/u);
  const numbersOut = Object.entries(READINGS).filter(([, r]) => !words.some((w) => w === r.text || (r.glued && w.endsWith(r.text)))).length;
  const blocks = sideNoted.trim().split('\n\n');
  const apart = blocks.includes(`> ${SIDE_NOTE}`) && blocks.includes(SIDE_NOTE_TEXT) ? 1 : 0;
  return { numbersOut: [numbersOut, Object.keys(READINGS).length], sideNoteApart: [apart, 1] };
}

/**
 * The same text on a verso: the line numbers in the left margin, set small half an em from the text, one read as
 * letters (`jd` for 10).
 */
export function leftMarginPage(): OcrPage {
  const setter = new PageSetter({ ...A5, left: 320 });
  LINES.forEach((line, i) => setter.body(line, { end: i === LINES.length - 1 }));
  const page = setter.page();
  const { left, size } = setter.frame;
  page.blocks[0].paragraphs[0].lines.forEach((line, i) => {
    const reading = READINGS[i + 1];
    if (!reading) return;
    const text = reading.glued ? String(i + 1) : reading.text;
    const x1 = left - NUMBER_GAP * size;
    const x0 = x1 - 0.5 * NUMBER_SIZE * text.length;
    const first = line.words[0];
    line.words.unshift({
      text,
      box: { x0: Math.round(x0), y0: Math.round(first.box.y1 - 0.72 * NUMBER_SIZE), x1: Math.round(x1), y1: first.box.y1 },
      confidence: 60,
    });
    line.box = { ...line.box, x0: Math.round(x0) };
  });
  return page;
}

export function marginPage(): OcrPage {
  const setter = new PageSetter();
  LINES.forEach((line, i) => setter.body(line, { end: i === LINES.length - 1 }));
  const page = setter.page();
  const { right, size } = setter.frame;
  page.blocks[0].paragraphs[0].lines.forEach((line, i) => {
    const reading = READINGS[i + 1];
    if (!reading) return;
    const last = line.words[line.words.length - 1];
    const x0 = right + NUMBER_GAP * size;
    const x1 = x0 + 0.5 * NUMBER_SIZE * Math.max(1, String(i + 1).length);
    if (reading.glued) {
      last.text += reading.text;
      last.box = { ...last.box, x1: Math.round(x1) };
    } else {
      const y1 = last.box.y1 - (/[,;]$/u.test(last.text) || /[gjpqy]/u.test(last.text) ? Math.round(0.21 * size) : 0);
      line.words.push({ text: reading.text, box: { x0: Math.round(x0), y0: Math.round(y1 - 0.72 * NUMBER_SIZE), x1: Math.round(x1), y1 }, confidence: 60 });
    }
    line.box = { ...line.box, x1: Math.round(x1) };
  });
  return page;
}

/** The side note, as the book prints it beside the first lines of the chapter. */
export const SIDE_NOTE = 'Difficultés persistantes sur l’idée de Dieu.';
/** The chapter's first paragraph. */
export const SIDE_NOTE_TEXT =
  'Déjà mon adolescence mauvaise et criminelle était morte, et j’entrais dans la jeunesse ; plus j’avançais en âge, plus la vanité me souillait, car je ne pouvais concevoir d’autre substance que celle que l’on voit d’ordinaire par les yeux. Je ne me représentais pas Dieu sous la forme d’un corps humain.';

/**
 * A chapter's first page with a side note set small beside its first lines, in the left margin, close to the text
 * (under an em): the engine reads each of its lines with the body line level with it, as one line.
 */
export function sideNotePage(): OcrPage {
  const frame = { ...A5, left: 480 };
  const setter = new PageSetter(frame).paragraph(SIDE_NOTE_TEXT, { indent: 1.5 });
  const page = setter.page();
  const noteSize = 36;
  const noteLines = ['Difficultés persistantes', 'sur l’idée de', 'Dieu.'];
  page.blocks[0].paragraphs[0].lines.slice(0, noteLines.length).forEach((line, i) => {
    const baseline = setter.set[i].baseline;
    const words = setWords(noteLines[i], 60, baseline, noteSize);
    // Set flush right, 0.8 em of the body short of the text block.
    const shift = frame.left - 0.8 * frame.size - words[words.length - 1].box.x1;
    for (const w of words) w.box = { ...w.box, x0: Math.round(w.box.x0 + shift), x1: Math.round(w.box.x1 + shift) };
    line.words.unshift(...words);
    line.box = { ...line.box, x0: words[0].box.x0 };
  });
  return page;
}

/** A critical text's apparatus as the OCR read it: `]` kept on the first line, read `)` on the others. */
export const APPARATUS = ['5 quale] quales CM quare P 7 aliquid om. B', '12 certus) certum CM 15 eram) erat P', '18 corporum) corporis CMP 19 tamen om. C'];
/** The footnote below the rule. */
export const APPARATUS_NOTE = '1. Voir plus haut, livre III, 7, où la même difficulté est déjà notée.';

/**
 * A page of a critical text: its Latin, then the apparatus set small between the text and the notes, a short rule
 * and one footnote.
 */
export function apparatusPage(): OcrPage {
  const setter = new PageSetter();
  LINES.slice(0, 12).forEach((line, i) => setter.body(i === 11 ? 'tabilem totis medullis credebam.' : line, { end: i === 11 }));
  setter.skip(1.5);
  for (const line of APPARATUS) setter.body(line, { size: 34, end: true });
  setter.skip(0.5).body('————', { size: 34, end: true });
  setter.body(APPARATUS_NOTE, { size: 34, end: true });
  return setter.page();
}

/** The Latin of the apparatus page, as the book prints it. */
export const APPARATUS_TEXT = `${LINES.slice(0, 11).join(' ')} tabilem totis medullis credebam.`.replace(/- /gu, '');

/** The apparatus lines of the apparatus page's Markdown found inside its fenced block, one to a line. */
export function scoreApparatus(markdown: string): [number, number] {
  const fenced = /<!-- apparatus -->\n([\s\S]*?)\n<!-- \/apparatus -->/u.exec(markdown)?.[1] ?? '';
  const lines = fenced.split('\\\n');
  return [APPARATUS.filter((line) => lines.includes(line)).length, APPARATUS.length];
}

/** Reference numbers (the columns of another edition) printed in the left margin beside these lines. */
const REFERENCES: Record<number, string> = { 1: '124', 12: '125', 16: '126' };
/** The reference numbers stand this far (in body ems) left of the text block. */
const REFERENCE_GAP = 1.5;

/**
 * The critical text with reference numbers in its left margin, 1.5 em off the text: read as lines of their own
 * (`apart`), or with the body line beside them (`with-line`). The number beside line 12 stands where a word
 * hyphenated across lines 11 and 12 goes on (`incommu-`/`tabilem`). With `lineNumbers`, line numbers beside lines
 * 5, 10, 15, 20, set the same way, instead.
 */
export function referencePage(read: 'apart' | 'with-line', lineNumbers = false): OcrPage {
  const setter = new PageSetter({ ...A5, left: 320 });
  LINES.forEach((line, i) => setter.body(line, { end: i === LINES.length - 1 }));
  const page = setter.page();
  const { left, size } = setter.frame;
  const lines = page.blocks[0].paragraphs[0].lines;
  lines.forEach((line, i) => {
    const text = lineNumbers ? ((i + 1) % 5 === 0 ? String(i + 1) : undefined) : REFERENCES[i + 1];
    if (text === undefined) return;
    const x1 = left - REFERENCE_GAP * size;
    const [word] = setWords(text, 0, setter.set[i].baseline, NUMBER_SIZE);
    const placed = { ...word, box: { ...word.box, x0: Math.round(x1 - (word.box.x1 - word.box.x0)), x1: Math.round(x1) } };
    if (read === 'with-line') {
      line.words.unshift(placed);
      line.box = { ...line.box, x0: placed.box.x0 };
    } else {
      page.blocks.push({ box: placed.box, paragraphs: [{ box: placed.box, lines: [{ box: placed.box, words: [placed] }] }] });
    }
  });
  return page;
}

/**
 * The reference page's Markdown as it must read: each number a `<!-- ref N -->` marker where its line starts (after
 * the word a hyphen carries onto the line), the one beside the paragraph's first line a block before it.
 */
export const REFERENCE_BLOCKS: string[] = (() => {
  let text = '';
  LINES.forEach((line, i) => {
    const ref = REFERENCES[i + 1];
    const words = line.split(' ');
    const marker = ref !== undefined ? `<!-- ref ${ref} -->` : '';
    if (text.endsWith('-')) text = `${text.slice(0, -1)}${words.shift()}`;
    text = [text, marker, ...words].filter((part) => part !== '').join(' ');
  });
  const first = `<!-- ref ${REFERENCES[1]} --> `;
  return [first.trim(), text.slice(first.length)];
})();

/**
 * The reference page's Markdown scored: each number's marker where its line starts (the first one a block before the
 * paragraph), and the text whole once the markers are left out (no word lost, no number left in it).
 */
export function scoreReferences(markdown: string): [number, number] {
  const text = markdown.replace(/<!-- page [^>]*-->\n\n/gu, '').trim();
  const places = [`<!-- ref 124 -->\n\nIam mortua`, 'incommutabilem <!-- ref 125 --> totis', 'adversus <!-- ref 126 --> omnia'];
  const whole = text.replace(/<!-- ref \d+ -->(\n\n| )?/gu, '') === MARGIN_TEXT ? 1 : 0;
  return [places.filter((p) => text.includes(p)).length + whole, places.length + 1];
}
