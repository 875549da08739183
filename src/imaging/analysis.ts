/**
 * Image-analysis primitives used to find text on a page: box-average downscaling, Otsu's threshold,
 * the local paper brightness, an ink mask, connected components, binary morphology, projections,
 * and grouping character-sized components into text lines. Pure functions over typed arrays.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import type { Box, GrayImage } from './gray.js';

/** A binary image: 1 = set, 0 = clear, row-major. */
export interface BinaryMask {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** One connected region of a mask: its bounding box and how many pixels it has. */
export interface Component extends Box {
  area: number;
}

/** Refuse an image whose pixels do not match its size (a decoding bug upstream), before any loop reads past it. */
export function assertImage(image: GrayImage): void {
  const { width, height, data } = image;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0 && data.length >= width * height)) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, 'A page image is empty or damaged.', `gray image ${width}x${height} with ${data.length} bytes`);
  }
}

/** Downscale by an integer factor, each output pixel the mean of a `factor`×`factor` block (edge remainder dropped). */
export function downscaleBox(image: GrayImage, factor: number): GrayImage {
  const f = Math.max(1, Math.floor(factor));
  if (f === 1) return image;
  const w = Math.max(1, Math.floor(image.width / f));
  const h = Math.max(1, Math.floor(image.height / f));
  const out = new Uint8Array(w * h);
  const sums = new Uint32Array(w);
  const area = f * f;
  const src = image.data;
  const stride = image.width;
  const rows = Math.min(f, image.height);
  for (let oy = 0; oy < h; oy++) {
    sums.fill(0);
    for (let dy = 0; dy < rows; dy++) {
      let sx = (oy * f + dy) * stride;
      if (f === 2) {
        // The common case (a 1920×1080 frame) unrolled: it is most of the cost of finding pages.
        for (let ox = 0; ox < w; ox++, sx += 2) sums[ox] += src[sx] + src[sx + 1];
      } else {
        for (let ox = 0; ox < w; ox++) {
          let s = 0;
          for (let dx = 0; dx < f; dx++) s += src[sx++];
          sums[ox] += s;
        }
      }
    }
    const o = oy * w;
    // The mean rounded half up; for 2×2 blocks a shift does the division (the same bytes, no float per pixel).
    if (f === 2) for (let ox = 0; ox < w; ox++) out[o + ox] = (sums[ox] + 2) >> 2;
    else for (let ox = 0; ox < w; ox++) out[o + ox] = (sums[ox] + (area >> 1)) / area;
  }
  return { width: w, height: h, data: out };
}

/**
 * Downscale by an integer factor keeping each block's brightest pixel. On a page this keeps the paper
 * level between letters and lines, so text vanishes while a darker background stays dark.
 */
export function downscaleMax(image: GrayImage, factor: number): GrayImage {
  const f = Math.max(1, Math.floor(factor));
  const w = Math.max(1, Math.ceil(image.width / f));
  const h = Math.max(1, Math.ceil(image.height / f));
  const out = new Uint8Array(w * h);
  const src = image.data;
  const width = image.width;
  for (let y = 0; y < image.height; y++) {
    const o = ((y / f) | 0) * w;
    const row = y * width;
    // Block by block along the row: no division per pixel.
    for (let x0 = 0, i = o; x0 < width; x0 += f, i++) {
      const end = row + Math.min(width, x0 + f);
      let m = out[i];
      for (let p = row + x0; p < end; p++) if (src[p] > m) m = src[p];
      out[i] = m;
    }
  }
  return { width: w, height: h, data: out };
}

/** Count of each grey level (256 bins). */
export function histogram(data: ArrayLike<number>): Uint32Array {
  const hist = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i] & 255]++;
  return hist;
}

/** Otsu's threshold of a 256-bin histogram: values `> t` are the light class. */
export function otsuThreshold(hist: ArrayLike<number>): number {
  let total = 0;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) {
    total += hist[i];
    sumAll += i * hist[i];
  }
  if (total === 0) return 127;
  let weightDark = 0;
  let sumDark = 0;
  let best = -1;
  let bestT = 127;
  for (let t = 0; t < 255; t++) {
    weightDark += hist[t];
    if (weightDark === 0) continue;
    const weightLight = total - weightDark;
    if (weightLight === 0) break;
    sumDark += t * hist[t];
    const meanDark = sumDark / weightDark;
    const meanLight = (sumAll - sumDark) / weightLight;
    const between = weightDark * weightLight * (meanDark - meanLight) ** 2;
    if (between > best) {
      best = between;
      bestT = t;
    }
  }
  return bestT;
}

