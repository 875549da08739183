/**
 * Native tesseract's hOCR turned into our `OcrPage`: `ocr_carea` → block, `ocr_par` → paragraph,
 * `ocr_line` (and its kin `ocr_caption`, `ocr_header`, `ocr_textfloat`) → line, `ocrx_word` → word,
 * in the pixel frame of the page we were given (tesseract may have read an upsampled copy).
 * A tag scanner rather than an XML parser: tesseract writes a small, regular subset of XHTML and
 * we need no dependency for it.
 */
import type { OcrFrame } from './tesseract-result.js';
import type { OcrBlock, OcrBox, OcrLine, OcrPage, OcrParagraph, OcrWord } from '../project/index.js';

const LINE_CLASSES = new Set(['ocr_line', 'ocr_caption', 'ocr_header', 'ocr_textfloat']);

/** The few named entities tesseract (and other hOCR writers) use; numeric ones are decoded in general. */
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** A `title` attribute's properties: `bbox 1 2 3 4; x_wconf 96` → `bbox` → `['1','2','3','4']`. */
export function parseTitle(title: string): Map<string, string[]> {
  const properties = new Map<string, string[]>();
  for (const part of title.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) properties.set(name, values);
  }
  return properties;
}

function numbers(values: string[] | undefined, count: number): number[] | undefined {
  if (!values || values.length < count) return undefined;
  const parsed = values.slice(0, count).map(Number);
  return parsed.every(Number.isFinite) ? parsed : undefined;
}

/** A box in tesseract's pixels (`bbox x0 y0 x1 y1`, right and bottom exclusive, as in our model). */
function bboxOf(properties: Map<string, string[]>): OcrBox | undefined {
  const n = numbers(properties.get('bbox'), 4);
  return n ? { x0: n[0], y0: n[1], x1: n[2], y1: n[3] } : undefined;
}

interface WordNode {
  box?: OcrBox;
  confidence: number;
  text: string;
  /** `lstm_choice_mode=2`: one list per character, best first, with the LSTM's score of each. */
  alternatives: Array<Array<{ text: string; score: number }>>;
}
interface LineNode {
  box?: OcrBox;
  /** `baseline slope offset`: y = bottom + offset + slope × (x − left), relative to the line box's bottom-left corner. */
  baseline?: { slope: number; offset: number };
  words: WordNode[];
}
interface ParagraphNode {
  box?: OcrBox;
  lines: LineNode[];
}
interface BlockNode {
  box?: OcrBox;
  paragraphs: ParagraphNode[];
}

type Opened = 'block' | 'paragraph' | 'line' | 'word' | 'choices' | 'choice' | 'other';

interface ScannedPage {
  blocks: BlockNode[];
}

/** The attributes the scan reads; hOCR pages carry tens of thousands of tags, so nothing else is kept. */
interface TagAttributes {
  class: string;
  title: string;
  id: string;
}

const ATTRIBUTE = /([\w:-]+)\s*=\s*(?:'([^']*)'|"([^"]*)")/g;

function attributes(source: string): TagAttributes {
  const result: TagAttributes = { class: '', title: '', id: '' };
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(source); m; m = ATTRIBUTE.exec(source)) {
    const name = m[1].toLowerCase();
    if (name !== 'class' && name !== 'title' && name !== 'id') continue;
    const value = m[2] ?? m[3] ?? '';
    result[name] = value.includes('&') ? unescapeHtml(value) : value;
  }
  return result;
}

