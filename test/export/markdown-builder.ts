/**
 * A small typesetter for the Markdown tests: lines of words placed like a book page sets them (justified body
 * lines, indents, centred titles, running heads), returned as the `OcrPage` an engine would give for that page.
 * Glyph boxes follow a serif face: capitals, digits and ascenders reach 0.72 em above the baseline, x-height
 * letters 0.5 em, descenders 0.21 em below; a character advances 0.5 em (capitals 0.68 em), a space 0.28 em.
 */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { OcrLine, OcrPage, OcrWord } from '../../src/project/index.js';

export interface Frame {
  dpi: number;
  /** Page size, pixels. */
  width: number;
  height: number;
  /** Text block, pixels. */
  left: number;
  right: number;
  /** Baseline of the first line, pixels. */
  top: number;
  /** Body font size (the em), pixels. */
  size: number;
  /** Baseline to baseline, pixels. */
  pitch: number;
}

/** An A5 page at 300 dpi: 11 pt type on 14 pt leading, 15 mm margins. */
export const A5: Frame = { dpi: 300, width: 1748, height: 2480, left: 177, right: 1571, top: 260, size: 46, pitch: 58 };

const TALL = /[\p{Lu}\p{N}bdfhkltijàâéèêëîïôûùç'"“”‘’!?()[\]/βδζθλξάέήίόύώϊϋΐΰ]/u;
const DESCENDING = /[gjpqy,;()[\]βγζημξρςφχψ]/u;

function charWidth(ch: string, size: number): number {
  if (ch === ' ') return 0.28 * size;
  return (/\p{Lu}/u.test(ch) ? 0.68 : 0.5) * size;
}

export function textWidth(text: string, size: number): number {
  return [...text].reduce((sum, ch) => sum + charWidth(ch, size), 0);
}

/** The words of `text` set from `x` on `baseline`; `spread` extra pixels shared among the spaces (justification). */
export function setWords(text: string, x: number, baseline: number, size: number, spread = 0): OcrWord[] {
  const parts = text.split(' ').filter((w) => w !== '');
  const extra = parts.length > 1 ? spread / (parts.length - 1) : 0;
  const words: OcrWord[] = [];
  let at = x;
  for (const part of parts) {
    const w = textWidth(part, size);
    const top = baseline - (TALL.test(part) ? 0.72 : 0.5) * size;
    const bottom = baseline + (DESCENDING.test(part) ? 0.21 * size : 0);
    words.push({ text: part, box: { x0: Math.round(at), y0: Math.round(top), x1: Math.round(at + w), y1: Math.round(bottom) }, confidence: 95 });
    at += w + charWidth(' ', size) + extra;
  }
  return words;
}

function lineOf(words: OcrWord[]): OcrLine {
  return {
    box: {
      x0: Math.min(...words.map((w) => w.box.x0)),
      y0: Math.min(...words.map((w) => w.box.y0)),
      x1: Math.max(...words.map((w) => w.box.x1)),
      y1: Math.max(...words.map((w) => w.box.y1)),
    },
    words,
  };
}

export interface LineOptions {
  /** First-line indent, in ems. */
  indent?: number;
  /** Last line of a paragraph: not justified. */
  end?: boolean;
  /** Font size, pixels (default: the body size). */
  size?: number;
}

/** A line as set, for drawing the page: its text from `x0` on `baseline`, stretched to `x1` when justified. */
export interface SetLine {
  text: string;
  x0: number;
  x1: number;
  baseline: number;
  size: number;
  justified: boolean;
}

/** Sets one page line by line from the top; each call advances by the pitch (scaled for larger or smaller type). */
export class PageSetter {
  readonly lines: OcrWord[][] = [];
  readonly set: SetLine[] = [];
  private baseline: number;

  constructor(readonly frame: Frame = A5) {
    this.baseline = frame.top;
  }

  /** Leave `lines` blank lines (fractions allowed). */
  skip(lines: number): this {
    this.baseline += lines * this.frame.pitch;
    return this;
  }

  /** A body line: justified to the right edge unless `end`. */
  body(text: string, options: LineOptions = {}): this {
    const { indent = 0, end = false, size = this.frame.size } = options;
    const x = this.frame.left + indent * size;
    const natural = textWidth(text, size);
    const room = this.frame.right - x;
    if (natural > room) throw new Error(`line too long for the page (${Math.round(natural)} > ${Math.round(room)}): ${text}`);
    return this.put(setWords(text, x, this.baseline, size, end ? 0 : room - natural), size, !end);
  }

  /**
   * A whole paragraph, broken into lines greedily and justified except the last. `justifyLast` sets the last line
   * full width too (so only a gap or an indent can tell where the paragraph ends).
   */
  paragraph(text: string, options: { indent?: number; size?: number; justifyLast?: boolean } = {}): this {
    const { indent = 0, size = this.frame.size, justifyLast = false } = options;
    const lines: string[] = [];
    for (const word of text.split(' ')) {
      const room = this.frame.right - this.frame.left - (lines.length <= 1 ? indent * size : 0);
      const last = lines[lines.length - 1];
      if (last !== undefined && textWidth(`${last} ${word}`, size) <= room) lines[lines.length - 1] = `${last} ${word}`;
      else lines.push(word);
    }
    lines.forEach((line, i) => this.body(line, { indent: i === 0 ? indent : 0, size, end: i === lines.length - 1 && !justifyLast }));
    return this;
  }

  /** A line centred in the text block. */
  centred(text: string, size = this.frame.size): this {
    const x = (this.frame.left + this.frame.right - textWidth(text, size)) / 2;
    return this.put(setWords(text, x, this.baseline, size), size);
  }

  /** A row of separate pieces (a running head): `left` at the left edge, `centre` centred, `right` flush right. */
  row(parts: { left?: string; centre?: string; right?: string }, size = this.frame.size): this {
    const words: OcrWord[][] = [];
    if (parts.left) words.push(setWords(parts.left, this.frame.left, this.baseline, size));
    if (parts.centre) words.push(setWords(parts.centre, (this.frame.left + this.frame.right - textWidth(parts.centre, size)) / 2, this.baseline, size));
    if (parts.right) words.push(setWords(parts.right, this.frame.right - textWidth(parts.right, size), this.baseline, size));
    // Engines often return the pieces of a running head as separate lines.
    for (const piece of words) this.record(piece, size, false);
    this.baseline += this.frame.pitch * (size / this.frame.size);
    return this;
  }

  /** A row of pieces at given places, `x` in ems from the text block's left edge (a folio an em or two off its head). */
  pieces(parts: { text: string; x: number }[], size = this.frame.size): this {
    for (const part of parts) this.record(setWords(part.text, this.frame.left + part.x * size, this.baseline, size), size, false);
    this.baseline += this.frame.pitch * (size / this.frame.size);
    return this;
  }

  /** Move to an absolute baseline (the foot of the page). */
  at(baseline: number): this {
    this.baseline = baseline;
    return this;
  }

  private record(words: OcrWord[], size: number, justified: boolean): void {
    this.lines.push(words);
    const text = words.map((w) => w.text).join(' ');
    this.set.push({ text, x0: words[0].box.x0, x1: words[words.length - 1].box.x1, baseline: this.baseline, size, justified: justified && words.length > 1 });
  }

  private put(words: OcrWord[], size: number, justified = false): this {
    this.record(words, size, justified);
    this.baseline += this.frame.pitch * (size / this.frame.size);
    return this;
  }

  /** The page as an engine would report it: all lines in one block and one paragraph (engines group badly). */
  page(): OcrPage {
    const { width, height, dpi } = this.frame;
    const lines = this.lines.map(lineOf);
    const box = { x0: 0, y0: 0, x1: width, y1: height };
    return { width, height, dpi, engine: 'none', languages: ['eng'], blocks: [{ box, paragraphs: [{ box, lines }] }] };
  }
}

/**
 * The page as a PNG: every word drawn in DejaVu Serif at its box, scaled across to the box's width; `extra` draws
 * what no OCR reads (a picture).
 */
export async function drawSetter(setter: PageSetter, extra?: (ctx: SKRSContext2D) => void): Promise<Buffer> {
  const { width, height } = setter.frame;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000';
  setter.lines.forEach((words, i) => {
    const { baseline, size } = setter.set[i];
    ctx.font = `${size}px "DejaVu Serif"`;
    for (const w of words) {
      ctx.save();
      ctx.translate(w.box.x0, baseline);
      ctx.scale((w.box.x1 - w.box.x0) / ctx.measureText(w.text).width, 1);
      ctx.fillText(w.text, 0, 0);
      ctx.restore();
    }
  });
  extra?.(ctx);
  return canvas.encode('png');
}
