// npm run make:sample — builds the project's own example scan bundle: three synthetic webcam captures of
// an open book (examples/sample.aglbundle) and the truth about what is printed in them
// (examples/sample.truth.json). Everything is synthetic and reproducible byte for byte: the text is
// public-domain prose (scripts/sample-text.mjs), the font is DejaVu Serif, every random choice comes from
// a seeded PRNG, and the zip carries fixed timestamps.
//
//   node scripts/make-sample.mjs [--out <dir>] [--preview <dir>]
//
// --out      where sample.aglbundle and sample.truth.json go (default: examples/ beside this script)
// --preview  also write each frame as PNG there, to look at
//
// How a frame is made: each page is typeset (our own line breaking and justification, from glyph advances
// measured on the installed font) and rendered by sharp from an SVG; the two pages, the stacked edges of the
// pages below and the cover make a flat "spread". A camera model then maps every frame pixel back onto the
// spread (inverse mapping, bilinear sampling): the page surface rises from the gutter (curl: lines bend
// and crowd toward the gutter), a pinhole seen from above magnifies what is higher, and a homography
// adds the tilt, keystone and roll of a hand-placed webcam. Light, the desk, fingers, blur and sensor noise
// come last. The truth boxes are taken from the warped ink itself, so they are exact for this warp.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import yazl from 'yazl';
import { BOOKS, PROJECT_TITLE } from './sample-text.mjs';
import { breakLines, escapeXml, justify, measureAdvances as measureFontAdvances, normal, prng, textWidth } from './typeset.mjs';

const FRAME = { width: 1920, height: 1080, jpegQuality: 85 };

/** A page of the book at its rendering resolution (5.1 × 7 in at 140 dpi). */
const PAGE = {
  dpi: 140,
  width: 714,
  height: 980,
  inner: 64, // margin at the gutter
  outer: 84,
  runningHeadBaseline: 56,
  firstBaseline: 98,
  lastBaseline: 890, // of the body, or of the last footnote line
  folioBaseline: 936,
  sinkBaseline: 176, // the chapter title on a chapter's first page
};

const TYPE = {
  body: { size: 15.5, lead: 20.5, indent: 22 },
  runningHead: { size: 13.5 },
  folio: { size: 13.5 },
  chapter: { size: 19 },
  subtitle: { size: 14.5, lead: 19.5 },
  note: { size: 12, lead: 15.5, gap: 16 },
};

const FONT_FAMILY = 'DejaVu Serif';
const SUPERSCRIPT_DIGITS = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/** The flat spread around the two pages: stacked page edges outside each page, then the cover board. */
const SPREAD = { bandLeft: 26, bandRight: 16, cover: 8 };

const COLOURS = {
  paper: [246, 241, 229],
  ink: [36, 33, 32],
  cover: [62, 44, 40],
  skin: [226, 176, 150],
  nail: [234, 194, 180],
  wood: [98, 66, 42],
};

/**
 * How each frame was "taken": which spread, and how the camera, the book surface, the light and the
 * hand differ. Angles in degrees; keystone > 0 makes the top of the book look narrower (camera low);
 * yaw > 0 makes the left edge look taller.
 */
const FRAMES = [
  {
    book: 0,
    spread: 0,
    seed: 11,
    captured: '2025-03-14T10:21:05Z',
    camera: { roll: -1.4, keystone: 0.03, yaw: 0.012, scale: 0.985, dx: -12, dy: 6, height: 3000 },
    surface: { left: { rise: 66, reach: 52, bulge: 9 }, right: { rise: 58, reach: 44, bulge: 7 } },
    light: { dimCorner: [0, 1], strength: 0.36 },
    fingers: [{ page: 'left', at: 0.58, angle: -7 }],
  },
  {
    book: 0,
    spread: 1,
    seed: 23,
    captured: '2025-03-14T10:21:19Z',
    camera: { roll: 2.1, keystone: 0.022, yaw: -0.015, scale: 0.97, dx: 14, dy: -4, height: 3000 },
    surface: { left: { rise: 60, reach: 46, bulge: 8 }, right: { rise: 64, reach: 50, bulge: 10 } },
    light: { dimCorner: [0, 0], strength: 0.32 },
    fingers: [{ page: 'right', at: 0.46, angle: 9 }],
  },
  {
    book: 1,
    spread: 0,
    seed: 37,
    captured: '2025-03-14T10:23:42Z',
    camera: { roll: -2.6, keystone: 0.035, yaw: 0.008, scale: 0.95, dx: 4, dy: 8, height: 3000 },
    surface: { left: { rise: 72, reach: 56, bulge: 11 }, right: { rise: 55, reach: 40, bulge: 6 } },
    light: { dimCorner: [1, 1], strength: 0.32 },
    fingers: [
      { page: 'left', at: 0.4, angle: -4 },
      { page: 'left', at: 0.63, angle: -11 },
    ],
  },
];

const BUNDLE = {
  created: '2025-03-14T10:24:10Z',
  device: 'Synthetic webcam 1920x1080',
  // Zip entry times are DOS local times: built from local fields so every time zone writes the same bytes.
  entryTime: new Date(2025, 2, 14, 10, 24, 10),
};

// ---------------------------------------------------------------------------------------------------------
// Randomness and noise