/** Walk the tags once, building the tree; elements a writer left out (a line outside any paragraph) are implied. */
function scan(hocr: string): ScannedPage {
  const page: ScannedPage = { blocks: [] };
  let block: BlockNode | undefined;
  let paragraph: ParagraphNode | undefined;
  let line: LineNode | undefined;
  let word: WordNode | undefined;
  /** Inside a word's `ocrx_cinfo` spans: the character's choices, and the text of the choice being read. */
  let choices: Array<{ text: string; score: number }> | undefined;
  let choice: string | undefined;
  let choiceScore = 0;
  const stack: Array<{ tag: string; opened: Opened }> = [];

  const ensureBlock = (): BlockNode => {
    if (!block) page.blocks.push((block = { paragraphs: [] }));
    return block;
  };
  const ensureParagraph = (): ParagraphNode => {
    if (!paragraph) ensureBlock().paragraphs.push((paragraph = { lines: [] }));
    return paragraph;
  };
  const ensureLine = (): LineNode => {
    if (!line) ensureParagraph().lines.push((line = { words: [] }));
    return line;
  };

  const open = (attrs: TagAttributes): Opened => {
    const classes = attrs.class.split(/\s+/);
    // Tesseract 5's LSTM choices (`-c lstm_choice_mode=2`): a span per character holding a span per choice. Most
    // of a page's tags; their title holds only the choice's score.
    if (word && classes.includes('ocrx_cinfo')) {
      if (choices && attrs.id.startsWith('choice_')) {
        choice = '';
        choiceScore = numbers(parseTitle(attrs.title).get('x_confs'), 1)?.[0] ?? 0;
        return 'choice';
      }
      if (attrs.id.startsWith('lstm_choices_')) {
        choices = [];
        word.alternatives.push(choices);
        return 'choices';
      }
      return 'other';
    }
    const title = parseTitle(attrs.title);
    const box = bboxOf(title);
    if (classes.includes('ocr_carea')) {
      block = { box, paragraphs: [] };
      page.blocks.push(block);
      paragraph = line = word = undefined;
      return 'block';
    }
    if (classes.includes('ocr_par')) {
      paragraph = { box, lines: [] };
      ensureBlock().paragraphs.push(paragraph);
      line = word = undefined;
      return 'paragraph';
    }
    if (classes.some((c) => LINE_CLASSES.has(c))) {
      const b = numbers(title.get('baseline'), 2);
      line = { box, baseline: b ? { slope: b[0], offset: b[1] } : undefined, words: [] };
      ensureParagraph().lines.push(line);
      word = undefined;
      return 'line';
    }
    if (classes.includes('ocrx_word')) {
      const confidence = numbers(title.get('x_wconf'), 1)?.[0] ?? 0;
      word = { box, confidence, text: '', alternatives: [] };
      ensureLine().words.push(word);
      return 'word';
    }
    return 'other';
  };

  const close = (opened: Opened): void => {
    if (opened === 'choice') {
      if (choices && choice !== undefined && choice !== '') choices.push({ text: unescapeHtml(choice), score: choiceScore });
      choice = undefined;
    } else if (opened === 'choices') choices = choice = undefined;
    else if (opened === 'word') word = choices = choice = undefined;
    else if (opened === 'line') line = word = undefined;
    else if (opened === 'paragraph') paragraph = line = word = undefined;
    else if (opened === 'block') block = paragraph = line = word = undefined;
  };

  const tags = /<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>|<!--[\s\S]*?-->|<[!?][^>]*>/g;
  let last = 0;
  for (const m of hocr.matchAll(tags)) {
    // Text between tags belongs to the open word only (markup like <strong> inside a word is skipped, its text
    // kept); inside a character's choices it is a choice, not more of the word.
    if (m.index > last) {
      if (choice !== undefined) choice += hocr.slice(last, m.index);
      else if (word && !choices) word.text += hocr.slice(last, m.index);
    }
    last = m.index + m[0].length;
    const tag = m[2]?.toLowerCase();
    if (!tag) continue; // a comment, doctype or XML declaration
    if (m[1] === '/') {
      let at = stack.length - 1;
      while (at >= 0 && stack[at].tag !== tag) at--;
      if (at < 0) continue; // a stray end tag
      for (const entry of stack.splice(at).reverse()) close(entry.opened);
    } else {
      const opened = open(attributes(m[3]));
      if (m[4] === '/') close(opened);
      else stack.push({ tag, opened });
    }
  }
  return page;
}

const round2 = (v: number): number => Math.round(v * 100) / 100;
const clamp = (v: number, max: number): number => Math.min(max, Math.max(0, v));