/**
 * Resample a coarse grid (one value per `cell`×`cell` block) to `width`×`height` by bilinear interpolation
 * between cell centres, so thresholds derived per cell vary smoothly across the image.
 */
export function upsampleBilinear(grid: GrayImage, cell: number, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const gw = grid.width;
  const gh = grid.height;
  const g = grid.data;
  // Interpolate each grid row across once; every output row is then a blend of two of them.
  const across = new Float32Array(gh * width);
  for (let gy = 0; gy < gh; gy++) {
    const r = gy * gw;
    for (let x = 0; x < width; x++) {
      const gx = Math.min(gw - 1, Math.max(0, (x + 0.5) / cell - 0.5));
      const x0 = Math.floor(gx);
      const x1 = Math.min(gw - 1, x0 + 1);
      across[gy * width + x] = g[r + x0] + (g[r + x1] - g[r + x0]) * (gx - x0);
    }
  }
  for (let y = 0; y < height; y++) {
    const gy = Math.min(gh - 1, Math.max(0, (y + 0.5) / cell - 0.5));
    const y0 = Math.floor(gy);
    const fy = gy - y0;
    const a = y0 * width;
    const b = Math.min(gh - 1, y0 + 1) * width;
    const o = y * width;
    for (let x = 0; x < width; x++) out[o + x] = across[a + x] + (across[b + x] - across[a + x]) * fy + 0.5;
  }
  return out;
}

/**
 * The paper level around each pixel: the brightest 2×2 mean within each `cell`-sized block, interpolated.
 * Also returns the per-cell grid, which is what a paper/background decision should look at.
 */
export function paperLevel(image: GrayImage, cell: number): { grid: GrayImage; level: Uint8Array } {
  // Averaging 2×2 first keeps single noisy pixels from posing as paper.
  const half = Math.max(1, Math.floor(cell / 2));
  const grid = downscaleMax(downscaleBox(image, 2), half);
  const level = upsampleBilinear(grid, half * 2, image.width, image.height);
  return { grid, level };
}

/**
 * Ink: pixels clearly darker than the paper around them (by `fraction` of the paper level and at least
 * `minContrast` grey levels), restricted to `where` when given (same size as the image).
 */
export function inkMask(image: GrayImage, level: Uint8Array, options: { fraction?: number; minContrast?: number; where?: Uint8Array } = {}): BinaryMask {
  const { fraction = 0.2, minContrast = 18, where } = options;
  const n = image.width * image.height;
  const out = new Uint8Array(n);
  const src = image.data;
  for (let i = 0; i < n; i++) {
    if (where && where[i] === 0) continue;
    const p = level[i];
    const drop = Math.max(minContrast, p * fraction);
    if (src[i] < p - drop) out[i] = 1;
  }
  return { width: image.width, height: image.height, data: out };
}

/**
 * Connected regions (8-connected) of a mask, with a label image (0 = background, k+1 = components[k]); components are
 * numbered in the order of their first pixel, row by row. Labelled by runs: each run of set pixels takes the label
 * of the runs it touches in the row above (merged in a union-find, the earliest label kept), then one pass writes
 * the final labels and measures each region.
 */
export function connectedComponents(mask: BinaryMask): { labels: Int32Array; components: Component[] } {
  const { width: w, height: h, data } = mask;
  const labels = new Int32Array(w * h);
  let parent = new Int32Array(256);
  let next = 1;
  const root = (label: number): number => {
    let r = label;
    while (parent[r] !== r) r = parent[r];
    while (parent[label] !== r) {
      const up = parent[label];
      parent[label] = r;
      label = up;
    }
    return r;
  };
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let x = 0;
    while (x < w) {
      if (data[row + x] === 0) {
        x++;
        continue;
      }
      const start = x;
      while (x < w && data[row + x] !== 0) x++;
      let label = 0;
      if (y > 0) {
        const above = row - w;
        const last = x < w ? x : w - 1;
        for (let ax = start > 0 ? start - 1 : 0; ax <= last; ax++) {
          const l = labels[above + ax];
          if (l === 0) continue;
          const r = root(l);
          if (label === 0) label = r;
          else if (r < label) {
            parent[label] = r;
            label = r;
          } else if (r > label) parent[r] = label;
        }
      }
      if (label === 0) {
        if (next === parent.length) {
          const grown = new Int32Array(parent.length * 2);
          grown.set(parent);
          parent = grown;
        }
        parent[next] = next;
        label = next++;
      }
      labels.fill(label, row + start, row + x);
    }
  }
  // The earliest label of a region is its root, so numbering roots in label order numbers regions by first pixel.
  const final = new Int32Array(next);
  let count = 0;
  for (let l = 1; l < next; l++) final[l] = root(l) === l ? ++count : final[root(l)];
  const x0 = new Int32Array(count + 1).fill(w);
  const y0 = new Int32Array(count + 1).fill(h);
  const x1 = new Int32Array(count + 1).fill(-1);
  const y1 = new Int32Array(count + 1).fill(-1);
  const area = new Int32Array(count + 1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const l = labels[row + x];
      if (l === 0) continue;
      const k = final[l];
      labels[row + x] = k;
      area[k]++;
      if (x < x0[k]) x0[k] = x;
      if (x > x1[k]) x1[k] = x;
      if (y < y0[k]) y0[k] = y;
      y1[k] = y;
    }
  }
  const components: Component[] = [];
  for (let k = 1; k <= count; k++) components.push({ x: x0[k], y: y0[k], width: x1[k] - x0[k] + 1, height: y1[k] - y0[k] + 1, area: area[k] });
  return { labels, components };
}

