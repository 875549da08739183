import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Box, GrayImage } from '../../src/imaging/index.js';
import { detectPages } from '../../src/pipeline/split.js';
import { seededRandom } from '../helpers.js';

// Synthetic camera frames of an open book, with the true text boxes known.

const random = seededRandom;

interface Canvas {
  width: number;
  height: number;
  data: Float32Array;
}

function canvas(width: number, height: number, shade: (x: number, y: number) => number): Canvas {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = shade(x, y);
  return { width, height, data };
}

function fillRect(c: Canvas, b: Box, shade: (x: number, y: number) => number): void {
  for (let y = Math.max(0, b.y); y < Math.min(c.height, b.y + b.height); y++) {
    for (let x = Math.max(0, b.x); x < Math.min(c.width, b.x + b.width); x++) c.data[y * c.width + x] = shade(x, y);
  }
}

/** Darken by `ink` (0..1 of the current level), as printed ink does on lit paper. */
function inkRect(c: Canvas, b: Box, ink = 0.75): void {
  fillRect(c, b, (x, y) => c.data[y * c.width + x] * (1 - ink));
}

/**
 * One line of "words" from x0 to x1 (letters are small rectangles, some with ascenders), the last word cut
 * at x1 so the line ends exactly there, like justified text.
 */
function textLine(c: Canvas, x0: number, x1: number, baseline: number, xHeight: number, rnd: () => number): void {
  let x = x0;
  while (x < x1) {
    const letters = 2 + Math.floor(rnd() * 7);
    for (let i = 0; i < letters && x < x1; i++) {
      const w = Math.max(2, Math.round(xHeight * (0.45 + 0.3 * rnd())));
      const tall = rnd() < 0.3 ? Math.round(xHeight * 0.45) : 0;
      inkRect(c, { x, y: baseline - xHeight - tall, width: Math.min(w, x1 - x), height: xHeight + tall });
      x += w + Math.max(1, Math.round(xHeight * 0.18));
    }
    x += Math.round(xHeight * 0.7);
  }
}

/** `lines` full lines of text from `top` (a chapter's last page, a stray corner of the next page). */
function textLines(c: Canvas, body: Box, lines: number, pitch: number, xHeight: number, rnd: () => number): void {
  for (let i = 0; i < lines; i++) textLine(c, body.x, body.x + body.width, body.y + xHeight + i * pitch, xHeight, rnd);
}

/** A page of text: running head (with a page number at the outer edge), body lines, a page number below. Returns the true text box. */
function textPage(c: Canvas, body: Box, pitch: number, xHeight: number, outer: 'left' | 'right', rnd: () => number): Box {
  const headBaseline = body.y - 2 * pitch;
  const headTop = headBaseline - Math.round(xHeight * 1.45);
  // Running head: centred title, page number at the outer corner.
  textLine(c, body.x + Math.round(body.width * 0.3), body.x + Math.round(body.width * 0.7), headBaseline, xHeight, rnd);
  const numberX = outer === 'left' ? body.x : body.x + body.width - 3 * xHeight;
  for (let i = 0; i < 3; i++) inkRect(c, { x: numberX + i * xHeight, y: headTop, width: Math.round(xHeight * 0.7), height: Math.round(xHeight * 1.45) });
  let baseline = body.y + xHeight;
  let line = 0;
  while (baseline <= body.y + body.height) {
    const lastOfParagraph = line % 9 === 8;
    textLine(
      c,
      body.x + (line % 9 === 0 ? 2 * xHeight : 0),
      lastOfParagraph ? body.x + Math.round(body.width * 0.6) : body.x + body.width,
      baseline,
      xHeight,
      rnd,
    );
    baseline += pitch;
    line++;
  }
  const lastBaseline = baseline - pitch;
  // Page number, centred, three pitches below the last line.
  const footBaseline = lastBaseline + 3 * pitch;
  const cx = body.x + Math.round(body.width / 2);
  for (let i = 0; i < 2; i++)
    inkRect(c, { x: cx + i * xHeight, y: footBaseline - Math.round(xHeight * 1.45), width: Math.round(xHeight * 0.7), height: Math.round(xHeight * 1.45) });
  return { x: body.x, y: headTop, width: body.width, height: footBaseline - headTop };
}

function finger(c: Canvas, cx: number, cy: number, rx: number, ry: number): void {
  for (let y = cy - ry; y <= cy + ry; y++) {
    for (let x = cx - rx; x <= cx + rx; x++) {
      const d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
      if (d <= 1 && x >= 0 && y >= 0 && x < c.width && y < c.height) c.data[y * c.width + x] = 150 - 25 * d;
    }
  }
}

