/**
 * A remote page's text placed on the page. The service gives no word boxes, only typed blocks with their corners,
 * so each text block becomes a block of ours: its text lines share the block's height in equal bands, and each
 * line's words share the line's width in proportion to their letters (a space counting as one). A search hit then
 * lands in the right region of the page, on the right line. Without blocks, the page's Markdown is stacked from the
 * top of the page as a last resort.
 */
import type { OcrInput } from '../types.js';
import type { OcrBlock, OcrBox, OcrLine, OcrPage, OcrWord } from '../../project/index.js';
import type { RemoteBlock, RemotePage } from './protocol.js';

export const REMOTE_ENGINE = 'remoteocr';
/** The service says nothing about confidence; its words are taken as read. */
const CONFIDENCE = 95;
/** Blocks that are pictures carry no text to place. */
const PICTURE_TYPES = new Set(['image', 'picture', 'figure', 'img']);
/** Without blocks, lines are stacked this tall at most, inside this margin. */
const FALLBACK_LINE_FRACTION = 1 / 40;
const FALLBACK_MARGIN = 0.08;

const round2 = (v: number): number => Math.round(v * 100) / 100;

/** Markdown (as the service writes it: headings, emphasis, tables, images, math) reduced to its words, line by line. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .split('\n')
    .filter((line) => !/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line))
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, '')
        .replace(/^\s*>\s?/, '')
        .replace(/^\s*[-*+]\s+/, '')
        // Markers go, escaped characters (`\*`) stay as themselves.
        .replace(/(?<!\\)(\*\*|__|[*`$])/g, '')
        .replace(/(?<!\\)\|/g, ' ')
        .replace(/\\([\\`*_{}[\]()#+\-.!|$])/g, '$1')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .join('\n');
}

function box(x0: number, y0: number, x1: number, y1: number): OcrBox {
  return { x0: round2(x0), y0: round2(y0), x1: round2(x1), y1: round2(y1) };
}

/** Words of one line spread across `b`, each as wide as its share of the letters. */
export function spreadWords(text: string, b: OcrBox): OcrWord[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return [];
  const units = words.reduce((n, w) => n + [...w].length, 0) + (words.length - 1);
  const unit = (b.x1 - b.x0) / units;
  let x = b.x0;
  return words.map((w) => {
    const width = [...w].length * unit;
    const word: OcrWord = { text: w, box: box(x, b.y0, x + width, b.y1), confidence: CONFIDENCE };
    x += width + unit;
    return word;
  });
}

/** The text lines of `text` in equal bands of `b`, top to bottom. */
export function linesInBox(text: string, b: OcrBox): OcrLine[] {
  const rows = text.split('\n').filter((l) => l.trim() !== '');
  const band = (b.y1 - b.y0) / Math.max(1, rows.length);
  return rows.map((row, k) => {
    const lineBox = box(b.x0, b.y0 + k * band, b.x1, b.y0 + (k + 1) * band);
    return { box: lineBox, words: spreadWords(row, lineBox) };
  });
}

function blockOf(lines: OcrLine[], b: OcrBox): OcrBlock {
  return { box: b, paragraphs: [{ box: b, lines }] };
}

function clampBox(b: RemoteBlock['box'], sx: number, sy: number, page: OcrInput): OcrBox {
  const cx = (v: number): number => Math.min(page.width, Math.max(0, v * sx));
  const cy = (v: number): number => Math.min(page.height, Math.max(0, v * sy));
  return box(cx(b.x0), cy(b.y0), cx(b.x1), cy(b.y1));
}

/** Without blocks: the page's lines stacked from the top, inside a margin, each at most a fortieth of the page tall. */
function stackedMarkdown(text: string, page: OcrInput): OcrBlock[] {
  const rows = text.split('\n').filter((l) => l.trim() !== '');
  if (rows.length === 0) return [];
  const x0 = page.width * FALLBACK_MARGIN;
  const x1 = page.width * (1 - FALLBACK_MARGIN);
  const top = page.height * FALLBACK_MARGIN;
  const band = Math.min((page.height * (1 - 2 * FALLBACK_MARGIN)) / rows.length, page.height * FALLBACK_LINE_FRACTION);
  const lines = rows.map((row, k) => {
    const b = box(x0, top + k * band, x1, top + (k + 1) * band);
    return { box: b, words: spreadWords(row, b) };
  });
  return [blockOf(lines, box(x0, top, x1, top + rows.length * band))];
}

/** Our page model from one page of the service's reply, in the pixels of `page` (the project's page image). */
export function pageFromRemote(remote: RemotePage, page: OcrInput, languages: readonly string[]): OcrPage {
  const result: OcrPage = { width: page.width, height: page.height, dpi: page.dpi, engine: REMOTE_ENGINE, languages: [...languages], blocks: [] };
  const dims = remote.dimensions;
  const textBlocks = (remote.blocks ?? []).filter((b) => !PICTURE_TYPES.has(b.type) && plainText(b.text).trim() !== '');
  if (dims && textBlocks.length > 0) {
    const sx = page.width / dims.width;
    const sy = page.height / dims.height;
    for (const b of textBlocks) {
      const area = clampBox(b.box, sx, sy, page);
      if (area.x1 <= area.x0 || area.y1 <= area.y0) continue;
      const lines = linesInBox(plainText(b.text), area);
      if (lines.length > 0) result.blocks.push(blockOf(lines, area));
    }
    return result;
  }
  result.blocks = stackedMarkdown(plainText(remote.markdown), page);
  return result;
}

/** The page's words in reading order. */
export function wordsOf(page: OcrPage): OcrWord[] {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
}