/** Running max (dilate) or min (erode) of a mask over a (2rx+1)×(2ry+1) box, separable. */
function boxMorph(mask: BinaryMask, rx: number, ry: number, dilating: boolean): BinaryMask {
  const { width: w, height: h } = mask;
  const target = dilating ? 1 : 0;
  const pass = (src: Uint8Array, len: number, count: number, step: number, lineStep: number, r: number): Uint8Array => {
    const out = new Uint8Array(src.length).fill(1 - target);
    if (r <= 0) return src.slice();
    for (let l = 0; l < count; l++) {
      const base = l * lineStep;
      // Distance to the nearest `target` pixel along the line, forwards and backwards.
      let last = -Infinity;
      for (let i = 0; i < len; i++) {
        if (src[base + i * step] === target) last = i;
        if (i - last <= r) out[base + i * step] = target;
      }
      last = Infinity;
      for (let i = len - 1; i >= 0; i--) {
        if (src[base + i * step] === target) last = i;
        if (last - i <= r) out[base + i * step] = target;
      }
    }
    return out;
  };
  const horizontal = pass(mask.data, w, h, 1, w, rx);
  const both = pass(horizontal, h, w, w, 1, ry);
  return { width: w, height: h, data: both };
}

export function dilate(mask: BinaryMask, rx: number, ry = rx): BinaryMask {
  return boxMorph(mask, rx, ry, true);
}

export function erode(mask: BinaryMask, rx: number, ry = rx): BinaryMask {
  return boxMorph(mask, rx, ry, false);
}

/** Set every clear region that does not touch the border (holes inside set regions). */
export function fillHoles(mask: BinaryMask): BinaryMask {
  const { width: w, height: h } = mask;
  const inverse = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) inverse[i] = mask.data[i] ? 0 : 1;
  const { labels, components } = connectedComponents({ width: w, height: h, data: inverse });
  const out = mask.data.slice();
  const isHole = components.map((c) => c.x > 0 && c.y > 0 && c.x + c.width < w && c.y + c.height < h);
  for (let i = 0; i < w * h; i++) if (labels[i] !== 0 && isHole[labels[i] - 1]) out[i] = 1;
  return { width: w, height: h, data: out };
}

/** Count of set pixels in each row of `box` (whole mask by default). */
export function rowProfile(mask: BinaryMask, box?: Box): Float64Array {
  const b = box ?? { x: 0, y: 0, width: mask.width, height: mask.height };
  const out = new Float64Array(b.height);
  for (let y = 0; y < b.height; y++) {
    const row = (b.y + y) * mask.width + b.x;
    let s = 0;
    for (let x = 0; x < b.width; x++) s += mask.data[row + x];
    out[y] = s;
  }
  return out;
}

/** Count of set pixels in each column of `box` (whole mask by default). */
export function columnProfile(mask: BinaryMask, box?: Box): Float64Array {
  const b = box ?? { x: 0, y: 0, width: mask.width, height: mask.height };
  const out = new Float64Array(b.width);
  for (let y = 0; y < b.height; y++) {
    const row = (b.y + y) * mask.width + b.x;
    for (let x = 0; x < b.width; x++) out[x] += mask.data[row + x];
  }
  return out;
}

/** Autocorrelation of a profile with its mean removed, for lags 0..maxLag (not normalised). */
export function autocorrelation(profile: ArrayLike<number>, maxLag: number): Float64Array {
  const n = profile.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += profile[i];
  mean /= Math.max(1, n);
  const centred = new Float64Array(n);
  for (let i = 0; i < n; i++) centred[i] = profile[i] - mean;
  const lags = Math.min(maxLag, n - 1);
  const out = new Float64Array(Math.max(0, lags) + 1);
  for (let lag = 0; lag <= lags; lag++) {
    let s = 0;
    for (let i = 0; i + lag < n; i++) s += centred[i] * centred[i + lag];
    out[lag] = s;
  }
  return out;
}