/** Blur lightly (3×3 box), add sensor noise and quantise to a frame. */
function toFrame(c: Canvas, rnd: () => number, noise = 6): GrayImage {
  const { width: w, height: h } = c;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy < 0 || xx < 0 || yy >= h || xx >= w) continue;
          s += c.data[yy * w + xx];
          n++;
        }
      }
      out[y * w + x] = Math.max(0, Math.min(255, Math.round(s / n + (rnd() - 0.5) * 2 * noise)));
    }
  }
  return { width: w, height: h, data: out };
}

type Background = 'dark' | 'dots';

function background(w: number, h: number, kind: Background, rnd: () => number): Canvas {
  if (kind === 'dark') return canvas(w, h, () => 55 + rnd() * 30);
  // A busy cloth: mid-grey with many dark and light dots of character size.
  const c = canvas(w, h, () => 105 + rnd() * 20);
  for (let i = 0; i < 9000; i++) {
    const size = 2 + Math.floor(rnd() * 7);
    const x = Math.floor(rnd() * w);
    const y = Math.floor(rnd() * h);
    const v = rnd() < 0.5 ? 30 : 170;
    fillRect(c, { x, y, width: size, height: Math.max(2, Math.round(size * (0.5 + rnd()))) }, () => v);
  }
  return c;
}

interface Spread {
  frame: GrayImage;
  left: Box;
  right: Box;
  seam: number;
}

/** A 1920×1080 frame of an open book: two lit pages, a shadowed gutter, a finger on the right page's outer margin. */
function spreadFrame(kind: Background = 'dark', seed = 1): Spread {
  const rnd = random(seed);
  const c = background(1920, 1080, kind, rnd);
  const seam = 955;
  // Pages: slightly different brightness, light falling off to the right, shadow deepening towards the gutter.
  const gutterShade = (x: number): number => 1 - 0.3 * Math.exp(-(((x - seam) / 14) ** 2));
  fillRect(c, { x: 170, y: 50, width: seam - 170, height: 990 }, (x) => (222 - 0.012 * (x - 170)) * gutterShade(x));
  fillRect(c, { x: seam, y: 45, width: 1760 - seam, height: 1000 }, (x) => (212 - 0.015 * (x - seam)) * gutterShade(x));
  const left = textPage(c, { x: 300, y: 170, width: 560, height: 760 }, 19, 8, 'left', rnd);
  const right = textPage(c, { x: 1045, y: 172, width: 560, height: 760 }, 19, 8, 'right', rnd);
  finger(c, 1672, 560, 32, 110);
  return { frame: toFrame(c, rnd), left, right, seam };
}

function expectNear(found: Box, truth: Box, frame: GrayImage): void {
  const tx = 0.02 * frame.width;
  const ty = 0.02 * frame.height;
  expect(Math.abs(found.x - truth.x)).toBeLessThanOrEqual(tx);
  expect(Math.abs(found.x + found.width - (truth.x + truth.width))).toBeLessThanOrEqual(tx);
  expect(Math.abs(found.y - truth.y)).toBeLessThanOrEqual(ty);
  expect(Math.abs(found.y + found.height - (truth.y + truth.height))).toBeLessThanOrEqual(ty);
}

function contains(outer: Box, inner: Box): boolean {
  return outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.width >= inner.x + inner.width && outer.y + outer.height >= inner.y + inner.height;
}

