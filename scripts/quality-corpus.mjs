// The OCR quality benchmark's corpus (npm run bench:quality): book pages of known text (scripts/quality-text.mjs),
// typeset in Debian's fonts (fonts-urw-base35's Nimbus Roman and P052, fonts-dejavu-core's DejaVu Serif) and
// photographed the way a webcam over a book does it: small type (an x-height of 8, 10 or 14 camera pixels), the
// page a little turned on the desk, its surface curling towards the gutter, uneven light and a gutter shadow, lens
// blur, sensor noise, JPEG at quality 60. Deterministic: every random choice comes from a seeded PRNG, so the same
// corpus comes out on every machine with the same fonts.
//
//   node scripts/quality-corpus.mjs --out <dir> [--only x10]
//
// Writes <dir>/<degradation>/<page>.jpg and <dir>/corpus.json (the truth: each page's lines by kind).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { QUALITY_PAGES } from './quality-text.mjs';
import { breakLines, escapeXml, justify, measureAdvances, normal, prng, textWidth } from './typeset.mjs';

/**
 * How each set of pages is photographed. `xHeight`: camera pixels; `blur`: Gaussian sigma in camera pixels;
 * `light`: brightness at the darkest corner (1 = even); `shadow`: how much light the gutter shadow takes;
 * `curl`: how far lines drop at the gutter, in line pitches.
 */
export const DEGRADATIONS = [
  { name: 'x8', label: 'x-height 8 px', xHeight: 8, blur: 0.7, light: 0.75, shadow: 0.3, curl: 0.8, seed: 8 },
  { name: 'x10', label: 'x-height 10 px', xHeight: 10, blur: 0.7, light: 0.75, shadow: 0.3, curl: 0.8, seed: 10 },
  { name: 'x14', label: 'x-height 14 px', xHeight: 14, blur: 0.7, light: 0.75, shadow: 0.3, curl: 0.8, seed: 14 },
  { name: 'x10-soft', label: 'x-height 10, slight blur', xHeight: 10, blur: 0.95, light: 0.75, shadow: 0.3, curl: 0.8, seed: 104 },
  { name: 'x10-blurred', label: 'x-height 10, blur', xHeight: 10, blur: 1.08, light: 0.75, shadow: 0.3, curl: 0.8, seed: 105 },
  { name: 'x10-blur', label: 'x-height 10, strong blur', xHeight: 10, blur: 1.2, light: 0.75, shadow: 0.3, curl: 0.8, seed: 101 },
  { name: 'x10-light', label: 'x-height 10, dim corner and deep gutter shadow', xHeight: 10, blur: 0.7, light: 0.45, shadow: 0.55, curl: 0.8, seed: 102 },
  { name: 'x10-curl', label: 'x-height 10, strong page curl', xHeight: 10, blur: 0.7, light: 0.75, shadow: 0.3, curl: 3, seed: 103 },
];

const JPEG_QUALITY = 60;
/** The page is rendered at this multiple of the camera's resolution, then warped, blurred and reduced. */
const SUPERSAMPLE = 2;
const SUPERSCRIPTS = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
const PAPER = [246, 240, 226];
const INK = [34, 31, 30];
const DESK = [96, 66, 44];

/** Layout in body font sizes (em). */
const LAYOUT = { leading: 1.22, measure: 27, top: 2.6, bottom: 2.4, inner: 2.4, outer: 3, head: 0.85, title: 1.3, note: 0.8, noteLeading: 0.98, indent: 1.5 };

/** x-height of a font as a share of its size, measured on what librsvg draws. */
async function xHeightRatio(family) {
  const size = 200;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><rect width="100%" height="100%" fill="#fff"/><text x="50" y="250" font-family="${family}" font-size="${size}">x</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  let top = info.height;
  let bottom = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[y * info.width + x] < 128) {
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
  }
  return (bottom - top + 1) / size;
}

function withCalls(text) {
  return text.replace(/\[(\d+)\]/g, (_, n) => [...n].map((d) => SUPERSCRIPTS[Number(d)]).join(''));
}

