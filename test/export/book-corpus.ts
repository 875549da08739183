/**
 * A synthetic book with a known structure, for the document-structure tests and `npm run bench:markdown`: six A5
 * pages of French prose (our own text) set like a scholarly book, with everything that trips Markdown converters up
 * on real captures:
 * - running heads that alternate (verso `142 LES CONFESSIONS`, recto `LIVRE SEPTIÈME, 1 143`) and that the OCR reads
 *   a little differently on each page (`l44 LES CONFESSLONS`), a folio alone at the foot of the chapter's first page;
 * - a side note in the right margin beside a paragraph, and a Latin quotation with line numbers in the left margin;
 * - footnote calls the way OCR reports superscripts (`¹²`, `14` glued to the word, `!#`, a lone `?`, a small raised
 *   token), notes numbered in sequence across pages (one number misread, one read `l6`, one `17,`), a note continued
 *   on the next page, and a critical apparatus at the foot;
 * - words split at line ends and across a page break, compounds split at their own hyphen (`peut-|être`,
 *   `arrière-|plan`, `Jésus-|Christ`), real hyphens inside lines;
 * - headings of three ranks: book titles set large, numbered subheads in centred capitals, lettered subheads.
 *
 * Each page is returned as the `OcrPage` a word-level OCR would give (what the OCR read, at the boxes the ink
 * covers), the ink to draw it (for the tests that OCR it for real), and the truth the benchmark scores against.
 */
import { createCanvas } from '@napi-rs/canvas';
import type { OcrLine, OcrPage, OcrWord } from '../../src/project/index.js';
import { textWidth } from './markdown-builder.js';

/** Page geometry, pixels at 300 dpi: A5 with room for a side-note column on the right and line numbers on the left. */
const PAGE = { dpi: 300, width: 1748, height: 2480, left: 250, right: 1400, size: 44, pitch: 56, head: 190, top: 300 };
const NOTE_SIZE = 34;
const NOTE_PITCH = 44;
const MARGIN_SIZE = 30;
const MARGIN_PITCH = 38;
const TITLE_SIZE = 72;

/** How the OCR reports a superscript call (the benchmark's five ways). */
type CallStyle = 'superscript' | 'digits' | 'marks' | 'question' | 'token';

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** Something drawn on the page: text at a baseline and size (a call is drawn as a real superscript). */
export interface Ink {
  text: string;
  x0: number;
  x1: number;
  baseline: number;
  size: number;
}

export interface CorpusTruth {
  /** Per page: the running head as the OCR reads it (its folio apart), and the printed page number. */
  pages: { head?: string; folio: string }[];
  /** Every footnote: its number, the word its call follows (as it reads in the text), the start of its text. */
  notes: { number: number; after: string; text: string }[];
  /** Every line-end split: the word as the book spells it, where it was split, whether its hyphen is the word's own. */
  splits: { word: string; at: number; compound: boolean }[];
  /** Every compound word of the text (inside lines as well as split). */
  compounds: string[];
  headings: { text: string; rank: number }[];
  lineNumbers: string[];
  sideNotes: string[];
}

export interface CorpusPage {
  ocr: OcrPage;
  ink: Ink[];
}

export interface Corpus {
  pages: CorpusPage[];
  truth: CorpusTruth;
}

/** A paragraph's source: `word{14}` is a call to note 14; `|` forces a line end there (inside a word: a split). */
type Block =
  | { kind: 'title'; text: string }
  | { kind: 'centred'; text: string }
  | { kind: 'subhead'; text: string }
  /**
   * `continued`: the page starts inside it (no indent); `open`: it runs on to the next page (last line full);
   * `brokenWord`: the word it ends with, split across the page break.
   */
  | { kind: 'para'; text: string; continued?: boolean; open?: boolean; brokenWord?: { word: string; at: number }; sideNote?: string }
  | { kind: 'latin'; lines: string[]; firstNumber: number };