describe('detectPages on an open book', () => {
  const book = spreadFrame();

  it('finds the left and right pages, each text area with its running head and page number, split at the gutter', () => {
    const { pages, gutterX } = detectPages(book.frame);
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    expectNear(pages[0].content, book.left, book.frame);
    expectNear(pages[1].content, book.right, book.frame);
    expect(gutterX).toBeDefined();
    expect(gutterX as number).toBeGreaterThanOrEqual(pages[0].content.x + pages[0].content.width);
    expect(gutterX as number).toBeLessThanOrEqual(pages[1].content.x);
    expect(Math.abs((gutterX as number) - book.seam)).toBeLessThanOrEqual(12);
  });

  it('does not let the finger on the margin enlarge the right page', () => {
    const right = detectPages(book.frame).pages[1].content;
    expect(right.x + right.width).toBeLessThan(1672 - 32);
  });

  it('keeps a margin around the text that never crosses the gutter or the frame', () => {
    const { pages, gutterX } = detectPages(book.frame, { dpi: 150, marginMm: 4 });
    const margin = (4 / 25.4) * 150;
    for (const p of pages) {
      expect(contains(p.box, p.content)).toBe(true);
      expect(p.box.x >= 0 && p.box.y >= 0 && p.box.x + p.box.width <= book.frame.width && p.box.y + p.box.height <= book.frame.height).toBe(true);
    }
    const [left, right] = pages;
    expect(left.box.x + left.box.width).toBeLessThanOrEqual(gutterX as number);
    expect(right.box.x).toBeGreaterThanOrEqual(gutterX as number);
    expect(left.content.x - left.box.x).toBeCloseTo(margin, -1);
    expect(left.box.y + left.box.height - (left.content.y + left.content.height)).toBeCloseTo(margin, -1);
  });

  it('sizes the margin from the text when the resolution is not given', () => {
    // Pitch 19 px at 13 pt: about 105 dpi, so 4 mm is about 17 px.
    const { pages } = detectPages(book.frame, { marginMm: 4 });
    const margin = pages[0].content.y - pages[0].box.y;
    expect(margin).toBeGreaterThanOrEqual(13);
    expect(margin).toBeLessThanOrEqual(21);
  });

  it('keeps one page, holding all the text, when told the frame is a single page', () => {
    const { pages, gutterX } = detectPages(book.frame, { spread: 'single' });
    expect(pages).toHaveLength(1);
    expect(pages[0].side).toBe('single');
    expect(gutterX).toBeUndefined();
    expectNear(
      pages[0].content,
      { x: book.left.x, y: book.left.y, width: book.right.x + book.right.width - book.left.x, height: book.left.height },
      book.frame,
    );
  });

  it('ignores a busy background of dots', () => {
    const busy = spreadFrame('dots', 7);
    const { pages } = detectPages(busy.frame);
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    expectNear(pages[0].content, busy.left, busy.frame);
    expectNear(pages[1].content, busy.right, busy.frame);
  });
});

