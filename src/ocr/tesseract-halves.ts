/**
 * A page read as two halves side by side: when it is the last page waiting and a core would otherwise idle (three
 * pages on two cores are two rounds, one core idle in the second), its upper and lower halves, cut across a blank
 * band between text lines, are read by two processes and their words joined in page coordinates. No line is cut, so
 * the words come out as the whole page gives them; what differs is only how tesseract groups the blocks either side
 * of the cut.
 */
import { decodeGray, type GrayImage } from '../imaging/index.js';
import type { OcrBox, OcrPage } from '../project/index.js';
import { inkBands } from './sample-lines.js';
import type { PreparedPage, StoredPage } from './tesseract-page.js';

/** The cut is looked for between these shares of the page's height: each half keeps a fair part of the reading. */
const CUT_FROM = 0.3;
const CUT_TO = 0.7;
/** Lines each half must hold at least: a page of a few lines is read whole (two model loads would cost more). */
const MIN_LINES_EACH = 4;
/** A blank band narrower than this many pixels is not trusted to part two lines (descenders, accents). */
const MIN_GAP = 6;

/** A half of a page: the image tesseract reads (`source.png`, here a PGM), where its top is on the page, and its height. */
export interface PageHalf {
  source: PreparedPage;
  top: number;
  height: number;
}

/**
 * The row to cut the page at: the middle of the tallest blank band between text lines in the middle of the page (a
 * paragraph's or a block's end rather than a line's), the one nearest the middle among equals; undefined when the
 * page has too few lines on either side.
 */
export function cutRow(image: GrayImage): number | undefined {
  const bands = inkBands(image);
  let best: { row: number; gap: number; off: number } | undefined;
  for (let k = MIN_LINES_EACH; k <= bands.length - MIN_LINES_EACH; k++) {
    const top = bands[k - 1].bottom;
    const bottom = bands[k].top;
    const gap = bottom - top;
    const row = Math.round((top + bottom) / 2);
    if (gap < MIN_GAP || row < image.height * CUT_FROM || row > image.height * CUT_TO) continue;
    const off = Math.abs(row - image.height / 2);
    if (!best || gap > best.gap || (gap === best.gap && off < best.off)) best = { row, gap, off };
  }
  return best?.row;
}

/** The page's two halves, cut at `cutRow`, as images for tesseract's stdin; undefined when the page is not worth cutting or cannot be read. */
export async function pageHalves(source: StoredPage): Promise<[PageHalf, PageHalf] | undefined> {
  let image: GrayImage;
  try {
    image = await decodeGray(source.file);
  } catch {
    // Read whole: the reading itself says what is wrong with the file.
    return undefined;
  }
  const row = cutRow(image);
  if (row === undefined) return undefined;
  const half = (top: number, height: number): PageHalf => {
    // A plain PGM: it only crosses a pipe to tesseract, and writing it costs a copy (a PNG's encoding took longer
    // than the time a half saves on a loaded machine).
    const header = Buffer.from(`P5\n${image.width} ${height}\n255\n`, 'latin1');
    const pixels = image.data.subarray(top * image.width, (top + height) * image.width);
    return { source: { png: Buffer.concat([header, pixels]), dpi: source.dpi, scaleX: 1, scaleY: 1, bitonal: source.bitonal }, top, height };
  };
  return [half(0, row), half(row, image.height - row)];
}

/** The two halves' readings as one page `height` tall: the lower half's blocks moved down to where it was cut. */
export function joinHalves(upper: OcrPage, lower: OcrPage, lowerTop: number, height: number): OcrPage {
  const box = (b: OcrBox): OcrBox => ({ x0: b.x0, y0: b.y0 + lowerTop, x1: b.x1, y1: b.y1 + lowerTop });
  const moved = lower.blocks.map((b) => ({
    box: box(b.box),
    paragraphs: b.paragraphs.map((p) => ({
      box: box(p.box),
      lines: p.lines.map((l) => ({
        ...l,
        box: box(l.box),
        ...(l.baseline ? { baseline: { ...l.baseline, y0: l.baseline.y0 + lowerTop, y1: l.baseline.y1 + lowerTop } } : {}),
        words: l.words.map((w) => ({ ...w, box: box(w.box) })),
      })),
    })),
  }));
  return { ...upper, height, blocks: [...upper.blocks, ...moved] };
}