function scaleBox(b: OcrBox, frame: OcrFrame): OcrBox {
  return {
    x0: round2(clamp(b.x0 * frame.scaleX, frame.width)),
    y0: round2(clamp(b.y0 * frame.scaleY, frame.height)),
    x1: round2(clamp(b.x1 * frame.scaleX, frame.width)),
    y1: round2(clamp(b.y1 * frame.scaleY, frame.height)),
  };
}

/** The smallest box holding all of these: for an element whose writer gave it none. */
function union(boxes: OcrBox[]): OcrBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

/**
 * An alternative counts when the LSTM scored it at least this share of the character it chose: tesseract lists up
 * to half a dozen per character, most scored 0 (shapes it did not weigh at all).
 */
const ALTERNATIVE_SHARE = 0.5;

/**
 * The choices of each character that the engine really weighed, when they spell the word as read (their first
 * entries joined give the text). Tesseract lists a choice for the space some words end with, and may list none for
 * a character it merged: such lists are trimmed or dropped rather than misaligned.
 */
function alternativesOf(groups: Array<Array<{ text: string; score: number }>>, text: string): string[][] | undefined {
  const kept = groups.map((g) => g.filter((c) => c.text.trim() !== '')).filter((g) => g.length > 0);
  if (kept.length === 0 || kept.map((g) => g[0].text).join('') !== text) return undefined;
  return kept.map((g) => [
    ...new Set([
      g[0].text,
      ...g
        .slice(1)
        .filter((c) => c.score > 0 && c.score >= ALTERNATIVE_SHARE * g[0].score)
        .map((c) => c.text),
    ]),
  ]);
}

function toLine(node: LineNode, frame: OcrFrame): OcrLine | undefined {
  const words: OcrWord[] = [];
  for (const w of node.words) {
    const text = unescapeHtml(w.text).trim();
    // Tesseract reports pictures and rules as words of nothing; they carry no text to place.
    if (text === '' || !w.box) continue;
    const word: OcrWord = { text, box: scaleBox(w.box, frame), confidence: round2(clamp(w.confidence, 100)) };
    const alternatives = alternativesOf(w.alternatives, text);
    if (alternatives) word.alternatives = alternatives;
    words.push(word);
  }
  if (words.length === 0) return undefined;
  const box = node.box ? scaleBox(node.box, frame) : union(words.map((w) => w.box));
  const result: OcrLine = { box, words };
  if (node.box && node.baseline) {
    const { x0, x1, y1 } = node.box;
    const { slope, offset } = node.baseline;
    // Not clamped: a baseline is a line, and its ends may lie a little outside the page.
    result.baseline = {
      x0: round2(x0 * frame.scaleX),
      y0: round2((y1 + offset) * frame.scaleY),
      x1: round2(x1 * frame.scaleX),
      y1: round2((y1 + offset + slope * (x1 - x0)) * frame.scaleY),
    };
  }
  return result;
}

/** The pages of an hOCR document that holds several (tesseract reading a list of images), in order. */
export function hocrPages(hocr: string): string[] {
  return hocr.split(/(?=<div class=['"]ocr_page['"])/u).filter((part) => /^<div class=['"]ocr_page['"]/u.test(part));
}

/**
 * Our page model from tesseract's hOCR; empty blocks, paragraphs and lines are dropped. `frame` says how the
 * image tesseract read maps onto the page (page pixel = hOCR pixel × scale).
 */
export function parseHocr(hocr: string, frame: OcrFrame, languages: readonly string[], engine = 'tesseract-cli'): OcrPage {
  const blocks: OcrBlock[] = [];
  for (const block of scan(hocr).blocks) {
    const paragraphs: OcrParagraph[] = [];
    for (const para of block.paragraphs) {
      const lines = para.lines.map((l) => toLine(l, frame)).filter((l): l is OcrLine => l !== undefined);
      if (lines.length > 0) paragraphs.push({ box: para.box ? scaleBox(para.box, frame) : union(lines.map((l) => l.box)), lines });
    }
    if (paragraphs.length > 0) blocks.push({ box: block.box ? scaleBox(block.box, frame) : union(paragraphs.map((p) => p.box)), paragraphs });
  }
  return { width: frame.width, height: frame.height, dpi: frame.dpi, engine, languages: [...languages], blocks };
}