/** Lay a page out in camera pixels: every line placed, with its kind for the truth. */
function typeset(page, fontPx, advances) {
  const L = LAYOUT;
  const leading = L.leading * fontPx;
  const width = Math.round((L.inner + L.measure + L.outer) * fontPx);
  const left = L.inner * fontPx;
  const measure = L.measure * fontPx;
  const runs = [];
  const truth = [];
  const centre = (text, size, y, kind) => {
    const w = textWidth(text, advances, size);
    runs.push({ x: left + (measure - w) / 2, y, size, text });
    truth.push({ kind, text });
  };
  let y = L.top * fontPx;
  centre(page.runningHead, L.head * fontPx, y, 'head');
  y += 2.5 * leading;
  if (page.title) {
    for (const t of page.title) {
      y += L.title * fontPx * 1.25;
      centre(t, L.title * fontPx, y, 'title');
    }
    // A chapter opening: the text starts well below its title.
    y += 3.5 * leading;
  } else y += leading;
  for (const paragraph of page.paragraphs) {
    const words = paragraph.split(' ').map((w) => ({ text: withCalls(w) }));
    for (const line of breakLines(words, measure, L.indent * fontPx, advances, fontPx)) {
      for (const w of justify(line, left, measure, advances, fontPx)) runs.push({ x: w.x, y, size: fontPx, text: w.text });
      truth.push({ kind: 'body', text: line.words.map((w) => w.text).join(' ') });
      y += leading;
    }
  }
  y += 1.2 * leading;
  const rule = { x: left, y: y - 0.8 * fontPx, width: 7 * fontPx };
  const noteSize = L.note * fontPx;
  for (const [n, text] of Object.entries(page.notes)) {
    const words = `${n}. ${text}`.split(' ').map((w) => ({ text: w }));
    for (const line of breakLines(words, measure, 0, advances, noteSize)) {
      y += L.noteLeading * fontPx;
      for (const w of justify(line, left, measure, advances, noteSize)) runs.push({ x: w.x, y, size: noteSize, text: w.text });
      truth.push({ kind: 'note', text: line.words.map((w) => w.text).join(' ') });
    }
  }
  y += 2 * leading;
  centre(String(page.folio), L.head * fontPx, y, 'folio');
  const height = Math.round(y + L.bottom * fontPx);
  return { width, height, runs, rule, truth };
}