interface PageSource {
  /**
   * The running head as OCR reads it: its words and its folio, and the true folio; `crowded`: set at the usual
   * leading above the text, with no space below it.
   */
  head?: { text: string; folioRead: string; folio: string; side: 'verso' | 'recto'; crowded?: boolean };
  /** The folio alone at the foot (a chapter's first page). */
  foot?: string;
  blocks: Block[];
  apparatus?: string[];
  /**
   * Notes: the number as OCR reads it and the true one; a note without them continues the previous page's last
   * note.
   */
  notes: { read?: string; number?: number; text: string }[];
}

const CALL_STYLES: Record<number, CallStyle> = {
  12: 'superscript',
  13: 'digits',
  14: 'marks',
  15: 'token',
  16: 'marks',
  17: 'token',
  18: 'superscript',
  19: 'question',
  20: 'digits',
  21: 'superscript',
};

/** What OCR makes of a superscript number in each style. */
function callReading(n: number, style: CallStyle): string {
  switch (style) {
    case 'superscript':
      return [...String(n)].map((d) => SUPERSCRIPT[Number(d)]).join('');
    case 'digits':
    case 'token':
      return String(n);
    case 'marks':
      return [...String(n)].map((d) => '!#?°'[Number(d) % 4]).join('');
    case 'question':
      return '?';
  }
}

