// Despeckle: a processor plugin for Quire. After the threshold, it removes every blot of ink that is both small
// (its larger side under max_speck_pct % of the text's x-height, read from the page's recorded text scale) and
// isolated (no other ink within min_gap_pct % of the x-height around it): dust, foxing and paper grain on old
// books, while the dots of i and j, accents and full stops, which sit close to their letters, stay.
import { Field, Processor, registerProcessor } from 'quire/plugin-api';

/** The x-height assumed when the page has no measured text scale: 1.5 mm, a body text's. */
const FALLBACK_X_HEIGHT_MM = 1.5;

class Despeckle extends Processor {
  name = 'despeckle';
  display = 'Despeckle';
  summary = "removes isolated specks smaller than a fraction of the text's x-height";
  after = 'binarize';
  timeoutMs = 20_000;
  OPTIONS = [
    Field('max_speck_pct', 'Largest speck, % of the x-height', 'int', 25, { min: 1, max: 100, help: 'A blot whose larger side is under this share of the x-height may be removed.' }),
    Field('min_gap_pct', 'Clear space around it, % of the x-height', 'int', 60, { min: 0, max: 300, help: 'A blot is isolated when no other ink lies within this distance of it.' }),
  ];

  process(page, facts) {
    const { width, height, pixels } = page;
    const xHeight = facts.textScale?.xHeightPx ?? (FALLBACK_X_HEIGHT_MM / 25.4) * page.dpi;
    const maxSide = Math.max(1, Math.floor((xHeight * Number(this.option('max_speck_pct'))) / 100));
    const gap = Math.round((xHeight * Number(this.option('min_gap_pct'))) / 100);
    const labels = new Int32Array(width * height);
    const stack = new Int32Array(width * height);
    let next = 0;
    let removed = 0;
    for (let start = 0; start < pixels.length; start++) {
      if (pixels[start] >= 128 || labels[start] !== 0) continue;
      // One blot of ink (8-connected), its pixels kept on the stack while its box is measured.
      next += 1;
      let top = 0;
      let size = 0;
      stack[top++] = start;
      labels[start] = next;
      let x0 = width, y0 = height, x1 = -1, y1 = -1;
      let tooBig = false;
      while (top > size) {
        const p = stack[size++];
        const x = p % width;
        const y = (p - x) / width;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
        if (x1 - x0 >= maxSide || y1 - y0 >= maxSide) tooBig = true;
        for (let dy = -1; dy <= 1; dy++) {
          const ny = y + dy;
          if (ny < 0 || ny >= height) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            if (nx < 0 || nx >= width) continue;
            const q = ny * width + nx;
            if (pixels[q] < 128 && labels[q] === 0) {
              labels[q] = next;
              stack[top++] = q;
            }
          }
        }
      }
      if (tooBig || !this.isolated(labels, pixels, width, height, next, x0, y0, x1, y1, gap)) continue;
      for (let i = 0; i < size; i++) pixels[stack[i]] = 255;
      removed += 1;
    }
    return { image: { width, height, pixels }, facts: { removed, maxSpeckPx: maxSide } };
  }

  /** No ink of another blot within `gap` pixels of the box. */
  isolated(labels, pixels, width, height, label, x0, y0, x1, y1, gap) {
    const xa = Math.max(0, x0 - gap), xb = Math.min(width - 1, x1 + gap);
    const ya = Math.max(0, y0 - gap), yb = Math.min(height - 1, y1 + gap);
    for (let y = ya; y <= yb; y++) {
      for (let x = xa, p = y * width + xa; x <= xb; x++, p++) {
        if (pixels[p] < 128 && labels[p] !== label) return false;
      }
    }
    return true;
  }
}

registerProcessor(Despeckle);