async function renderPage(layout, family) {
  const S = SUPERSAMPLE;
  const texts = layout.runs.map(
    (r) =>
      `<text x="${(r.x * S).toFixed(1)}" y="${(r.y * S).toFixed(1)}" font-size="${(r.size * S).toFixed(2)}" xml:space="preserve">${escapeXml(r.text)}</text>`,
  );
  const rule = `<rect x="${(layout.rule.x * S).toFixed(1)}" y="${(layout.rule.y * S).toFixed(1)}" width="${(layout.rule.width * S).toFixed(1)}" height="${S}" fill="#000"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width * S}" height="${layout.height * S}"><rect width="100%" height="100%" fill="#fff"/><g font-family="${family}" fill="#000">${texts.join('')}${rule}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/**
 * The page on the desk as the camera sees it, at the supersampled resolution: turned a little, its surface rising
 * towards the gutter (lines drop there by `curl` pitches), desk around it. Returns ink darkness (0 paper … 255
 * ink) and a desk mask.
 */
function photograph(page, layout, spec, fontPx, random, gutterLeft) {
  const S = SUPERSAMPLE;
  const margin = Math.round(0.07 * layout.width) * S;
  const W = page.width + 2 * margin;
  const H = page.height + 2 * margin;
  const ink = new Uint8Array(W * H);
  const desk = new Uint8Array(W * H);
  const angle = ((random() - 0.5) * 1.6 * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const cx = W / 2;
  const cy = H / 2;
  const drop = spec.curl * LAYOUT.leading * fontPx * S;
  const reach = 0.35 * page.width;
  for (let Y = 0; Y < H; Y++) {
    for (let X = 0; X < W; X++) {
      // Undo the turn, then the curl: a point of the page at (u, v) shows at (u, v + drop·g(u)).
      const dx = X - cx;
      const dy = Y - cy;
      const u = cx + dx * cos + dy * sin - margin;
      let v = cy - dx * sin + dy * cos - margin;
      const fromGutter = gutterLeft ? u : page.width - u;
      const t = Math.max(0, 1 - fromGutter / reach);
      v -= drop * t * t * (0.6 + 0.4 * (v / page.height));
      const o = Y * W + X;
      if (u < 0 || v < 0 || u > page.width - 1 || v > page.height - 1) {
        desk[o] = 255;
        continue;
      }
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const fx = u - x0;
      const fy = v - y0;
      const i = y0 * page.width + x0;
      const a = page.data[i];
      const b = page.data[i + 1];
      const c = page.data[i + page.width];
      const d = page.data[i + page.width + 1];
      const grey = a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
      ink[o] = 255 - Math.round(grey);
    }
  }
  return { width: W, height: H, ink, desk };
}

/** Blur at the supersampled resolution and reduce to the camera's: the lens and the sensor. */
async function toCamera(image, sigma, width, height) {
  const plane = (data) =>
    sharp(Buffer.from(data.buffer, data.byteOffset, data.length), { raw: { width: image.width, height: image.height, channels: 1 } })
      .blur(Math.max(0.3, sigma * SUPERSAMPLE))
      .resize(width, height, { kernel: 'cubic', fit: 'fill' })
      .extractChannel(0)
      .raw()
      .toBuffer();
  const [ink, desk] = await Promise.all([plane(image.ink), plane(image.desk)]);
  return { ink, desk };
}

/** Paper, ink and desk colours under uneven light, with a gutter shadow and sensor noise, as JPEG. */
async function develop(planes, width, height, spec, random, gutterLeft) {
  const rgb = Buffer.alloc(width * height * 3);
  const corner = random() < 0.5 ? 0 : 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * width + x;
      const t = planes.ink[o] / 255;
      const d = planes.desk[o] / 255;
      // Brightest at one corner, `light` at the opposite one; the gutter side darkens over a tenth of the width.
      const fx = corner ? x / width : 1 - x / width;
      const light = spec.light + (1 - spec.light) * (0.55 * fx + 0.45 * (1 - y / height));
      const fromGutter = (gutterLeft ? x : width - x) / width;
      const shade = 1 - spec.shadow * Math.exp(-fromGutter / 0.08);
      const noise = normal(random) * 2.4;
      for (let c = 0; c < 3; c++) {
        const surface = (PAPER[c] * (1 - t) + INK[c] * t) * (1 - d) + DESK[c] * d;
        rgb[o * 3 + c] = Math.max(0, Math.min(255, Math.round(surface * light * shade + noise)));
      }
    }
  }
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
}

/** Make the corpus in `out`; returns its description (also written to `corpus.json`). */
export async function makeQualityCorpus(out, options = {}) {
  const degradations = options.only ? DEGRADATIONS.filter((d) => options.only.includes(d.name)) : DEGRADATIONS;
  const fonts = new Map();
  for (const family of new Set(QUALITY_PAGES.map((p) => p.font))) {
    const text = QUALITY_PAGES.flatMap((p) => [...p.paragraphs, ...Object.values(p.notes), ...(p.title ?? []), p.runningHead]).join('');
    const chars = [...new Set([...text, ...'0123456789. ', ...SUPERSCRIPTS])];
    fonts.set(family, { advances: await measureAdvances(chars, { family }), xRatio: await xHeightRatio(family) });
  }
  const corpus = { degradations: [] };
  for (const spec of degradations) {
    mkdirSync(join(out, spec.name), { recursive: true });
    const pages = [];
    for (const [k, page] of QUALITY_PAGES.entries()) {
      const random = prng(spec.seed * 100 + k);
      const font = fonts.get(page.font);
      const fontPx = spec.xHeight / font.xRatio;
      const layout = typeset(page, fontPx, font.advances);
      const rendered = await renderPage(layout, page.font);
      // Odd pages (recto) have the gutter on their left.
      const gutterLeft = page.folio % 2 === 1;
      const shot = photograph(rendered, layout, spec, fontPx, random, gutterLeft);
      const width = Math.round(shot.width / SUPERSAMPLE);
      const height = Math.round(shot.height / SUPERSAMPLE);
      const planes = await toCamera(shot, spec.blur, width, height);
      const file = `${spec.name}/${page.id}.jpg`;
      writeFileSync(join(out, file), await develop(planes, width, height, spec, random, gutterLeft));
      pages.push({ id: page.id, file, language: page.language, font: page.font, lines: layout.truth });
    }
    corpus.degradations.push({ ...spec, pages });
  }
  writeFileSync(join(out, 'corpus.json'), JSON.stringify(corpus, null, 1));
  return corpus;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const out = at('--out');
  if (!out) {
    console.error('usage: node scripts/quality-corpus.mjs --out <dir> [--only x8,x10]');
    process.exit(2);
  }
  const t0 = performance.now();
  const corpus = await makeQualityCorpus(out, { only: at('--only')?.split(',') });
  console.log(`wrote ${corpus.degradations.reduce((n, d) => n + d.pages.length, 0)} pages to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
