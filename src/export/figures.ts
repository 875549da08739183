/**
 * Figures: the regions of a page image holding ink the OCR read no text in — a picture, a diagram, the rules of a
 * table, a passage the engine could not read. A reflowing export keeps them as that part of the page image, so
 * nothing on the page is lost. Found at a low resolution (a figure is large), so a page costs a few milliseconds.
 */
import { connectedComponents, decodeGray, dilate, inkMask, paperLevel, readImage, type GrayImage } from '../imaging/index.js';
import type { OcrBox, OcrPage } from '../project/index.js';

/** The resolution figures are looked for at: a figure is an inch or so, a few dozen pixels here. */
const WORK_DPI = 50;
/** A figure is at least this wide and this tall, in inches: smaller ink is a speck, a rule, a drop cap, a lost word. */
const MIN_WIDTH_IN = 0.8;
const MIN_HEIGHT_IN = 0.5;
/** Strokes of one picture closer than this (inches) make one figure. */
const JOIN_IN = 0.12;
/** Ink within this fraction of the page's edges is the edge of the capture (shadow, the next page), not a figure. */
const EDGE = 0.02;
/** Room kept around a figure's ink when it is cut from the page, in inches. */
const PADDING_IN = 0.05;

/**
 * The figures of one page, in its OCR pixels: `image` is its page image (at any resolution; only its proportions
 * must match), `ocr` what the OCR read on it. Ink under (or just around) a word the engine read is text; what is left,
 * joined where strokes lie close, is a figure when it is large enough and does not touch the page's edge.
 */
export function figureRegions(image: GrayImage, ocr: OcrPage): OcrBox[] {
  const { width: w, height: h } = image;
  if (ocr.width <= 0 || ocr.height <= 0 || ocr.dpi <= 0) return [];
  const sx = w / ocr.width;
  const sy = h / ocr.height;
  const dpi = ocr.dpi * sx;
  const { level } = paperLevel(image, Math.max(4, Math.round(dpi)));
  const mask = inkMask(image, level, { fraction: 0.25, minContrast: 40 });
  for (const block of ocr.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        for (const word of line.words) {
          // A word's box may miss its accents, dots and the tips of its strokes by a little.
          const grow = 0.2 * (word.box.y1 - word.box.y0);
          clear(mask.data, w, h, (word.box.x0 - grow) * sx, (word.box.y0 - grow) * sy, (word.box.x1 + grow) * sx, (word.box.y1 + grow) * sy);
        }
      }
    }
  }
  const join = Math.max(1, Math.round(JOIN_IN * dpi));
  const { components } = connectedComponents(dilate(mask, join));
  const edgeX = EDGE * w;
  const edgeY = EDGE * h;
  const pad = PADDING_IN * dpi;
  const found: OcrBox[] = [];
  for (const c of components) {
    // The dilation widened each side by `join`.
    const [x0, y0, x1, y1] = [c.x + join, c.y + join, c.x + c.width - join, c.y + c.height - join];
    if (x1 - x0 < MIN_WIDTH_IN * dpi || y1 - y0 < MIN_HEIGHT_IN * dpi) continue;
    if (x0 < edgeX || y0 < edgeY || x1 > w - edgeX || y1 > h - edgeY) continue;
    found.push({
      x0: Math.max(0, Math.floor((x0 - pad) / sx)),
      y0: Math.max(0, Math.floor((y0 - pad) / sy)),
      x1: Math.min(ocr.width, Math.ceil((x1 + pad) / sx)),
      y1: Math.min(ocr.height, Math.ceil((y1 + pad) / sy)),
    });
  }
  return found.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}

/** Clear the mask inside a box given in mask pixels (clamped). */
function clear(data: Uint8Array, w: number, h: number, x0: number, y0: number, x1: number, y1: number): void {
  const [a, b] = [Math.max(0, Math.floor(x0)), Math.min(w, Math.ceil(x1))];
  const [c, d] = [Math.max(0, Math.floor(y0)), Math.min(h, Math.ceil(y1))];
  for (let y = c; y < d; y++) data.fill(0, y * w + a, y * w + b);
}

/** The figures of a page image file (see {@link figureRegions}), read at a low resolution. */
export async function findFigures(imageFile: string, ocr: OcrPage): Promise<OcrBox[]> {
  const scale = Math.min(1, WORK_DPI / (ocr.dpi > 0 ? ocr.dpi : WORK_DPI));
  const width = Math.max(1, Math.round(ocr.width * scale));
  const height = Math.max(1, Math.round(ocr.height * scale));
  return figureRegions(await decodeGray(readImage(imageFile).resize({ width, height, fit: 'fill', kernel: 'linear' })), ocr);
}