const SOURCE: PageSource[] = [
  {
    foot: '141',
    blocks: [
      { kind: 'title', text: 'LIVRE SEPTIÈME' },
      {
        kind: 'para',
        sideNote: 'Difficultés persistantes sur l’idée de Dieu.',
        text: 'Déjà mon adolescence mauvaise et criminelle était morte, et j’entrais dans la jeunesse ; plus j’avançais en âge, plus la vanité me souillait, car je ne pouvais concevoir d’autre substance que celle que l’on voit d’ordinaire par les yeux{12}. Je ne me représentais pas Dieu sous la forme d’un corps humain : depuis que j’avais commencé d’apprendre quelque chose de la sagesse, j’avais toujours fui cette pensée.',
      },
      {
        kind: 'para',
        text: 'Mais je ne voyais pas encore comment penser autrement ; je m’efforçais de penser le Dieu souverain, unique et véritable, et je croyais de toutes mes forces qu’il était incorruptible, inaltérable et immuable{13}. Je ne savais d’où venait cette certitude, mais je voyais clairement que ce qui peut être corrompu est inférieur à ce qui ne le peut ; c’était peut-|être la seule lumière que j’eusse alors, et je m’y tenais comme',
        open: true,
      },
    ],
    notes: [
      { read: '12', number: 12, text: 'Voir plus haut, III, 7, où la même difficulté est déjà notée.' },
      { read: '13', number: 13, text: 'Trois adjectifs que la tradition reprend à l’envi ; cf. Platon, République, II, 380 d.' },
    ],
  },
  {
    head: { text: 'LES CONFESSIONS', folioRead: '142', folio: '142', side: 'verso' },
    blocks: [
      {
        kind: 'para',
        continued: true,
        text: 'à une planche dans le naufrage. Je me figurais donc quelque chose de corporel, répandu dans l’espace, soit infus dans le monde, soit diffus hors du monde à l’infini ; et c’était là, pour moi, l’arrière-|plan de toute pensée.',
      },
      { kind: 'centred', text: 'I. LA SUBSTANCE' },
      {
        kind: 'para',
        text: 'Car tout ce que je privais de ces espaces me semblait n’être rien, absolument rien, pas même un vide, comme lorsqu’on retire un corps d’un lieu et que le lieu demeure vide de tout corps{14}. Ainsi, l’esprit épaissi, je ne voyais pas clair en moi-même, et je pensais que ce qui ne s’étend pas dans quelque espace n’existe pas du tout{15}.',
      },
      {
        kind: 'para',
        text: 'Comme les formes que parcourent mes yeux, ainsi étaient les images que parcourait mon esprit ; je ne voyais pas que cette attention même, par laquelle je formais ces images, n’était pas de cette sorte. Je ressemblais au voyageur qui, parti de Carthage, croirait toucher au port de Constanti-|',
        open: true,
        brokenWord: { word: 'Constantinople', at: 9 },
      },
    ],
    notes: [
      { read: '4', number: 14, text: 'L’image du lieu vide revient au livre onzième, à propos du temps.' },
      { read: '15', number: 15, text: 'C’est la thèse que les manichéens lui avaient enseignée.' },
    ],
  },
  {
    head: { text: 'LIVRE SEPTIEME, 1', folioRead: '143', folio: '143', side: 'recto', crowded: true },
    blocks: [
      {
        kind: 'para',
        continued: true,
        text: 'nople sans avoir jamais quitté la rade, et qui décrirait des villes qu’il n’a vues qu’en rêve. Tel était l’état de mon esprit au sortir de l’école des rhéteurs.',
      },
      { kind: 'subhead', text: 'a) Concret et universel' },
      {
        kind: 'para',
        text: 'Les livres des platoniciens m’apprirent à chercher la vérité incorporelle ; j’y lus, non en ces termes mais dans ce sens, que le Verbe était au commencement, et c’est-à-|dire bien plus qu’une parole humaine. Mais que le Verbe se soit fait chair, que Jésus-|Christ ait habité parmi nous, je ne l’y lus point{16}.',
      },
      {
        kind: 'para',
        text: 'Je découvris ainsi, au-dessus de mon intelligence changeante, la lumière immuable, qui n’était pas au-dessus de mon esprit comme l’huile est au-dessus de l’eau, ni comme le ciel au-dessus de la terre{17}.',
      },
    ],
    notes: [
      { read: 'l6', number: 16, text: 'Le prologue de l’évangile de Jean, cité librement.' },
      { read: '17,', number: 17, text: 'La comparaison de l’huile et de l’eau, qui revient souvent chez les auteurs de ce temps, se lit encore dans' },
    ],
  },
  {
    head: { text: 'LES CONFESSLONS', folioRead: 'l44', folio: '144', side: 'verso', crowded: true },
    blocks: [
      {
        kind: 'latin',
        firstNumber: 34,
        lines: [
          'Quid ergo amo, cum deum meum amo? Non speciem',
          'corporis nec decus temporis, non candorem lucis',
          'ecce istis amicum oculis, non dulces melodias',
          'cantilenarum omnimodarum, non florum et unguen-',
          'torum et aromatum suavitatem, non manna et mella,',
          'non membra acceptabilia carnalibus amplexibus:',
          'non haec amo, cum amo deum meum.',
        ],
      },
      {
        kind: 'para',
        text: 'Ce que j’aime quand j’aime mon Dieu, ce n’est ni la beauté des corps ni le charme du temps, mais une lumière, une voix, un parfum de l’homme intérieur{18}, là où brille pour mon âme ce que le lieu ne contient pas. Voilà ce que j’aime quand j’aime mon Dieu, et l’on comprend vis-à-vis de quelle tradition ce texte se situe.',
      },
    ],
    apparatus: ['35 candorem] candore B | 37 omnimodarum om. P', '38 mella] mel A ‖ 40 non haec] nec haec B'],
    notes: [
      { text: 'les commentaires les plus anciens du psautier.' },
      { read: '18', number: 18, text: 'L’homme intérieur : formule paulinienne, 2 Co 4, 16.' },
    ],
  },
  {
    head: { text: 'LIVRE SEPTIÈME, 2', folioRead: '145', folio: '145', side: 'recto' },
    blocks: [
      {
        kind: 'para',
        text: 'Et je cherchais d’où vient le mal, et je cherchais mal, et je ne voyais pas le mal dans ma recherche même. Je me demandais si le mal était une substance, et je ne savais pas encore qu’il n’est que la privation du bien ; c’est là toute la vérité{19} que je devais apprendre.',
      },
      { kind: 'subhead', text: 'b) Le temps et l’éternité' },
      {
        kind: 'para',
        text: 'Nul ne peut dire ce qu’est le temps sans se contredire ; je le sais quand personne ne me le demande, et je ne le sais plus quand je veux l’expliquer à qui me le demande. C’est le propos de tout ce traité{20}, et le lecteur voit bien où il mène.',
      },
      { kind: 'centred', text: 'II. LE MAL' },
      {
        kind: 'para',
        text: 'Toutes les choses qui existent sont bonnes, et le mal dont je cherchais l’origine n’est pas une substance ; s’il en était une, il serait un bien. Je vis donc, et cela me devint manifeste, que tu as fait toutes choses bonnes.',
      },
    ],
    notes: [
      { read: '19', number: 19, text: 'Thème central du livre : le mal comme privation, non comme nature.' },
      { read: '20', number: 20, text: 'Le livre onzième reprendra la question pour elle-même.' },
    ],
  },
  {
    head: { text: 'LES C0NFESSIONS', folioRead: '146', folio: '146', side: 'verso' },
    blocks: [
      {
        kind: 'para',
        text: 'Ainsi s’achève le récit des recherches de la jeunesse, que le livre suivant reprend sous une autre lumière. Car ce qui manquait encore n’était pas la connaissance, mais la force de vouloir ce qu’il connaissait.',
      },
      { kind: 'title', text: 'LIVRE HUITIÈME' },
      {
        kind: 'para',
        text: 'Mon Dieu, que je me souvienne, pour te rendre grâces, et que je confesse tes miséricordes sur moi ; que mes os soient pénétrés de ton amour{21}, et qu’ils disent : Seigneur, qui est semblable à toi ?',
      },
    ],
    notes: [{ read: '21', number: 21, text: 'Psaume 34, 10, que le livre cite de mémoire.' }],
  },
];

