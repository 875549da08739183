import {
  type Box,
  cropPadded,
  deconvolve,
  edgeBlur,
  enlargeBicubic,
  type GrayImage,
  type InkComponent,
  inkComponents,
  padRight,
  sharpFromGray,
  unionBox,
  unsharpMask,
} from '../imaging/index.js';
import type { SharpenDecision } from '../project/index.js';

/** Width of the unsharp mask, in source pixels: the blur of a soft capture (lens, demosaicing, JPEG). */
export const SHARPEN_SIGMA_PX = 1.1;
/** Edge blur (see `edgeBlur`) of a crisp capture, left as it is, and of a soft one, given the full amount. */
const CRISP_EDGE_PX = 0.8;
const SOFT_EDGE_PX = 1;
/** Full unsharp-mask amount for a soft capture; more amplifies the sensor noise and breaks thin strokes. */
const MAX_SHARPEN = 1.5;
/**
 * A blurred capture (out of focus, shaken: edge blur from 1.5 px) is sharpened harder, up to this amount at an edge
 * blur of 2 px and beyond: there the strokes are so spread that noise matters less than contrast. Measured on the
 * quality benchmark's strong blur (edge blur 1.9 px): word recall of the page OCR reads 0.12 with the soft capture's
 * mask, 0.24 with the mask as wide as the blur, 0.39 with it this strong too (6 measured no better). From 1.6 px the
 * capture is deconvolved instead (`DECONVOLVE_FROM_EDGE_PX`), which reads better still.
 */
const BLURRED_EDGE_PX = 1.5;
const BLURRED_FULL_EDGE_PX = 2;
const MAX_BLURRED_SHARPEN = 4.5;
/**
 * From this edge blur on, the capture is deconvolved rather than unsharp-masked: Richardson–Lucy for a Gaussian
 * `DECONVOLVE_WIDTH` times as wide as the mask would be, `DECONVOLVE_ROUNDS` rounds. Measured on `npm run
 * bench:quality` (x-height 10), word recall after correction with the mask → deconvolved: edge blur 1.6 px 0.940 →
 * 0.938 (no gain: the mask is kept below), 1.67 px 0.787 → 0.904, 1.9 px 0.506 → 0.613. Widths 1.0–1.35 and 30–80
 * rounds measured: 1.2 and 50 best on both blurred rows. It costs about 2.3 s per megapixel of capture, paid only by
 * blurred pages.
 */
const DECONVOLVE_FROM_EDGE_PX = 1.6;
const DECONVOLVE_WIDTH = 1.2;
const DECONVOLVE_ROUNDS = 50;
/** What central differences read on a perfect step (see `edgeBlur`): the blur itself adds to it in quadrature. */
const STEP_EDGE_PX = 0.8;

/**
 * How much to sharpen a page before enlarging it, from how soft its edges are: nothing for a crisp capture,
 * rising to `MAX_SHARPEN` for a soft one, and on to `MAX_BLURRED_SHARPEN` for a blurred one. Enlarging a soft
 * capture spreads its blur over 2–3 pixels at 300 dpi, where thin strokes and the dots of i come out pale and stems
 * fat: the threshold then closes the eye of e and joins li into h. A crisp capture (in-camera sharpening) gains
 * nothing from more and its hairlines start to break.
 */
export function sharpenAmount(edgeBlurPx: number | null): number {
  if (edgeBlurPx === null) return 0;
  const soft = Math.min(1, Math.max(0, (edgeBlurPx - CRISP_EDGE_PX) / (SOFT_EDGE_PX - CRISP_EDGE_PX)));
  const blurred = Math.min(1, Math.max(0, (edgeBlurPx - BLURRED_EDGE_PX) / (BLURRED_FULL_EDGE_PX - BLURRED_EDGE_PX)));
  return MAX_SHARPEN * soft + (MAX_BLURRED_SHARPEN - MAX_SHARPEN) * blurred;
}

/** The width of the unsharp mask: the blur the edges show (less the step's own width), never below `SHARPEN_SIGMA_PX`. */
export function sharpenSigma(edgeBlurPx: number | null): number {
  if (edgeBlurPx === null) return SHARPEN_SIGMA_PX;
  return Math.max(SHARPEN_SIGMA_PX, Math.sqrt(Math.max(0, edgeBlurPx * edgeBlurPx - STEP_EDGE_PX * STEP_EDGE_PX)));
}

/** A capture's blur, enlarged to the page's resolution, from which its grey page is read smaller (page pixels). */
const READ_SMALLER_FROM_PX = 3;
/** The blur the page is read at then, in the pixels OCR reads… */
const READING_BLUR_PX = 1.8;
/** …but never below this share of its resolution (x-heights of about 9 px; measured as far as that, blurred pages still gained). */
const MIN_READING_SCALE = 0.45;