function lattice(ix, iy, seed) {
  // murmur3's finaliser: neighbouring lattice points must not correlate, or the desk shows stripes.
  let h = Math.imul(ix, 374761393) ^ Math.imul(iy + 0x9e3779b9, 668265263) ^ Math.imul(seed, 1274126177);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Smooth value noise in [0, 1). */
function valueNoise(x, y, seed) {
  const ix = Math.floor(x);
  const iy = Math.floor(y);
  const fx = x - ix;
  const fy = y - iy;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const a = lattice(ix, iy, seed);
  const b = lattice(ix + 1, iy, seed);
  const c = lattice(ix, iy + 1, seed);
  const d = lattice(ix + 1, iy + 1, seed);
  return a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy;
}

/** Fractal noise: octaves of value noise, in [0, 1). */
function fbm(x, y, seed, octaves) {
  let sum = 0;
  let amplitude = 0.5;
  let norm = 0;
  for (let o = 0; o < octaves; o++) {
    sum += amplitude * valueNoise(x, y, seed + o * 101);
    norm += amplitude;
    x *= 2;
    y *= 2;
    amplitude *= 0.5;
  }
  return sum / norm;
}

function clamp(v, lo, hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

function smoothstep(e0, e1, x) {
  const t = clamp((x - e0) / (e1 - e0), 0, 1);
  return t * t * (3 - 2 * t);
}

// ---------------------------------------------------------------------------------------------------------
// Font metrics: glyph advances measured on the font librsvg actually uses (scripts/typeset.mjs)

function measureAdvances(chars, italic) {
  return measureFontAdvances(chars, { family: FONT_FAMILY, italic });
}

// ---------------------------------------------------------------------------------------------------------
// Typesetting

/** Split a paragraph into words (at ordinary spaces only), turning footnote calls `[n]` into superscripts. */
function toWords(text) {
  return text.split(' ').map((raw) => {
    const notes = [...raw.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    const word = raw.replace(/\[(\d+)\]/g, (_, n) => [...n].map((d) => SUPERSCRIPT_DIGITS[Number(d)]).join(''));
    return { text: word, notes };
  });
}

function centred(text, left, width, advances, size) {
  return [{ x: left + (width - textWidth(text, advances, size)) / 2, text }];
}

/** A page's printed column, from its side (the wider margin is outside). */
function column(side) {
  const left = side === 'left' ? PAGE.outer : PAGE.inner;
  return { left, width: PAGE.width - PAGE.inner - PAGE.outer };
}

/**
 * Typeset a book into `pageCount` pages. Returns, per page, what to draw (runs of words with their
 * positions) and what a reader would transcribe (running head, body paragraphs, footnotes).
 */
function typesetBook(book, fonts) {
  const { regular, italic } = fonts;
  const measure = column('left').width;
  const noteLines = new Map();
  for (const [n, text] of Object.entries(book.notes)) {
    const words = toWords(`${n}. ${text}`);
    noteLines.set(Number(n), { text: `${n}. ${text}`, lines: breakLines(words, measure, 0, regular, TYPE.note.size) });
  }
  const notesHeight = (notes) => {
    if (notes.length === 0) return 0;
    const lines = notes.reduce((sum, n) => sum + noteLines.get(n).lines.length, 0);
    return TYPE.note.gap + lines * TYPE.note.lead;
  };

  const pages = [];
  let page = null;
  const openPage = () => {
    if (pages.length === book.pageCount) return false;
    const number = book.firstPage + pages.length;
    page = {
      number,
      side: number % 2 === 0 ? 'left' : 'right',
      runs: [],
      rules: [],
      paragraphs: [],
      notes: [],
      chapter: null,
      y: PAGE.firstBaseline,
      empty: true,
    };
    pages.push(page);
    return true;
  };
  openPage();

  const flow = book.chapters.flatMap((chapter, c) => [
    { kind: 'heading', chapter: c, lines: chapter.heading },
    ...chapter.paragraphs.map((text, i) => ({ kind: 'paragraph', chapter: c, text, indent: i > 0 })),
  ]);

  flowing: for (const block of flow) {
    if (block.kind === 'heading') {
      const subtitleLines = block.lines.slice(1).flatMap((t) => breakLines(toWords(t), measure * 0.84, 0, italic, TYPE.subtitle.size));
      const height = 30 + subtitleLines.length * TYPE.subtitle.lead + 4 * TYPE.body.lead;
      if (!page.empty && page.y + TYPE.body.lead + height > PAGE.lastBaseline - notesHeight(page.notes)) {
        if (!openPage()) break;
      }
      const { left, width } = column(page.side);
      let y = page.empty && pages.length === 1 ? PAGE.sinkBaseline : page.y + TYPE.body.lead;
      if (page.chapter === null) page.chapter = block.chapter;
      page.runs.push({ y, size: TYPE.chapter.size, italic: false, words: centred(block.lines[0], left, width, regular, TYPE.chapter.size) });
      page.paragraphs.push(block.lines[0]);
      for (const line of subtitleLines) {
        y += line === subtitleLines[0] ? 30 : TYPE.subtitle.lead;
        const text = line.words.map((w) => w.text).join(' ');
        page.runs.push({ y, size: TYPE.subtitle.size, italic: true, words: centred(text, left, width, italic, TYPE.subtitle.size) });
      }
      if (subtitleLines.length > 0) page.paragraphs.push(subtitleLines.map((l) => l.words.map((w) => w.text).join(' ')).join(' '));
      page.y = y + 2 * TYPE.body.lead; // back on the baseline grid of the body
      page.empty = false;
      continue;
    }
    const lines = breakLines(toWords(block.text), measure, block.indent ? TYPE.body.indent : 0, regular, TYPE.body.size);
    let started = false; // has this paragraph begun on the current page?
    for (const line of lines) {
      const notes = [...new Set([...page.notes, ...line.words.flatMap((w) => w.notes)])];
      if (page.y > PAGE.lastBaseline - notesHeight(notes)) {
        if (!openPage()) break flowing;
        started = false;
      }
      if (page.chapter === null) page.chapter = block.chapter;
      for (const w of line.words) for (const n of w.notes) if (!page.notes.includes(n)) page.notes.push(n);
      const { left, width } = column(page.side);
      page.runs.push({ y: page.y, size: TYPE.body.size, italic: false, words: justify(line, left, width, regular, TYPE.body.size) });
      const text = line.words.map((w) => w.text).join(' ');
      if (started) page.paragraphs[page.paragraphs.length - 1] += ` ${text}`;
      else page.paragraphs.push(text);
      started = true;
      page.y += TYPE.body.lead;
      page.empty = false;
    }
  }
  if (pages.length < book.pageCount) throw new Error(`${book.title}: not enough text for ${book.pageCount} pages`);

  return pages.map((p) => finishPage(p, book, noteLines, fonts));
}

/** Add running head, footnotes (stacked up from the bottom of the column) and folio to a page. */
function finishPage(page, book, noteLines, { regular, italic }) {
  const { left, width } = column(page.side);
  const runningHead = page.side === 'left' ? book.title : book.chapters[page.chapter].runningHead;
  const runs = [...page.runs];
  runs.push({
    y: PAGE.runningHeadBaseline,
    size: TYPE.runningHead.size,
    italic: true,
    words: centred(runningHead, left, width, italic, TYPE.runningHead.size),
  });
  runs.push({ y: PAGE.folioBaseline, size: TYPE.folio.size, italic: false, words: centred(String(page.number), left, width, regular, TYPE.folio.size) });
  const noteRuns = page.notes.flatMap((n) => noteLines.get(n).lines);
  let y = PAGE.lastBaseline - (noteRuns.length - 1) * TYPE.note.lead;
  const rules = [];
  if (noteRuns.length > 0) rules.push({ x: left, y: y - TYPE.note.size - 6, width: 64, height: 1 });
  for (const line of noteRuns) {
    runs.push({ y, size: TYPE.note.size, italic: false, words: justify(line, left, width, regular, TYPE.note.size) });
    y += TYPE.note.lead;
  }
  return {
    number: page.number,
    side: page.side,
    runningHead,
    text: page.paragraphs.join('\n\n'),
    footnotes: page.notes.map((n) => noteLines.get(n).text),
    runs,
    rules,
  };
}

function pageSvg(page) {
  const runs = page.runs.map((run) => {
    const style = run.italic ? ' font-style="italic"' : '';
    const spans = run.words.map((w) => `<tspan x="${w.x.toFixed(2)}">${escapeXml(w.text)}</tspan>`).join('');
    return `<text y="${run.y}" font-size="${run.size}"${style}>${spans}</text>`;
  });
  const rules = page.rules.map((r) => `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}" height="${PAGE.height}"><rect width="100%" height="100%" fill="#fff"/><g font-family="${FONT_FAMILY}" fill="#000">${runs.join('')}${rules.join('')}</g></svg>`;
}

/** Ink coverage of a rendered page: 0 = bare paper, 255 = solid ink. */
async function renderInk(page) {
  const { data, info } = await sharp(Buffer.from(pageSvg(page)))
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1 || info.width !== PAGE.width || info.height !== PAGE.height) throw new Error('unexpected page raster');
  const ink = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) ink[i] = 255 - data[i];
  return ink;
}

// ---------------------------------------------------------------------------------------------------------
// The flat spread: two pages, the stacked edges of the pages beneath, the cover board

/**
 * Colour, coverage and ink of the open book laid flat, in "flat" pixels (page pixels; x runs across
 * both pages). The gutter is at `gutterX`.
 */
function buildSpread(leftInk, rightInk, seed) {
  const random = prng(seed);
  const { bandLeft, bandRight, cover } = SPREAD;
  const width = cover + bandLeft + 2 * PAGE.width + bandRight + cover;
  const height = cover + PAGE.height + cover;
  const size = width * height;
  const red = new Float32Array(size);
  const green = new Float32Array(size);
  const blue = new Float32Array(size);
  const alpha = new Float32Array(size); // 1 inside the book
  const ink = new Uint8Array(size);
  const leftPageX = cover + bandLeft;
  const gutterX = leftPageX + PAGE.width;
  const rightEdgeX = gutterX + PAGE.width;

  // Each column of a page-edge band is the fore-edge of one or two sheets: slightly different greys, with
  // darker gaps, and the deeper sheets start a little lower and stop a little higher.
  const bandColumn = (k) => ({ tone: 0.86 - 0.007 * k + (random() - 0.5) * 0.07 - (random() < 0.22 ? 0.12 : 0), inset: k * 0.45 + random() * 1.5 });
  const leftBand = Array.from({ length: bandLeft }, (_, k) => bandColumn(k));
  const rightBand = Array.from({ length: bandRight }, (_, k) => bandColumn(k));
  const paperSeed = seed * 7 + 3;

  for (let y = 0; y < height; y++) {
    const py = y - cover;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      alpha[i] = 1;
      let rgb = COLOURS.cover;
      let tone = 1;
      let inkValue = 0;
      const onPageRows = py >= 0 && py < PAGE.height;
      if (onPageRows && x >= leftPageX && x < rightEdgeX) {
        const onLeft = x < gutterX;
        const px = onLeft ? x - leftPageX : x - gutterX;
        inkValue = (onLeft ? leftInk : rightInk)[py * PAGE.width + px];
        // Paper is not perfectly even: a faint blotchy tone and fibres.
        tone = 0.985 + 0.03 * (fbm(x / 90, y / 90, paperSeed, 3) - 0.5) + 0.012 * (lattice(x, y, paperSeed) - 0.5);
        // The crease of the gutter.
        const fromGutter = Math.abs(x + 0.5 - gutterX);
        if (fromGutter < 2) tone *= 0.8 + 0.1 * fromGutter;
        rgb = COLOURS.paper;
      } else if (x >= cover && x < leftPageX) {
        const band = leftBand[leftPageX - 1 - x];
        if (py >= band.inset && py < PAGE.height - band.inset) {
          rgb = COLOURS.paper;
          tone = band.tone;
        }
      } else if (x >= rightEdgeX && x < rightEdgeX + bandRight) {
        const band = rightBand[x - rightEdgeX];
        if (py >= band.inset && py < PAGE.height - band.inset) {
          rgb = COLOURS.paper;
          tone = band.tone;
        }
      }
      const k = inkValue / 255;
      red[i] = rgb[0] * tone * (1 - k) + COLOURS.ink[0] * k;
      green[i] = rgb[1] * tone * (1 - k) + COLOURS.ink[1] * k;
      blue[i] = rgb[2] * tone * (1 - k) + COLOURS.ink[2] * k;
      ink[i] = inkValue;
    }
  }
  return {
    width,
    height,
    red,
    green,
    blue,
    alpha,
    ink,
    gutterX,
    pages: { left: { x: leftPageX, y: cover }, right: { x: gutterX, y: cover } },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The camera: curled page surface, pinhole magnification, homography

/** Height of the page surface above the gutter, at distance `d` from it (flat pages rise from the spine). */
function surfaceHeight(side, d) {
  return side.rise * (1 - Math.exp(-d / side.reach)) + side.bulge * Math.sin(Math.PI * clamp(d / PAGE.width, 0, 1));
}

/** Solve the 3×3 homography taking four points `from` to four points `to` (h33 = 1). */
function homography(from, to) {
  const a = [];
  from.forEach(([x, y], i) => {
    const [u, v] = to[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  });
  for (let c = 0; c < 8; c++) {
    let pivot = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k];
    }
  }
  return [...a.map((row, i) => row[8] / row[i]), 1];
}

function applyHomography(h, x, y) {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

/**
 * The camera of one frame. Desk coordinates are flat coordinates with the curl undone; the pinhole,
 * above the gutter at `camera.height`, magnifies a point of height h by height / (height - h) around
 * (gutterX, middle of the book); the homography then places that picture in the frame.
 *
 * Returns lookup tables indexed by the pinhole picture's x (step 1/4 px) giving the flat x, the
 * magnification and the shading of the surface there, plus the two homographies.
 */
function makeCamera(spec, spread) {
  const { camera, surface } = spec;
  const gx = spread.gutterX;
  const cy = spread.height / 2;
  const D = camera.height;
  const step = 0.25;
  const margin = 240;
  const x0 = -margin;
  const n = Math.ceil((spread.width + 2 * margin) / step) + 1;
  const deskX = new Float64Array(n);
  const height = new Float64Array(n);
  const slope = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const X = x0 + i * step;
    const d = X - gx;
    const side = d < 0 ? surface.left : surface.right;
    deskX[i] = X;
    height[i] = surfaceHeight(side, Math.abs(d));
    const dh = surfaceHeight(side, Math.abs(d) + 0.01) - height[i];
    slope[i] = ((Math.sign(d) || 1) * dh) / 0.01;
  }
  // Arc length along the surface from the gutter: the flat x of each desk x.
  const flatX = new Float64Array(n);
  const g = Math.round((gx - x0) / step);
  flatX[g] = gx;
  for (let i = g + 1; i < n; i++) flatX[i] = flatX[i - 1] + step * Math.sqrt(1 + slope[i] * slope[i]);
  for (let i = g - 1; i >= 0; i--) flatX[i] = flatX[i + 1] - step * Math.sqrt(1 + slope[i] * slope[i]);
  const pictureX = new Float64Array(n);
  for (let i = 0; i < n; i++) pictureX[i] = gx + ((deskX[i] - gx) * D) / (D - height[i]);
  for (let i = 1; i < n; i++) if (pictureX[i] <= pictureX[i - 1]) throw new Error('camera model folds over');

  // Light from the upper left and above: the slope down into the gutter on the left page faces away.
  const light = [-0.35, -0.2, 1];
  const lightNorm = Math.hypot(...light);
  const shadeAt = (i) => {
    const s = slope[i];
    const lambert = (-s * light[0] + light[2]) / Math.sqrt(1 + s * s) / lightNorm;
    const flat = light[2] / lightNorm;
    const d = Math.abs(deskX[i] - gx);
    const occlusion = 1 - 0.3 * Math.exp(-((d / 9) ** 2)) - 0.1 * Math.exp(-d / 40);
    return clamp(lambert / flat, 0.35, 1.15) * occlusion;
  };

  // Invert x ↦ pictureX on a regular grid of picture x.
  const p0 = pictureX[0];
  const m = Math.floor((pictureX[n - 1] - p0) / step);
  const tableFlatX = new Float32Array(m);
  const tableMagnification = new Float32Array(m);
  const tableShade = new Float32Array(m);
  let j = 0;
  for (let k = 0; k < m; k++) {
    const p = p0 + k * step;
    while (j < n - 2 && pictureX[j + 1] <= p) j++;
    const t = (p - pictureX[j]) / (pictureX[j + 1] - pictureX[j]);
    tableFlatX[k] = flatX[j] + t * (flatX[j + 1] - flatX[j]);
    const h = height[j] + t * (height[j + 1] - height[j]);
    tableMagnification[k] = D / (D - h);
    tableShade[k] = shadeAt(t < 0.5 ? j : j + 1);
  }

  // Where the book lands in the frame: its rectangle, squeezed at the top (keystone), taller on one
  // side (yaw), rolled, scaled and shifted.
  const hw = spread.width / 2;
  const hh = spread.height / 2;
  const rad = (camera.roll * Math.PI) / 180;
  const corners = [
    [-hw * (1 - camera.keystone), -hh * (1 + camera.yaw)],
    [hw * (1 - camera.keystone), -hh * (1 - camera.yaw)],
    [hw * (1 + camera.keystone), hh * (1 - camera.yaw)],
    [-hw * (1 + camera.keystone), hh * (1 + camera.yaw)],
  ].map(([x, y]) => [
    FRAME.width / 2 + camera.dx + camera.scale * (x * Math.cos(rad) - y * Math.sin(rad)),
    FRAME.height / 2 + camera.dy + camera.scale * (x * Math.sin(rad) + y * Math.cos(rad)),
  ]);
  const rect = [
    [0, 0],
    [spread.width, 0],
    [spread.width, spread.height],
    [0, spread.height],
  ];
  const toFrame = homography(rect, corners);
  const fromFrame = homography(corners, rect);

  /** Frame position of a flat point (used to place fingers and to measure the effective dpi). */
  const flatToFrame = (fx, fy) => {
    let i = 0;
    while (i < n - 2 && flatX[i + 1] < fx) i++;
    const t = clamp((fx - flatX[i]) / (flatX[i + 1] - flatX[i]), 0, 1);
    const px = pictureX[i] + t * (pictureX[i + 1] - pictureX[i]);
    const h = height[i] + t * (height[i + 1] - height[i]);
    const py = cy + ((fy - cy) * D) / (D - h);
    return applyHomography(toFrame, px, py);
  };

  return { p0, step, tableFlatX, tableMagnification, tableShade, fromFrame, flatToFrame, cy };
}

// ---------------------------------------------------------------------------------------------------------
// The frame

/** A dark wooden desk: horizontal grain and growth rings, rendered at half size and enlarged. */
async function renderDesk(seed, shiftX, shiftY) {
  const w = FRAME.width / 2;
  const h = FRAME.height / 2;
  const rgb = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const X = x + shiftX;
      const Y = y + shiftY;
      // Grain lines wander a little; rings are broad, soft bands; blotches are uneven stain.
      const wander = Y + 26 * fbm(X / 210, Y / 60, seed + 5, 3);
      const rings = 0.5 + 0.5 * Math.sin(wander * 0.11 + 5 * fbm(X / 500, Y / 300, seed + 9, 2));
      const streaks = fbm(X / 380, wander / 18, seed, 4);
      const grain = fbm(X / 55, wander / 2.2, seed + 3, 2);
      const blotch = fbm(X / 300, Y / 200, seed + 17, 3);
      const tone = 0.72 + 0.4 * (streaks - 0.5) + 0.16 * (grain - 0.5) + 0.12 * rings ** 4 + 0.3 * (blotch - 0.5);
      const i = (y * w + x) * 3;
      rgb[i] = clamp(COLOURS.wood[0] * tone, 0, 255);
      rgb[i + 1] = clamp(COLOURS.wood[1] * tone * (0.97 + 0.06 * blotch), 0, 255);
      rgb[i + 2] = clamp(COLOURS.wood[2] * tone * (0.95 + 0.1 * grain), 0, 255);
    }
  }
  return sharp(rgb, { raw: { width: w, height: h, channels: 3 } })
    .resize(FRAME.width, FRAME.height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
}

/** Light falling on the desk: broad, one corner dimmer, a little vignetting, warm. */
function lightAt(light, u, v) {
  const nx = u / FRAME.width;
  const ny = v / FRAME.height;
  const d = Math.hypot(nx - light.dimCorner[0], (ny - light.dimCorner[1]) * 0.75) / 1.25;
  const broad = 1 - light.strength * (1 - smoothstep(0, 0.85, d));
  const vignette = 1 - 0.22 * ((nx - 0.5) ** 2 + (ny - 0.5) ** 2);
  return broad * vignette;
}
const WARM = [0.95, 0.92, 0.86]; // warm lamp, a touch under-exposed like a webcam

/**
 * Map the spread into the frame: colour and coverage of the book at every frame pixel, and, per page,
 * the bounding box of the ink as it lands in the frame.
 */
function projectBook(spread, cam) {
  const W = FRAME.width;
  const H = FRAME.height;
  const colour = new Float32Array(W * H * 3);
  const cover = new Uint8Array(W * H);
  const boxes = [
    { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity },
    { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity },
  ];
  const h = cam.fromFrame;
  const sw = spread.width;
  const last = cam.tableFlatX.length - 1;
  for (let v = 0; v < H; v++) {
    for (let u = 0; u < W; u++) {
      const w = h[6] * u + h[7] * v + h[8];
      const px = (h[0] * u + h[1] * v + h[2]) / w;
      const py = (h[3] * u + h[4] * v + h[5]) / w;
      const t = (px - cam.p0) / cam.step;
      if (t < 0 || t >= last) continue;
      const k = Math.floor(t);
      const f = t - k;
      const fx = cam.tableFlatX[k] + f * (cam.tableFlatX[k + 1] - cam.tableFlatX[k]);
      const mag = cam.tableMagnification[k] + f * (cam.tableMagnification[k + 1] - cam.tableMagnification[k]);
      const fy = cam.cy + (py - cam.cy) / mag;
      if (fx < -1 || fy < -1 || fx >= sw || fy >= spread.height) continue;
      // Bilinear sampling, treating outside the spread as empty desk (coverage 0).
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const ax = fx - x0;
      const ay = fy - y0;
      let a = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      let ink = 0;
      for (let dy = 0; dy < 2; dy++) {
        const yy = y0 + dy;
        if (yy < 0 || yy >= spread.height) continue;
        const wy = dy === 0 ? 1 - ay : ay;
        for (let dx = 0; dx < 2; dx++) {
          const xx = x0 + dx;
          if (xx < 0 || xx >= sw) continue;
          const weight = wy * (dx === 0 ? 1 - ax : ax);
          const i = yy * sw + xx;
          a += weight * spread.alpha[i];
          r += weight * spread.red[i];
          g += weight * spread.green[i];
          b += weight * spread.blue[i];
          ink += weight * spread.ink[i];
        }
      }
      if (a <= 0) continue;
      const shade = cam.tableShade[k];
      const o = (v * W + u) * 3;
      colour[o] = (r / a) * shade;
      colour[o + 1] = (g / a) * shade;
      colour[o + 2] = (b / a) * shade;
      cover[v * W + u] = Math.round(a * 255);
      if (ink > 64) {
        const box = boxes[fx < spread.gutterX ? 0 : 1];
        if (u < box.minX) box.minX = u;
        if (u > box.maxX) box.maxX = u;
        if (v < box.minY) box.minY = v;
        if (v > box.maxY) box.maxY = v;
      }
    }
  }
  return { colour, cover, boxes };
}

/**
 * A finger pressing the outer margin of a page: a tapered capsule from `base` to `tip`, shaded as a
 * cylinder lit from the upper left, with a nail and two creases, casting a soft shadow.
 */
function drawFinger(colour, finger) {
  const W = FRAME.width;
  const H = FRAME.height;
  const [ax, ay] = finger.base;
  const [bx, by] = finger.tip;
  const length = Math.hypot(bx - ax, by - ay);
  const dirX = (bx - ax) / length;
  const dirY = (by - ay) / length;
  const rBase = 31;
  const rTip = 27;
  const light = [-0.3, -0.55, 0.78];
  const shadowShift = [9, 13];
  const pad = rBase + 30;
  const u0 = Math.max(0, Math.floor(Math.min(ax, bx) - pad));
  const u1 = Math.min(W - 1, Math.ceil(Math.max(ax, bx) + pad));
  const v0 = Math.max(0, Math.floor(Math.min(ay, by) - pad));
  const v1 = Math.min(H - 1, Math.ceil(Math.max(ay, by) + pad));
  const along = (x, y) => clamp((x - ax) * dirX + (y - ay) * dirY, 0, length);
  const radius = (s) => rBase + (rTip - rBase) * (s / length);
  for (let v = v0; v <= v1; v++) {
    for (let u = u0; u <= u1; u++) {
      const o = (v * W + u) * 3;
      // Shadow first: the same capsule, shifted away from the light, with a soft edge.
      const sx = u - shadowShift[0];
      const sy = v - shadowShift[1];
      const ss = along(sx, sy);
      const sd = Math.hypot(sx - (ax + dirX * ss), sy - (ay + dirY * ss));
      const shadow = 0.45 * smoothstep(radius(ss) + 16, radius(ss) - 10, sd);
      let r = colour[o] * (1 - shadow);
      let g = colour[o + 1] * (1 - shadow);
      let b = colour[o + 2] * (1 - shadow);

      const s = along(u, v);
      const qx = ax + dirX * s;
      const qy = ay + dirY * s;
      const rad = radius(s);
      const nx = (u - qx) / rad;
      const ny = (v - qy) / rad;
      const dist = Math.hypot(nx, ny);
      const coverage = clamp((1 - dist) * rad + 0.5, 0, 1);
      if (coverage > 0) {
        const nz = Math.sqrt(Math.max(0, 1 - dist * dist));
        const lambert = Math.max(0, nx * light[0] + ny * light[1] + nz * light[2]);
        const specular = 0.1 * Math.pow(Math.max(0, 2 * nz * (nx * light[0] + ny * light[1] + nz * light[2]) - light[2]), 10);
        let shade = 0.48 + 0.52 * lambert;
        // Creases across the finger at its joints.
        const across = Math.abs((u - qx) * -dirY + (v - qy) * dirX) / rad;
        for (const joint of [length - 78, length - 160]) shade *= 1 - 0.07 * Math.exp(-(((s - joint) / 2.6) ** 2)) * (across < 0.85 ? 1 : 0);
        // The nail: an ellipse near the tip, on top of the finger.
        const ns = ((u - ax) * dirX + (v - ay) * dirY - (length - 4)) / 24;
        const nailD = ns * ns + (across / 0.6) ** 2;
        let base = COLOURS.skin;
        if (nailD < 1) {
          const edge = smoothstep(0.75, 1, nailD);
          const freeEdge = smoothstep(0.55, 0.95, ns) * 0.5;
          base = COLOURS.nail.map((c, i) => (c + (250 - c) * freeEdge) * (1 - edge) + COLOURS.skin[i] * 0.93 * edge);
        }
        const fr = base[0] * (0.3 + 0.7 * shade) + 255 * specular;
        const fg = base[1] * Math.pow(shade, 1.12) + 235 * specular;
        const fb = base[2] * Math.pow(shade, 1.25) + 220 * specular;
        r = r * (1 - coverage) + fr * coverage;
        g = g * (1 - coverage) + fg * coverage;
        b = b * (1 - coverage) + fb * coverage;
      }
      colour[o] = r;
      colour[o + 1] = g;
      colour[o + 2] = b;
    }
  }
}

/** Where a finger goes: its tip on the outer margin of a page, its base 220 px back, off the book. */
function placeFinger(finger, spread, cam) {
  const page = spread.pages[finger.page];
  const y = page.y + finger.at * PAGE.height;
  const inset = 34;
  const x = finger.page === 'left' ? page.x + inset : page.x + PAGE.width - inset;
  const tip = cam.flatToFrame(x, y);
  const rad = (finger.angle * Math.PI) / 180;
  const outward = finger.page === 'left' ? -1 : 1;
  // The hand is outside the picture: the finger reaches in from the frame's edge.
  const toEdge = (finger.page === 'left' ? tip[0] : FRAME.width - tip[0]) / Math.cos(rad);
  const length = Math.max(220, toEdge + 60);
  const base = [tip[0] + outward * length * Math.cos(rad), tip[1] - outward * length * Math.sin(rad)];
  return { base, tip };
}

async function renderFrame(spec, pages, pageInk) {
  const spread = buildSpread(pageInk[0], pageInk[1], spec.seed);
  const cam = makeCamera(spec, spread);
  const book = projectBook(spread, cam);
  const W = FRAME.width;
  const H = FRAME.height;

  // The book's shadow on the desk: its coverage, blurred and shifted away from the light.
  const shadowMask = await sharp(Buffer.from(book.cover), { raw: { width: W, height: H, channels: 1 } })
    .blur(16)
    .extractChannel(0)
    .raw()
    .toBuffer();
  if (shadowMask.length !== W * H) throw new Error('unexpected shadow mask');
  const desk = await renderDesk(spec.seed, spec.camera.dx * 0.5, spec.camera.dy * 0.5);
  const colour = book.colour;
  for (let v = 0; v < H; v++) {
    for (let u = 0; u < W; u++) {
      const i = v * W + u;
      const o = i * 3;
      const a = book.cover[i] / 255;
      const su = Math.min(W - 1, Math.max(0, u - 10));
      const sv = Math.min(H - 1, Math.max(0, v - 14));
      const shadow = 1 - 0.55 * (shadowMask[sv * W + su] / 255);
      for (let c = 0; c < 3; c++) colour[o + c] = colour[o + c] * a + desk[o + c] * shadow * (1 - a);
    }
  }
  for (const finger of spec.fingers) drawFinger(colour, placeFinger(finger, spread, cam));

  const rgb = Buffer.alloc(W * H * 3);
  for (let v = 0; v < H; v++) {
    for (let u = 0; u < W; u++) {
      const l = lightAt(spec.light, u, v);
      const o = (v * W + u) * 3;
      for (let c = 0; c < 3; c++) rgb[o + c] = clamp(Math.round(colour[o + c] * l * WARM[c]), 0, 255);
    }
  }
  // Optics first (a slightly soft lens), then the sensor's noise, then the JPEG encoder.
  const soft = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
    .blur(0.8)
    .raw()
    .toBuffer();
  const random = prng(spec.seed * 1000 + 1);
  for (let i = 0; i < W * H; i++) {
    const o = i * 3;
    const luma = normal(random) * 2.2;
    for (let c = 0; c < 3; c++) soft[o + c] = clamp(Math.round(soft[o + c] + luma + normal(random) * 1.1), 0, 255);
  }
  const jpeg = await sharp(soft, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: FRAME.jpegQuality })
    .toBuffer();

  const truthPages = pages.map((page, p) => {
    const box = book.boxes[p];
    const side = p === 0 ? 'left' : 'right';
    const origin = spread.pages[side];
    const printed = printedRows(pageInk[p]);
    const midX = origin.x + PAGE.width / 2;
    const [tx, ty] = cam.flatToFrame(midX, origin.y + printed.top);
    const [bx, by] = cam.flatToFrame(midX, origin.y + printed.bottom);
    const dpi = (PAGE.dpi * Math.hypot(bx - tx, by - ty)) / (printed.bottom - printed.top);
    return {
      side,
      number: page.number,
      runningHead: page.runningHead,
      text: page.text,
      footnotes: page.footnotes,
      textBox: { x: box.minX, y: box.minY, width: box.maxX - box.minX + 1, height: box.maxY - box.minY + 1 },
      dpi: Math.round(dpi * 10) / 10,
    };
  });
  const gutter = [cam.flatToFrame(spread.gutterX, 0), cam.flatToFrame(spread.gutterX, spread.height / 2), cam.flatToFrame(spread.gutterX, spread.height)];
  return { jpeg, soft, pages: truthPages, gutter };
}