/** Places in a French word where a typesetter may break it: between two consonants, or before a consonant and a vowel. */
export function breakPoints(word: string): number[] {
  const letters = [...word];
  const vowel = (ch: string | undefined): boolean => ch !== undefined && /[aeiouyàâäéèêëîïôöùûüœæ]/iu.test(ch);
  const letter = (ch: string | undefined): boolean => ch !== undefined && /\p{L}/u.test(ch);
  const clusters = new Set(['ch', 'ph', 'gn', 'qu', 'th', 'bl', 'br', 'cl', 'cr', 'dr', 'fl', 'fr', 'gl', 'gr', 'pl', 'pr', 'tr', 'vr', 'gu']);
  const points: number[] = [];
  for (let i = 2; i <= letters.length - 3; i++) {
    const [a, b, c] = [letters[i - 1], letters[i], letters[i + 1]];
    if (!letter(a) || !letter(b) || !letter(c) || !letters.slice(0, i).some(vowel) || !letters.slice(i).some(vowel)) continue;
    const vcv = vowel(a) && !vowel(b) && vowel(c);
    const vccv = !vowel(a) && !vowel(b) && vowel(c) && vowel(letters[i - 2]) && !clusters.has((a + b).toLowerCase());
    if ((vcv || vccv) && !/['’]/u.test(letters.slice(0, i).join('').slice(-1))) points.push(letters.slice(0, i).join('').length);
  }
  return points;
}

/** One word of the source: its text as printed, the call after it, and a forced line end inside or after it. */
interface SourceWord {
  text: string;
  call?: number;
  /** Index in `text` where a forced line end splits it (text.length: after it). */
  breakAt?: number;
}

function parseWords(text: string): SourceWord[] {
  return text
    .split(' ')
    .filter((w) => w !== '')
    .map((raw) => {
      let word = raw;
      let breakAt: number | undefined;
      const bar = word.indexOf('|');
      if (bar >= 0) {
        breakAt = bar;
        word = word.replace('|', '');
      }
      const call = /\{(\d+)\}/u.exec(word);
      const clean = word.replace(/\{\d+\}/u, '');
      return { text: clean, ...(call ? { call: Number(call[1]) } : {}), ...(breakAt !== undefined ? { breakAt: Math.min(breakAt, clean.length) } : {}) };
    });
}

/** A line as set: pieces of words (a piece may end with a split's hyphen), justified or not. */
interface SetPiece {
  text: string;
  call?: number;
}

class Typesetter {
  readonly words: OcrWord[][] = [];
  readonly ink: Ink[] = [];
  baseline = PAGE.top;
  /** The body lines' baselines and vertical extent, for margin notes. */
  readonly bodyLines: { baseline: number; first: boolean }[] = [];

  constructor(private readonly truth: CorpusTruth) {}

  /** Set `pieces` from `x0` to `x1` (justified) or at their natural width. */
  setLine(pieces: SetPiece[], x0: number, x1: number | null, size: number, pitch: number): void {
    const widths = pieces.map((p) => textWidth(p.text, size) + (p.call ? this.callWidth(p.call, size) : 0));
    const natural = widths.reduce((a, b) => a + b, 0) + (pieces.length - 1) * 0.28 * size;
    const spread = x1 !== null && pieces.length > 1 ? (x1 - x0 - natural) / (pieces.length - 1) : 0;
    let at = x0;
    const line: OcrWord[] = [];
    pieces.forEach((piece) => {
      const w = textWidth(piece.text, size);
      const tall = /[\p{Lu}\p{N}bdfhkltijàâéèêëîïôûùç'’"“”!?()[\]/]/u.test(piece.text);
      const deep = /[gjpqy,;()[\]]/u.test(piece.text);
      // An accent over a capital stands above the capitals (`SEPTIÈME`).
      const accentedCapital = /[ÀÂÉÈÊËÎÏÔÛÙÇ]/u.test(piece.text);
      const top = this.baseline - (accentedCapital ? 0.9 : tall ? 0.72 : 0.5) * size;
      const bottom = this.baseline + (deep ? 0.21 * size : 0);
      this.ink.push({ text: piece.text, x0: at, x1: at + w, baseline: this.baseline, size });
      if (piece.call !== undefined) {
        // The call stands between the word and its punctuation (`yeux¹².`), raised and smaller.
        const style = CALL_STYLES[piece.call] ?? 'superscript';
        const [, core, tail] = /^(.*?)([.,;:»”)]*)$/u.exec(piece.text) as RegExpExecArray;
        const coreEnd = at + textWidth(core, size);
        const callSize = 0.6 * size;
        const cw = this.callWidth(piece.call, size);
        const raised = this.baseline - 0.35 * size;
        const end = at + w + cw;
        if (style === 'token') {
          // Set after the punctuation, a little apart (`tout. ¹⁵`): OCR reads it as a small raised word of its own.
          this.ink.push({ text: String(piece.call), x0: at + w + 4, x1: end + 4, baseline: raised, size: callSize });
          line.push({ text: piece.text, box: box(at, top, at + w, bottom), confidence: 90 });
          line.push({ text: callReading(piece.call, style), box: box(at + w + 4, raised - 0.72 * callSize, end + 4, raised), confidence: 60 });
        } else {
          this.ink.pop();
          this.ink.push({ text: core, x0: at, x1: coreEnd, baseline: this.baseline, size });
          this.ink.push({ text: String(piece.call), x0: coreEnd, x1: coreEnd + cw, baseline: raised, size: callSize });
          if (tail) this.ink.push({ text: tail, x0: coreEnd + cw, x1: coreEnd + cw + textWidth(tail, size), baseline: this.baseline, size });
          // Glued: the call's glyphs join the word, whose box reaches up to the superscript's top.
          line.push({ text: core + callReading(piece.call, style) + tail, box: box(at, Math.min(top, raised - 0.72 * callSize), end, bottom), confidence: 80 });
        }
        at = end + (style === 'token' ? 4 : 0) + 0.28 * size + spread;
        return;
      }
      line.push({ text: piece.text, box: box(at, top, at + w, bottom), confidence: 95 });
      at += w + 0.28 * size + spread;
    });
    this.words.push(line);
    this.baseline += pitch;
  }

  private callWidth(n: number, size: number): number {
    return textWidth(String(n), 0.6 * size);
  }

  /** A paragraph, broken into justified lines; forced breaks and line-end splits recorded in the truth. */
  paragraph(text: string, indent: boolean, lastLineOpen = false): void {
    const words = parseWords(text);
    let line: SetPiece[] = [];
    let first = true;
    const room = (): number => PAGE.right - PAGE.left - (first && indent ? 1.5 * PAGE.size : 0);
    const width = (pieces: SetPiece[]): number =>
      pieces.reduce((sum, p) => sum + textWidth(p.text, PAGE.size) + (p.call ? this.callWidth(p.call, PAGE.size) : 0), 0) +
      (pieces.length - 1) * 0.28 * PAGE.size;
    const flush = (justify: boolean): void => {
      const x0 = PAGE.left + (first && indent ? 1.5 * PAGE.size : 0);
      this.bodyLines.push({ baseline: this.baseline, first });
      this.setLine(line, x0, justify ? PAGE.right : null, PAGE.size, PAGE.pitch);
      line = [];
      first = false;
    };
    for (let k = 0; k < words.length; k++) {
      const word = words[k];
      const piece: SetPiece = { text: word.text, ...(word.call !== undefined ? { call: word.call } : {}) };
      if (word.breakAt !== undefined && word.breakAt < word.text.length) {
        // A forced split inside the word: its own hyphen, or one the typesetter adds.
        const head = word.text.slice(0, word.breakAt);
        const own = head.endsWith('-');
        const split = { text: own ? head : `${head}-` };
        if (width([...line, split]) > room()) flush(true);
        line.push(split);
        flush(true);
        words.splice(k + 1, 0, { text: word.text.slice(word.breakAt), ...(word.call !== undefined ? { call: word.call } : {}) });
        this.truth.splits.push({ word: word.text.replace(/[.,;:»”)]+$/u, ''), at: own ? word.breakAt - 1 : word.breakAt, compound: own });
        continue;
      }
      if (width([...line, piece]) <= room()) {
        line.push(piece);
      } else {
        // Split the word at the last break point that fits, when one does; else start a new line with it.
        const fits = breakPoints(word.text)
          .filter((i) => !/-$/u.test(word.text.slice(0, i)))
          .reverse()
          .find((i) => width([...line, { text: `${word.text.slice(0, i)}-` }]) <= room());
        if (fits !== undefined && !word.text.includes('-') && word.call === undefined) {
          line.push({ text: `${word.text.slice(0, fits)}-` });
          flush(true);
          words.splice(k + 1, 0, { text: word.text.slice(fits) });
          this.truth.splits.push({ word: word.text.replace(/[.,;:»”)]+$/u, ''), at: fits, compound: false });
          continue;
        }
        flush(true);
        line.push(piece);
      }
      if (word.breakAt === word.text.length) flush(true);
    }
    if (line.length) flush(lastLineOpen);
  }
}