/**
 * The share of its resolution a camera page's grey image is best read at by OCR, or undefined for the page's own.
 * Enlarging a capture enlarges its blur too; tesseract reads a page whose edges are smeared over 3 px or more better
 * at a lower resolution (measured on `npm run bench:quality`: x-height 8 px, word recall 0.950 → 0.964; strong blur
 * 0.40 → 0.51). Sharper pages are left alone: read smaller, a real capture's layout came out different (a paragraph
 * out of order, a block taken for a picture), for no gain.
 */
export function readingScale(edgeBlurPx: number | null | undefined, scale: number | undefined): number | undefined {
  if (edgeBlurPx === null || edgeBlurPx === undefined || scale === undefined) return undefined;
  const blur = edgeBlurPx * scale;
  if (!(blur >= READ_SMALLER_FROM_PX)) return undefined;
  return Math.round(Math.max(MIN_READING_SCALE, READING_BLUR_PX / blur) * 100) / 100;
}

/**
 * True when a camera page was out of focus (or shaken): its edges spread over `BLURRED_EDGE_PX` capture pixels or
 * more, and over `READ_SMALLER_FROM_PX` once enlarged to the page's resolution (a capture with large type, taken from
 * close, reads well despite a few pixels of blur). On `npm run bench:quality` every in-focus capture measured 1.17–1.31
 * px and every blurred one 1.57–1.97 px; their body text is read with a word recall of 0.99–1.00 against 0.66–0.98.
 * The user is told, to take such pages again.
 */
export function outOfFocus(sharpen: { edgeBlurPx: number | null } | undefined, scale: number | undefined): boolean {
  const edge = sharpen?.edgeBlurPx;
  if (edge === null || edge === undefined || scale === undefined) return false;
  return edge >= BLURRED_EDGE_PX && edge * scale >= READ_SMALLER_FROM_PX;
}

export interface ResolutionOptions {
  /** When enlarging, first undo as much of the capture's blur as it shows (default true): for pages to be thresholded. */
  sharpen?: boolean;
}

export interface Resampled {
  image: GrayImage;
  scale: number;
  /** When enlarging with `sharpen`: what was measured and done (recorded as the page's `decisions.sharpen`). */
  sharpening?: SharpenDecision;
}

/**
 * Resample the page from `fromDpi` to `toDpi`: when enlarging, bicubic (Catmull-Rom) interpolation (`enlargeBicubic`:
 * sharp's bytes — libvips enlarges with it whatever kernel is asked — worked separably in about half the CPU), after an
 * unsharp mask at the source resolution (where the blur is still small) as strong as the page is soft
 * (`sharpenAmount`), or for a blurred capture a deconvolution of its blur (`DECONVOLVE_FROM_EDGE_PX`); when
 * reducing, sharp shrinks by box averaging first and finishes with Lanczos-3, so no detail aliases. The size is
 * exactly round(width·scale) × round(height·scale). Within 1 % of the target the page is returned as it is.
 */
export async function normalizeResolution(page: GrayImage, fromDpi: number, toDpi = 300, options: ResolutionOptions = {}): Promise<Resampled> {
  const { sharpen = true } = options;
  if (!(fromDpi > 0) || !(toDpi > 0)) throw new RangeError(`normalizeResolution: resolutions must be positive, got ${fromDpi} → ${toDpi}`);
  const scale = toDpi / fromDpi;
  if (Math.abs(scale - 1) <= 0.01) return { image: page, scale: 1 };
  const width = Math.max(1, Math.round(page.width * scale));
  const height = Math.max(1, Math.round(page.height * scale));
  let source = page;
  let sharpening: Resampled['sharpening'];
  if (sharpen && scale > 1) {
    const edgeBlurPx = edgeBlur(page);
    const sigma = sharpenSigma(edgeBlurPx);
    const blurred = edgeBlurPx !== null && edgeBlurPx >= DECONVOLVE_FROM_EDGE_PX;
    const amount = blurred ? 0 : sharpenAmount(edgeBlurPx);
    if (blurred) source = deconvolve(page, DECONVOLVE_WIDTH * sigma, DECONVOLVE_ROUNDS);
    else if (amount > 0) source = unsharpMask(page, sigma, amount);
    const round = (v: number): number => Math.round(v * 100) / 100;
    sharpening = {
      edgeBlurPx: edgeBlurPx === null ? null : round(edgeBlurPx),
      amount: round(amount),
      ...(sigma !== SHARPEN_SIGMA_PX ? { sigmaPx: round(sigma) } : {}),
      ...(blurred ? { deconvolved: { sigmaPx: round(DECONVOLVE_WIDTH * sigma), rounds: DECONVOLVE_ROUNDS } } : {}),
    };
  }
  const image = scale > 1 ? enlargeBicubic(source, width, height) : await reduce(source, width, height);
  return sharpening ? { image, scale, sharpening } : { image, scale };
}

