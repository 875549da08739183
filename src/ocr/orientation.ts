/**
 * Pages the wrong way up: a PDF scanned upside down, a photo without EXIF orientation. Tesseract's orientation data
 * (`osd`, npm `@tesseract.js-data/osd`) tells how far a page must turn; it costs about a second a page, so it is
 * asked only about pages whose text reads as nonsense (`looksMisoriented`) — an upright page costs nothing more.
 */
import { pageWords, type OcrPage } from '../project/index.js';

/** How far to turn a page, clockwise, to set it upright, and how sure tesseract is. */
export interface PageOrientation {
  rotate: 0 | 90 | 180 | 270;
  /** Tesseract's orientation confidence: above ~2 it is rarely wrong; clear pages score 10 to 20. */
  confidence: number;
}

/** Below this orientation confidence a page is left as it is. */
export const MIN_ORIENTATION_CONFIDENCE = 2;
/** A page whose words average less than this confidence may be upside down or sideways. */
const SUSPECT_CONFIDENCE = 55;
/** …if it has enough words to tell; a page of a few words (a title page, a picture) is not checked. */
const MIN_WORDS = 12;

function quarter(degrees: number): PageOrientation['rotate'] | undefined {
  const d = (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
  return d === 0 || d === 90 || d === 180 || d === 270 ? d : undefined;
}

/** `tesseract --psm 0` output: `Rotate: 180` and `Orientation confidence: 18.66`. */
export function parseOrientation(output: string): PageOrientation | undefined {
  const rotate = /Rotate:\s*(-?\d+)/.exec(output);
  const confidence = /Orientation confidence:\s*(-?[\d.]+)/.exec(output);
  if (!rotate || !confidence) return undefined;
  const r = quarter(Number(rotate[1]));
  return r === undefined ? undefined : { rotate: r, confidence: Number(confidence[1]) };
}

/** tesseract.js's `detect()`: its `orientation_degrees` is the clockwise turn that sets the page upright (as `Rotate:` above). */
export function orientationFromDegrees(degrees: number, confidence: number): PageOrientation | undefined {
  const r = quarter(degrees);
  return r === undefined ? undefined : { rotate: r, confidence };
}

/** Whether a page's recognised text looks like a page read the wrong way up: many words, little confidence. */
export function looksMisoriented(page: OcrPage): boolean {
  const words = pageWords(page);
  if (words.length < MIN_WORDS) return false;
  const mean = words.reduce((s, w) => s + w.confidence, 0) / words.length;
  return mean < SUSPECT_CONFIDENCE;
}