function box(x0: number, y0: number, x1: number, y1: number): OcrWord['box'] {
  return { x0: Math.round(x0), y0: Math.round(y0), x1: Math.round(x1), y1: Math.round(y1) };
}

/** Plain words of a string, set at its natural width from `x` (a head, a title, a margin line). */
function setPlain(t: Typesetter, text: string, x: number, size: number, pitch: number): void {
  t.setLine(
    text.split(' ').map((w) => ({ text: w })),
    x,
    null,
    size,
    pitch,
  );
}

/** Lines of `text` no wider than `width` at `size` (greedy). */
function wrap(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1];
    if (last !== undefined && textWidth(`${last} ${word}`, size) <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

function lineOf(words: OcrWord[]): OcrLine {
  return {
    box: box(
      Math.min(...words.map((w) => w.box.x0)),
      Math.min(...words.map((w) => w.box.y0)),
      Math.max(...words.map((w) => w.box.x1)),
      Math.max(...words.map((w) => w.box.y1)),
    ),
    words,
  };
}

/** The corpus: every page set, and the truth about it. Deterministic: the same pages every time. */
export function bookCorpus(): Corpus {
  const truth: CorpusTruth = { pages: [], notes: [], splits: [], compounds: [], headings: [], lineNumbers: [], sideNotes: [] };
  const pages = SOURCE.map((source): CorpusPage => {
    const t = new Typesetter(truth);
    const margin = new Typesetter(truth);
    if (source.head) {
      const { text, folioRead, side } = source.head;
      // The folio at the outer edge of the text block, the title centred; OCR reports them as two lines.
      t.baseline = source.head.crowded ? PAGE.top - PAGE.pitch : PAGE.head;
      setPlain(t, folioRead, side === 'verso' ? PAGE.left : PAGE.right - textWidth(folioRead, PAGE.size), PAGE.size, 0);
      setPlain(t, text, (PAGE.left + PAGE.right - textWidth(text, PAGE.size)) / 2, PAGE.size, 0);
    }
    truth.pages.push({ ...(source.head ? { head: source.head.text } : {}), folio: source.head?.folio ?? source.foot ?? '' });
    t.baseline = PAGE.top;
    for (const block of source.blocks) setBlock(t, margin, block, truth);
    setFoot(t, source, truth);
    if (source.foot) {
      t.baseline = PAGE.height - 150;
      setPlain(t, source.foot, (PAGE.left + PAGE.right - textWidth(source.foot, PAGE.size)) / 2, PAGE.size, 0);
    }
    const lines = [...t.words, ...margin.words].filter((l) => l.length > 0).map(lineOf);
    const whole = box(0, 0, PAGE.width, PAGE.height);
    return {
      ocr: {
        width: PAGE.width,
        height: PAGE.height,
        dpi: PAGE.dpi,
        engine: 'none',
        languages: ['fra', 'lat'],
        blocks: [{ box: whole, paragraphs: [{ box: whole, lines }] }],
      },
      ink: [...t.ink, ...margin.ink],
    };
  });
  // Where each call stands (the word before it, punctuation aside), and the compounds of the text.
  for (const block of SOURCE.flatMap((source) => source.blocks)) {
    if (block.kind !== 'para') continue;
    for (const word of parseWords(block.text)) {
      const bare = word.text.replace(/[.,;:»”)]+$/u, '');
      const note = truth.notes.find((n) => n.number === word.call);
      if (note) note.after = bare;
      if (/\p{L}-\p{L}/u.test(bare)) truth.compounds.push(bare);
    }
  }
  return { pages, truth };
}