/** First and last rows of a page that carry ink. */
function printedRows(ink) {
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < PAGE.height; y++) {
    for (let x = 0; x < PAGE.width; x++) {
      if (ink[y * PAGE.width + x] > 64) {
        if (top < 0) top = y;
        bottom = y;
        break;
      }
    }
  }
  return { top, bottom };
}

// ---------------------------------------------------------------------------------------------------------
// Bundle and truth

function zipBundle(entries) {
  return new Promise((resolvePromise, reject) => {
    const zip = new yazl.ZipFile();
    for (const { name, data } of entries) {
      // JPEGs are already compressed: store them.
      zip.addBuffer(data, name, { mtime: BUNDLE.entryTime, forceDosTimestamp: true, mode: 0o100644, compress: !name.endsWith('.jpg') });
    }
    zip.end();
    const chunks = [];
    zip.outputStream.on('data', (c) => chunks.push(c));
    zip.outputStream.on('end', () => resolvePromise(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

function parseArgs(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  const options = { out: join(here, '..', 'examples'), preview: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') options.out = resolve(argv[++i]);
    else if (argv[i] === '--preview') options.preview = resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (use --out <dir>, --preview <dir>)`);
  }
  return options;
}

async function main() {
  const started = Date.now();
  const options = parseArgs(process.argv.slice(2));
  const allText = BOOKS.flatMap((b) => [
    b.title,
    ...Object.entries(b.notes).map(([n, t]) => `${n}. ${t}`),
    ...b.chapters.flatMap((c) => [...c.heading, c.runningHead, ...c.paragraphs]),
  ]).join(' ');
  const chars = [...new Set([...allText, ...'0123456789 ', ...SUPERSCRIPT_DIGITS])].sort();
  const fonts = { regular: await measureAdvances(chars, false), italic: await measureAdvances(chars, true) };
  const books = BOOKS.map((book) => typesetBook(book, fonts));

  const images = [];
  const truthFrames = [];
  for (const [f, spec] of FRAMES.entries()) {
    const pages = books[spec.book].slice(spec.spread * 2, spec.spread * 2 + 2);
    if (pages.length !== 2 || pages[0].side !== 'left') throw new Error(`frame ${f + 1}: no spread ${spec.spread} in book ${spec.book}`);
    const pageInk = await Promise.all(pages.map(renderInk));
    const frame = await renderFrame(spec, pages, pageInk);
    const file = `images/${String(f + 1).padStart(4, '0')}.jpg`;
    images.push({ name: file, data: frame.jpeg, captured: spec.captured });
    truthFrames.push({
      file,
      gutterX: Math.round(frame.gutter[1][0] * 10) / 10,
      gutterLine: frame.gutter.map(([x, y]) => ({ x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 })),
      pages: frame.pages,
    });
    if (options.preview) {
      mkdirSync(options.preview, { recursive: true });
      await sharp(frame.jpeg)
        .png()
        .toFile(join(options.preview, `frame-${f + 1}.png`));
    }
  }

  const manifest = { format_version: 1, project: PROJECT_TITLE, created: BUNDLE.created, device: BUNDLE.device, page_count: images.length };
  const pagesJsonl =
    images.map((img, i) => JSON.stringify({ index: i + 1, file: img.name, captured: img.captured, w: FRAME.width, h: FRAME.height })).join('\n') + '\n';
  const bundle = await zipBundle([
    { name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') },
    { name: 'pages.jsonl', data: Buffer.from(pagesJsonl) },
    ...images.map((img) => ({ name: img.name, data: img.data })),
  ]);
  const truth = {
    about:
      'What is printed in examples/sample.aglbundle, made by scripts/make-sample.mjs. Boxes are frame pixels; text is the body of each page (chapter headings included, paragraphs separated by a blank line); dpi is the effective resolution of the page in the frame.',
    frames: truthFrames,
  };
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'sample.aglbundle'), bundle);
  writeFileSync(join(options.out, 'sample.truth.json'), JSON.stringify(truth, null, 2) + '\n');
  console.log(
    `wrote ${join(options.out, 'sample.aglbundle')} (${(bundle.length / 1024).toFixed(0)} KB) and sample.truth.json in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

await main();