/** A run of text: components side by side on one baseline. */
export interface TextLine extends Box {
  /** Indexes into the component list given to `groupIntoLines`. */
  members: number[];
}

/**
 * Chain components that sit side by side at the same height (overlapping vertically by half the smaller
 * one, similar heights, gap below `gapFactor` × height) into lines. Text forms long chains; specks,
 * wood grain and the edge of a finger do not.
 */
export function groupIntoLines(components: readonly Component[], gapFactor = 1.5): TextLine[] {
  const n = components.length;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  // Bucket by the row band of each top edge, sorted by x, so a component meets only its possible neighbours.
  const band = Math.max(4, 2 * median(components.map((c) => c.height)));
  const bands = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const k = Math.floor(components[i].y / band);
    const list = bands.get(k);
    if (list) list.push(i);
    else bands.set(k, [i]);
  }
  for (const list of bands.values()) list.sort((a, b) => components[a].x - components[b].x);
  for (let i = 0; i < n; i++) {
    const a = components[i];
    const reach = a.x + a.width + gapFactor * a.height + 1;
    // A neighbour overlapping by half the smaller height and at most 2.5× taller has its top in this range.
    const k0 = Math.floor((a.y - 2.5 * a.height) / band);
    const k1 = Math.floor((a.y + a.height) / band);
    for (let k = k0; k <= k1; k++) {
      const list = bands.get(k);
      if (!list) continue;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (components[list[mid]].x < a.x) lo = mid + 1;
        else hi = mid;
      }
      for (let j = lo; j < list.length; j++) {
        const bi = list[j];
        const b = components[bi];
        if (b.x > reach) break;
        if (bi === i) continue;
        const small = Math.min(a.height, b.height);
        const large = Math.max(a.height, b.height);
        if (large > 2.5 * small) continue;
        const overlap = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
        if (overlap < 0.5 * small) continue;
        const gap = b.x - (a.x + a.width);
        if (gap > gapFactor * small + 1) continue;
        parent[find(i)] = find(bi);
      }
    }
  }
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const list = byRoot.get(r);
    if (list) list.push(i);
    else byRoot.set(r, [i]);
  }
  const lines: TextLine[] = [];
  for (const members of byRoot.values()) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const m of members) {
      const c = components[m];
      x0 = Math.min(x0, c.x);
      y0 = Math.min(y0, c.y);
      x1 = Math.max(x1, c.x + c.width);
      y1 = Math.max(y1, c.y + c.height);
    }
    lines.push({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, members });
  }
  return lines;
}