function setBlock(t: Typesetter, margin: Typesetter, block: Block, truth: CorpusTruth): void {
  switch (block.kind) {
    case 'title':
      t.baseline += (t.baseline > PAGE.top ? 1.5 : 0.5) * PAGE.pitch;
      setPlain(t, block.text, (PAGE.left + PAGE.right - textWidth(block.text, TITLE_SIZE)) / 2, TITLE_SIZE, 1.6 * PAGE.pitch);
      t.baseline += 0.6 * PAGE.pitch;
      truth.headings.push({ text: block.text, rank: 1 });
      return;
    case 'centred':
    case 'subhead': {
      t.baseline += 0.7 * PAGE.pitch;
      const x = block.kind === 'centred' ? (PAGE.left + PAGE.right - textWidth(block.text, PAGE.size)) / 2 : PAGE.left;
      setPlain(t, block.text, x, PAGE.size, PAGE.pitch);
      t.baseline += 0.4 * PAGE.pitch;
      truth.headings.push({ text: block.text, rank: block.kind === 'centred' ? 2 : 3 });
      return;
    }
    case 'para': {
      const start = t.baseline;
      t.paragraph(block.text, !block.continued, block.open === true);
      if (block.brokenWord) truth.splits.push({ ...block.brokenWord, compound: false });
      if (block.sideNote) {
        // Beside the paragraph's first lines, in the right margin, set small.
        margin.baseline = start;
        for (const line of wrap(block.sideNote, PAGE.width - PAGE.right - 90, MARGIN_SIZE)) setPlain(margin, line, PAGE.right + 45, MARGIN_SIZE, MARGIN_PITCH);
        truth.sideNotes.push(block.sideNote);
      }
      return;
    }
    case 'latin':
      t.baseline += 0.3 * PAGE.pitch;
      block.lines.forEach((line, i) => {
        const number = block.firstNumber + i;
        if (number % 5 === 0) {
          // The line number in the left margin, level with its line.
          margin.baseline = t.baseline;
          setPlain(margin, String(number), PAGE.left - 110, 0.8 * PAGE.size, 0);
          truth.lineNumbers.push(String(number));
        }
        const last = i === block.lines.length - 1;
        t.setLine(
          line.split(' ').map((w) => ({ text: w })),
          PAGE.left + 1.5 * PAGE.size,
          last ? null : PAGE.right - 1.5 * PAGE.size,
          PAGE.size,
          PAGE.pitch,
        );
        const split = /(\p{L}+)-$/u.exec(line);
        if (split && !last)
          truth.splits.push({ word: split[1] + block.lines[i + 1].split(' ')[0].replace(/[.,;:]+$/u, ''), at: split[1].length, compound: false });
      });
      t.baseline += 0.3 * PAGE.pitch;
      return;
  }
}

