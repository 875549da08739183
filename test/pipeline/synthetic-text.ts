/**
 * Synthetic pages with a known answer for the clean-up steps: real glyphs rendered from SVG (DejaVu Serif) or
 * "words" drawn as dark rectangles, then lit like a camera sees them (gradient, gutter shadow, blur, noise).
 */
import sharp from 'sharp';
import type { GrayImage } from '../../src/imaging/index.js';
import { seededRandom } from '../helpers.js';

const WORDS = (
  'le rebondissement inattendu du traité et surtout incohérence de certains détails de la chronologie ont fait ' +
  'croire une composition en plusieurs fois avant de revenir sur les problèmes il faut noter que ajout des ' +
  'documents ne rompt pas la logique démonstration bien au contraire sections conviction unanimité synodes'
).split(' ');

export { seededRandom };

export interface TextPageLayout {
  widthMm: number;
  heightMm: number;
  dpi: number;
  /** Text block margins, mm. */
  marginMm?: number;
  fontPt?: number;
  leadingPt?: number;
  seed?: number;
  /** Rotate the text block by this many degrees counter-clockwise (as seen on screen) about the page centre. */
  skewDeg?: number;
}

/** Black DejaVu Serif text on white: the ground truth of a page (anti-aliased grey at glyph edges). */
export async function renderTextPage(layout: TextPageLayout): Promise<GrayImage> {
  const { widthMm, heightMm, dpi, marginMm = 15, fontPt = 10.5, leadingPt = 13, seed = 1, skewDeg = 0 } = layout;
  const pxPerMm = dpi / 25.4;
  const width = Math.round(widthMm * pxPerMm);
  const height = Math.round(heightMm * pxPerMm);
  const font = (fontPt * dpi) / 72;
  const leading = (leadingPt * dpi) / 72;
  const left = marginMm * pxPerMm;
  const right = width - marginMm * pxPerMm;
  const random = seededRandom(seed);
  const lines: string[] = [];
  for (let y = marginMm * pxPerMm + font; y < height - marginMm * pxPerMm; y += leading) {
    const words: string[] = [];
    let chars = 0;
    // DejaVu Serif averages about half an em per character (spaces included); stop at the right margin.
    while ((chars + 6) * 0.5 * font < right - left) {
      const word = WORDS[Math.floor(random() * WORDS.length)];
      words.push(word);
      chars += word.length + 1;
    }
    lines.push(`<text x="${left.toFixed(1)}" y="${y.toFixed(1)}">${words.join(' ')}</text>`);
  }
  // SVG rotate() is clockwise on screen: negate it for a counter-clockwise skew.
  const transform = skewDeg ? ` transform="rotate(${-skewDeg} ${width / 2} ${height / 2})"` : '';
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#fff"/>` +
    `<g font-family="DejaVu Serif" font-size="${font.toFixed(2)}" fill="#000"${transform}>${lines.join('')}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/**
 * Rows of dark rectangles ("words") drawn straight into pixels, the block skewed by `skewDeg` counter-clockwise
 * on screen, 2×2 super-sampled. Independent of any rotation code under test.
 */
export function wordRectanglesPage(width: number, height: number, skewDeg: number, seed = 7): GrayImage {
  const random = seededRandom(seed);
  const pitch = Math.max(6, Math.round(height / 45));
  const xHeight = Math.round(pitch * 0.4);
  const words: { x0: number; x1: number; y0: number; y1: number }[] = [];
  for (let y = height * 0.1; y < height * 0.9; y += pitch) {
    for (let x = width * 0.1; x < width * 0.9;) {
      const w = pitch * (0.8 + random() * 3);
      words.push({ x0: x, x1: Math.min(width * 0.9, x + w), y0: y, y1: y + xHeight });
      x += w + pitch * 0.5;
    }
  }
  const a = (skewDeg * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = width / 2;
  const cy = height / 2;
  // Bucket words by row so each pixel tests only the few words that could cover it.
  const rows = new Map<number, typeof words>();
  for (const w of words) {
    const key = Math.floor(w.y0 / pitch);
    const list = rows.get(key) ?? [];
    list.push(w);
    rows.set(key, list);
  }
  const data = new Uint8Array(width * height);
  const inside = (px: number, py: number): boolean => {
    // Undo a counter-clockwise screen rotation (y down): rotate the point clockwise about the centre.
    const dx = px - cx;
    const dy = py - cy;
    const ux = cx + dx * cos - dy * sin;
    const uy = cy + dx * sin + dy * cos;
    const list = rows.get(Math.floor(uy / pitch));
    if (!list) return false;
    for (const w of list) if (ux >= w.x0 && ux < w.x1 && uy >= w.y0 && uy < w.y1) return true;
    return false;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let ink = 0;
      for (const [sx, sy] of SUBPIXELS) if (inside(x + sx, y + sy)) ink++;
      data[y * width + x] = 255 - Math.round((ink / 4) * 230);
    }
  }
  return { width, height, data };
}

const SUBPIXELS: readonly (readonly [number, number])[] = [
  [0.25, 0.25],
  [0.75, 0.25],
  [0.25, 0.75],
  [0.75, 0.75],
];

export interface Lighting {
  /** Paper brightness at the left edge and at the right edge (linear in between). */
  left: number;
  right: number;
  /** A gutter shadow on one side: its width as a fraction of the page, and how much light it leaves at its darkest. */
  gutter?: { side: 'left' | 'right'; widthFraction: number; darkest: number };
  /** Fraction of the light the ink reflects. */
  ink?: number;
  /** Gaussian blur sigma in pixels (camera focus), applied to the reflectance. */
  blur?: number;
  /** Sensor noise, grey levels. */
  noise?: number;
  seed?: number;
}

/** How much light reaches column x: a left-to-right gradient times a soft gutter shadow. */
export function lightAt(lighting: Lighting, x: number, width: number): number {
  const t = x / Math.max(1, width - 1);
  let light = lighting.left + (lighting.right - lighting.left) * t;
  const g = lighting.gutter;
  if (g) {
    const fromEdge = g.side === 'left' ? t : 1 - t;
    if (fromEdge < g.widthFraction) {
      // Smooth fall-off (smoothstep) from full light at the band's inner edge to `darkest` at the page edge.
      const u = 1 - fromEdge / g.widthFraction;
      const s = u * u * (3 - 2 * u);
      light *= 1 - (1 - g.darkest) * s;
    }
  }
  return light;
}

/** The page as a camera would see it: reflectance from `truth` (255 paper, 0 ink) times the light, plus noise. */
export async function photograph(truth: GrayImage, lighting: Lighting): Promise<GrayImage> {
  const { width, height } = truth;
  let reflect = truth.data;
  if (lighting.blur) {
    const blurred = await sharp(truth.data, { raw: { width, height, channels: 1 } })
      .blur(lighting.blur)
      .extractChannel(0)
      .raw()
      .toBuffer();
    reflect = new Uint8Array(blurred.buffer, blurred.byteOffset, blurred.length);
  }
  const ink = lighting.ink ?? 0.12;
  const random = seededRandom(lighting.seed ?? 3);
  const noise = lighting.noise ?? 0;
  const light = new Float32Array(width);
  for (let x = 0; x < width; x++) light[x] = lightAt(lighting, x, width);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const r = ink + (1 - ink) * (reflect[i] / 255);
      // Box–Muller would be exact; the sum of three uniforms is Gaussian enough and cheap.
      const n = noise ? (random() + random() + random() - 1.5) * 2 * noise : 0;
      out[i] = Math.max(0, Math.min(255, Math.round(light[x] * r + n)));
    }
  }
  return { width, height, data: out };
}

/** Grow (`grow` true) or shrink a 0/1 mask by `radius` pixels with a square structuring element. */
export function morph(mask: Uint8Array, width: number, height: number, radius: number, grow: boolean): Uint8Array {
  let cur = mask;
  for (let pass = 0; pass < radius; pass++) {
    const next = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let v = grow ? 0 : 1;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const yy = y + dy;
            const xx = x + dx;
            const m = yy < 0 || yy >= height || xx < 0 || xx >= width ? 0 : cur[yy * width + xx];
            v = grow ? v | m : v & m;
          }
        }
        next[y * width + x] = v;
      }
    }
    cur = next;
  }
  return cur;
}

export interface Score {
  /** Fraction of the glyph pixels (shrunk by the tolerance) that came out black. */
  glyphKept: number;
  /** Fraction of the paper pixels (farther than the tolerance from a glyph) that came out white. */
  paperClean: number;
  /** Black pixels that are not near any glyph, as a bitonal image (for blob checks). */
  stray: GrayImage;
}

/** Compare a binarised page with its ground truth (truth < 128 is ink), allowing `tolerancePx` at glyph edges. */
export function scoreAgainstTruth(image: GrayImage, truth: GrayImage, tolerancePx = 1): Score {
  const { width, height } = truth;
  const ink = new Uint8Array(width * height);
  for (let i = 0; i < ink.length; i++) ink[i] = truth.data[i] < 128 ? 1 : 0;
  const core = morph(ink, width, height, tolerancePx, false);
  const near = morph(ink, width, height, tolerancePx, true);
  let coreCount = 0;
  let coreBlack = 0;
  let paperCount = 0;
  let paperWhite = 0;
  const stray = new Uint8Array(width * height).fill(255);
  for (let i = 0; i < ink.length; i++) {
    const black = image.data[i] === 0;
    if (core[i]) {
      coreCount++;
      if (black) coreBlack++;
    }
    if (!near[i]) {
      paperCount++;
      if (!black) paperWhite++;
      else stray[i] = 0;
    }
  }
  return { glyphKept: coreBlack / Math.max(1, coreCount), paperClean: paperWhite / Math.max(1, paperCount), stray: { width, height, data: stray } };
}
