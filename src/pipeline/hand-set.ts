/**
 * Pages set by hand in a frame (the web app's page view, `quire run --page-box`): the boxes a person drew replace
 * the automatic split and crop of that frame; a split set alone is looked for a page on each side of it.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import { cropGray, type GrayImage } from '../imaging/index.js';
import type { Box, HandSetPages, PageRegion } from '../project/index.js';
import { detectPages, type DetectPagesOptions } from './split.js';
import type { SplitDecision } from './types.js';

/** A page box narrower or lower than this many pixels holds no page. */
export const MIN_PAGE_BOX = 32;

/**
 * Refuse pages set by hand that do not fit the frame, in one sentence naming the frame: a box that is not whole
 * pixels, too small, or reaches outside the capture, more than two boxes, or a split outside the frame.
 */
export function checkHandSetPages(pages: HandSetPages, frame: { width: number; height: number }, where: string): void {
  const refuse = (why: string): never => {
    throw new QuireError(ERROR_CODES.USAGE, `The page box set by hand for ${where} ${why}.`);
  };
  if ('splitX' in pages) {
    const x = pages.splitX;
    if (!Number.isInteger(x) || x < MIN_PAGE_BOX || x > frame.width - MIN_PAGE_BOX)
      refuse(`splits at x ${x}, outside the capture (${frame.width} pixels wide, a page at least ${MIN_PAGE_BOX} on each side)`);
    return;
  }
  if (pages.boxes.length === 0 || pages.boxes.length > 2) refuse(`has ${pages.boxes.length} boxes; a frame holds one page or two`);
  for (const b of pages.boxes) {
    const text = `${b.width}×${b.height} at (${b.x}, ${b.y})`;
    if (![b.x, b.y, b.width, b.height].every(Number.isInteger)) refuse(`(${text}) is not in whole pixels`);
    if (b.width < MIN_PAGE_BOX || b.height < MIN_PAGE_BOX) refuse(`(${text}) is smaller than ${MIN_PAGE_BOX}×${MIN_PAGE_BOX} pixels`);
    if (b.x < 0 || b.y < 0 || b.x + b.width > frame.width || b.y + b.height > frame.height)
      refuse(`(${text}) reaches outside the capture (${frame.width}×${frame.height})`);
  }
}

/** The frame's pages as set by hand, in the shape of the automatic split's decision (checked first). */
export function handSetSplit(frame: GrayImage, pages: HandSetPages, where: string, detect: DetectPagesOptions): SplitDecision {
  checkHandSetPages(pages, frame, where);
  if ('boxes' in pages) {
    const sides: PageRegion['side'][] = pages.boxes.length === 1 ? ['single'] : ['left', 'right'];
    const ordered = [...pages.boxes].sort((a, b) => a.x - b.x);
    const regions = ordered.map((box, i) => ({ side: sides[i], box: { ...box }, content: { ...box } }));
    // Two pages: the split is drawn midway between the left page's right edge and the right page's left edge.
    if (ordered.length === 2) return { pages: regions, gutterX: Math.round((ordered[0].x + ordered[0].width + ordered[1].x) / 2) };
    return { pages: regions };
  }
  // A split alone: each half is one page, found in it as on a single-page frame.
  const halves: Array<[PageRegion['side'], Box]> = [
    ['left', { x: 0, y: 0, width: pages.splitX, height: frame.height }],
    ['right', { x: pages.splitX, y: 0, width: frame.width - pages.splitX, height: frame.height }],
  ];
  return {
    gutterX: pages.splitX,
    pages: halves.map(([side, half]) => {
      const found = detectPages(cropGray(frame, half), { ...detect, spread: 'single' }).pages[0];
      const shift = (b: Box): Box => ({ ...b, x: b.x + half.x, y: b.y + half.y });
      return { side, box: shift(found.box), content: shift(found.content) };
    }),
  };
}