/** Median of a list of numbers (0 when empty). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The union of boxes (undefined when empty). */
export function unionBox(boxes: readonly Box[]): Box | undefined {
  if (boxes.length === 0) return undefined;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** What `findText` saw: where the paper is, the ink on it, and the ink that forms text lines. */
export interface TextFinding {
  /** Size in pixels of one paper cell. */
  cell: number;
  /** Brightest level of each cell (paper shows through between letters). */
  paperGrid: GrayImage;
  /** Per cell: 1 where the cell is paper (large light regions, holes filled). */
  paper: BinaryMask;
  /** Per cell: 0 off paper, else the paper region's number (1-based). */
  paperRegions: Int32Array;
  ink: BinaryMask;
  components: Component[];
  /** Lines of text-like components (members index `components`). */
  lines: TextLine[];
  /**
   * One or two letters of text height standing alone (a page number, a short word): too few to be sure
   * they are text, so a page takes them only where print is expected (just above or below its body).
   */
  marks: TextLine[];
  /** Median height of the components in text lines (0 when there is no text). */
  textHeight: number;
}

/**
 * Find the paper and the text on it. Paper is light and covers large regions; text is many small dark
 * components on it, side by side in lines. Components touching the paper's edge are dropped: there they
 * are the rim of a finger, the gutter shadow or the table, not print.
 */
export function findText(image: GrayImage, options: { cell?: number } = {}): TextFinding {
  const { width: w, height: h } = image;
  const cell = options.cell ?? Math.max(8, 2 * Math.round(Math.max(w, h) / 240));
  const { grid: paperGrid, level } = paperLevel(image, cell);
  const { paper, regions } = findPaper(paperGrid);
  const where = new Uint8Array(w * h);
  const cellOfColumn = new Int32Array(w);
  for (let x = 0; x < w; x++) cellOfColumn[x] = Math.min(paper.width - 1, Math.floor(x / cell));
  for (let y = 0; y < h; y++) {
    const row = Math.min(paper.height - 1, Math.floor(y / cell)) * paper.width;
    const o = y * w;
    for (let x = 0; x < w; x++) where[o + x] = paper.data[row + cellOfColumn[x]];
  }
  const ink = inkMask(image, level, { where });
  const { components } = connectedComponents(ink);
  const candidates: number[] = [];
  for (let i = 0; i < components.length; i++) {
    const c = components[i];
    // Letters, not blobs: a picture, the rim of a hand or the gutter shadow is far taller than a line.
    if (c.area < 3 || c.height > Math.max(w, h) / 10 || c.width > w / 3) continue;
    if (touchesOffPaper(c, paper, cell)) continue;
    candidates.push(i);
  }
  const chained = groupIntoLines(candidates.map((i) => components[i]));
  const lines: TextLine[] = [];
  const short: TextLine[] = [];
  for (const line of chained) {
    const members = line.members.map((m) => candidates[m]);
    const n = members.length;
    const textLike = n >= 3 || (n === 2 && line.width >= 2 * line.height) || (n === 1 && line.width >= 3 * line.height && line.height >= 2);
    if (textLike) lines.push({ ...line, members });
    else if (n <= 2) short.push({ ...line, members });
  }
  const heights = lines.flatMap((l) => l.members.map((m) => components[m].height));
  const typical = median(heights);
  // A "line" far taller or shorter than the typical text is a picture edge or a row of specks.
  const kept = lines.filter((l) => {
    const hm = median(l.members.map((m) => components[m].height));
    return hm <= 3 * typical && hm >= 0.3 * typical;
  });
  const textHeight = median(kept.flatMap((l) => l.members.map((m) => components[m].height)));
  const marks = short.filter((l) => {
    // Solid enough to be print (not a thin scratch or a hair), about as tall as the letters.
    const solid = l.members.every((m) => components[m].area >= 0.3 * components[m].width * components[m].height);
    return solid && l.height >= 0.8 * textHeight && l.height <= 2 * textHeight && l.width <= 4 * textHeight;
  });
  return { cell, paperGrid, paper, paperRegions: regions, ink, components, lines: kept, marks, textHeight };
}

/** Paper cells: lighter than Otsu's split of the cell levels, in regions of a useful size, holes filled. */
function findPaper(grid: GrayImage): { paper: BinaryMask; regions: Int32Array } {
  const { width: w, height: h, data } = grid;
  const hist = histogram(data);
  const t = otsuThreshold(hist);
  let darkSum = 0;
  let darkN = 0;
  let lightSum = 0;
  let lightN = 0;
  for (let v = 0; v < 256; v++) {
    if (v <= t) {
      darkSum += v * hist[v];
      darkN += hist[v];
    } else {
      lightSum += v * hist[v];
      lightN += hist[v];
    }
  }
  const lightMean = lightN ? lightSum / lightN : 255;
  const darkMean = darkN ? darkSum / darkN : 0;
  // Two classes this close are shades of one sheet (a flat scan, uneven light), not paper and table.
  const threshold = lightMean - darkMean < 40 ? Math.min(t, darkMean - 40) : t;
  const raw = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) raw[i] = data[i] > threshold ? 1 : 0;
  const { labels, components } = connectedComponents({ width: w, height: h, data: raw });
  const minArea = 0.01 * w * h;
  const big = components.map((c) => c.area >= minArea);
  for (let i = 0; i < w * h; i++) raw[i] = labels[i] !== 0 && big[labels[i] - 1] ? 1 : 0;
  const paper = fillHoles({ width: w, height: h, data: raw });
  const { labels: regions } = connectedComponents(paper);
  return { paper, regions };
}

/** Whether a component, grown by one pixel, reaches a cell that is not paper. */
function touchesOffPaper(c: Component, paper: BinaryMask, cell: number): boolean {
  const cx0 = Math.max(0, Math.floor((c.x - 1) / cell));
  const cy0 = Math.max(0, Math.floor((c.y - 1) / cell));
  const cx1 = Math.min(paper.width - 1, Math.floor((c.x + c.width) / cell));
  const cy1 = Math.min(paper.height - 1, Math.floor((c.y + c.height) / cell));
  for (let cy = cy0; cy <= cy1; cy++) {
    for (let cx = cx0; cx <= cx1; cx++) if (paper.data[cy * paper.width + cx] === 0) return true;
  }
  return false;
}