/** Reduce with sharp: box averaging first, then Lanczos-3, so no detail aliases. */
async function reduce(page: GrayImage, width: number, height: number): Promise<GrayImage> {
  const { data, info } = await sharpFromGray(page)
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    // One band throughout: `extractChannel` had libvips turn the page into three bands and drop two (10 ms a page).
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

export interface CropOptions {
  dpi: number;
  /** White kept around the content, millimetres (default 4). */
  marginMm?: number;
  /** Widen the cropped image with white on the right to a multiple of this many pixels (16 for a G4 page, see `padForG4`). */
  widthMultiple?: number;
}

/** Specks smaller than this (longest side) are dust or noise, not print. */
const SPECK_MM = 0.3;
/** A mark touching the page border no deeper than this is a leftover page edge or shadow, not print. */
const BORDER_DEPTH_MM = 6;
/** A mark touching the border this thin on average (area over width + height) is a line: page edge, frame. */
const BORDER_LINE_MM = 1.5;
/** A mark in a corner (touching two borders) smaller than this fraction of the page is the page's corner or the background. */
const CORNER_FRACTION = 0.2;

/**
 * On a bitonal page, the tight box of everything printed, grown by the margin and clipped to the page.
 * Ignored: specks smaller than 0.3 mm, and marks touching the border that are lines (1.5 mm thick on average,
 * however they bend), shallow (at most 6 mm deep), run along it (8× longer than deep) or sit in a corner —
 * what is left of the page edge, the book's edge or a shadow at the crop line. Print seldom touches the border (pages are cut with a margin); when a
 * cut glyph does, dropping it moves the box by less than the margin. A page with nothing printed is
 * returned whole.
 */
export function cropToContent(page: GrayImage, options: CropOptions): { image: GrayImage; box: Box } {
  const { dpi, marginMm = 4, widthMultiple = 1 } = options;
  const box = contentBox(page, dpi, marginMm);
  const width = Math.ceil(box.width / widthMultiple) * widthMultiple;
  if (width === page.width && box.width === page.width && box.height === page.height) return { image: page, box };
  return { image: cropPadded(page, box, width), box };
}

/** The box `cropToContent` keeps: the printed matter's, grown by the margin and clipped to the page (the whole page when nothing is printed). */
function contentBox(page: GrayImage, dpi: number, marginMm: number): Box {
  const pxPerMm = dpi / 25.4;
  const printed = inkComponents(page).filter((c) => !isSpeck(c, SPECK_MM * pxPerMm) && !isBorderLeftover(c, page, pxPerMm));
  if (printed.length === 0) return { x: 0, y: 0, width: page.width, height: page.height };
  const ink = unionBox(printed) as Box;
  let [x0, y0, x1, y1] = [ink.x, ink.y, ink.x + ink.width, ink.y + ink.height];
  const margin = Math.round(marginMm * pxPerMm);
  x0 = Math.max(0, x0 - margin);
  y0 = Math.max(0, y0 - margin);
  x1 = Math.min(page.width, x1 + margin);
  y1 = Math.min(page.height, y1 + margin);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function isSpeck(c: InkComponent, speckPx: number): boolean {
  return Math.max(c.width, c.height) < speckPx;
}

function isBorderLeftover(c: InkComponent, page: GrayImage, pxPerMm: number): boolean {
  const side = c.x === 0 || c.x + c.width === page.width;
  const end = c.y === 0 || c.y + c.height === page.height;
  if (!side && !end) return false;
  if (c.area / (c.width + c.height) <= BORDER_LINE_MM * pxPerMm) return true;
  const depthPx = BORDER_DEPTH_MM * pxPerMm;
  if (side && end && c.width <= CORNER_FRACTION * page.width && c.height <= CORNER_FRACTION * page.height) return true;
  if (side && (c.width <= depthPx || c.height >= 8 * c.width)) return true;
  if (end && (c.height <= depthPx || c.width >= 8 * c.height)) return true;
  return false;
}

/**
 * Pad on the right with white to a width that is a multiple of 16: the PDF writer embeds libvips' single-strip
 * CCITT G4 data as it is, and that needs whole 16-pixel groups per row.
 */
export function padForG4(page: GrayImage): GrayImage {
  return padRight(page, Math.ceil(page.width / 16) * 16, 255);
}