describe('detectPages on other frames', () => {
  it('keeps a single page as one page', () => {
    const rnd = random(3);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 620, y: 40, width: 700, height: 1010 }, (x) => 215 - 0.02 * (x - 620));
    const truth = textPage(c, { x: 720, y: 160, width: 500, height: 780 }, 19, 8, 'right', rnd);
    const frame = toFrame(c, rnd);
    const { pages, gutterX } = detectPages(frame);
    expect(pages).toHaveLength(1);
    expect(pages[0].side).toBe('single');
    expect(gutterX).toBeUndefined();
    expectNear(pages[0].content, truth, frame);
  });

  it('keeps a chapter title set far above the text, and the folio far below the last lines of a chapter', () => {
    const rnd = random(13);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 620, y: 30, width: 700, height: 1030 }, (x) => 215 - 0.02 * (x - 620));
    // The title two-thirds as wide as the text, then eighteen line pitches of white before the first line.
    const title: Box = { x: 800, y: 112, width: 340, height: 14 };
    textLine(c, title.x, title.x + title.width, title.y + title.height, 14, rnd);
    const body: Box = { x: 720, y: 460, width: 500, height: 300 };
    textLines(c, body, 16, 19, 8, rnd);
    const folio: Box = { x: 960, y: 1000, width: 16, height: 12 };
    inkRect(c, { x: folio.x, y: folio.y, width: 6, height: folio.height });
    inkRect(c, { x: folio.x + 10, y: folio.y, width: 6, height: folio.height });
    const frame = toFrame(c, rnd);
    const { pages } = detectPages(frame, { spread: 'single' });
    expect(pages).toHaveLength(1);
    expect(contains(pages[0].content, title)).toBe(true);
    expect(contains(pages[0].content, { x: body.x, y: body.y, width: body.width, height: 16 * 19 })).toBe(true);
    expect(contains(pages[0].content, folio)).toBe(true);
    // Still only the page: the desk around the sheet stays out.
    expect(pages[0].box.x).toBeGreaterThanOrEqual(620);
    expect(pages[0].box.x + pages[0].box.width).toBeLessThanOrEqual(1320);
  });

  it('gives one page covering the paper when there is no text', () => {
    const rnd = random(4);
    const c = background(1920, 1080, 'dots', rnd);
    const paper: Box = { x: 400, y: 80, width: 1100, height: 900 };
    fillRect(c, paper, (x) => 210 + 0.01 * (x - 400));
    const frame = toFrame(c, rnd);
    const { pages } = detectPages(frame);
    expect(pages).toHaveLength(1);
    expect(pages[0].side).toBe('single');
    expectNear(pages[0].box, paper, frame);
  });

  it('splits a blank spread in two when told it is a double page', () => {
    const rnd = random(5);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 200, y: 60, width: 1500, height: 950 }, () => 215);
    const { pages, gutterX } = detectPages(toFrame(c, rnd), { spread: 'double' });
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    expect(Math.abs((gutterX as number) - 950)).toBeLessThan(40);
  });

  it('still splits a spread whose right page holds only the last lines of a chapter', () => {
    const rnd = random(8);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 170, y: 50, width: 1590, height: 990 }, (x) => 218 * (1 - 0.3 * Math.exp(-(((x - 955) / 14) ** 2))));
    const left = textPage(c, { x: 300, y: 170, width: 560, height: 760 }, 19, 8, 'left', rnd);
    textLines(c, { x: 1045, y: 172, width: 560, height: 0 }, 5, 19, 8, rnd);
    const frame = toFrame(c, rnd);
    const { pages, gutterX } = detectPages(frame);
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    expectNear(pages[0].content, left, frame);
    expectNear(pages[1].content, { x: 1045, y: 172, width: 560, height: 4 * 19 + 12 }, frame);
    expect(Math.abs((gutterX as number) - 955)).toBeLessThanOrEqual(12);
  });

  it('leaves out the sliver of the next page seen at the frame edge', () => {
    const rnd = random(9);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 620, y: 40, width: 700, height: 1010 }, () => 215);
    fillRect(c, { x: 1740, y: 60, width: 180, height: 980 }, () => 200);
    const truth = textPage(c, { x: 720, y: 160, width: 500, height: 780 }, 19, 8, 'right', rnd);
    textLines(c, { x: 1790, y: 170, width: 130, height: 0 }, 40, 19, 8, rnd);
    const frame = toFrame(c, rnd);
    const { pages } = detectPages(frame);
    expect(pages).toHaveLength(1);
    expectNear(pages[0].content, truth, frame);
  });

  it('splits a frame tilted by 2° at the gutter', async () => {
    const book = spreadFrame('dark', 10);
    const { data, info } = await sharp(book.frame.data, { raw: { width: 1920, height: 1080, channels: 1 } })
      .rotate(2, { background: { r: 70, g: 70, b: 70 } })
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const frame = { width: info.width, height: info.height, data: new Uint8Array(data) };
    const { pages, gutterX } = detectPages(frame);
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    // The seam passes through the frame's middle height at its shifted position.
    const seamAtMiddle = book.seam + (info.width - 1920) / 2;
    expect(Math.abs((gutterX as number) - seamAtMiddle)).toBeLessThanOrEqual(16);
  });

  it('gives a blank page facing a printed one its own sheet of paper', () => {
    const rnd = random(12);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 170, y: 50, width: 785, height: 990 }, (x) => 220 * (1 - 0.3 * Math.exp(-(((x - 955) / 14) ** 2))));
    fillRect(c, { x: 955, y: 50, width: 805, height: 990 }, (x) => 210 * (1 - 0.3 * Math.exp(-(((x - 955) / 14) ** 2))));
    textPage(c, { x: 300, y: 170, width: 560, height: 760 }, 19, 8, 'left', rnd);
    const frame = toFrame(c, rnd);
    const { pages, gutterX } = detectPages(frame, { spread: 'double' });
    expect(pages.map((p) => p.side)).toEqual(['left', 'right']);
    expectNear(pages[1].box, { x: gutterX as number, y: 50, width: 1760 - (gutterX as number), height: 990 }, frame);
  });

  it('refuses a damaged image with a clear error', () => {
    expect(() => detectPages({ width: 100, height: 100, data: new Uint8Array(10) })).toThrow(expect.objectContaining({ code: 'bad_image' }));
  });

  it('does not take a two-column page for a spread', () => {
    const rnd = random(6);
    const c = background(1920, 1080, 'dark', rnd);
    fillRect(c, { x: 560, y: 30, width: 800, height: 1030 }, () => 215);
    textPage(c, { x: 640, y: 140, width: 300, height: 800 }, 19, 8, 'left', rnd);
    textPage(c, { x: 965, y: 140, width: 300, height: 800 }, 19, 8, 'right', rnd);
    const { pages } = detectPages(toFrame(c, rnd));
    expect(pages).toHaveLength(1);
    expect(pages[0].content.x).toBeLessThan(660);
    expect(pages[0].content.x + pages[0].content.width).toBeGreaterThan(1245);
  });
});