/** The foot: the apparatus, then a short rule and the notes, set small and ending 200 px above the page's edge. */
function setFoot(t: Typesetter, source: PageSource, truth: CorpusTruth): void {
  const width = PAGE.right - PAGE.left - 40;
  const noteLines = source.notes.map((note) => wrap(note.read ? `${note.read} ${note.text}` : note.text, width, NOTE_SIZE));
  const count = (source.apparatus?.length ?? 0) + noteLines.flat().length;
  t.baseline = PAGE.height - 200 - count * NOTE_PITCH - (source.apparatus ? 0.8 * NOTE_PITCH : 0);
  for (const line of source.apparatus ?? []) setPlain(t, line, PAGE.left, NOTE_SIZE, NOTE_PITCH);
  if (source.apparatus) t.baseline += 0.8 * NOTE_PITCH;
  setPlain(t, '————', PAGE.left, NOTE_SIZE, 0.8 * NOTE_PITCH);
  source.notes.forEach((note, k) => {
    noteLines[k].forEach((line, i) => setPlain(t, line, PAGE.left + (i === 0 && note.read ? 40 : 0), NOTE_SIZE, NOTE_PITCH));
    if (note.number !== undefined) truth.notes.push({ number: note.number, after: '', text: note.text });
    else truth.notes[truth.notes.length - 1].text += ` ${note.text}`;
  });
}

/** The page as a PNG at its resolution: every piece of ink in DejaVu Serif at its place, scaled to its width. */
export async function drawPage(page: CorpusPage): Promise<Buffer> {
  const { width, height } = page.ocr;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000';
  for (const piece of page.ink) {
    ctx.font = `${piece.size}px "DejaVu Serif"`;
    ctx.save();
    ctx.translate(piece.x0, piece.baseline);
    ctx.scale((piece.x1 - piece.x0) / ctx.measureText(piece.text).width, 1);
    ctx.fillText(piece.text, 0, 0);
    ctx.restore();
  }
  return canvas.encode('png');
}
