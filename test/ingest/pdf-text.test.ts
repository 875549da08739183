import { describe, expect, it } from 'vitest';
import type { OcrPage } from '../../src/project/index.js';
import { hasRealText, ocrPageFromText, type PdfTextItem } from '../../src/ingest/pdf-text.js';

/** A 400 × 600 pt page seen upright at 144 dpi: user space (y up) → pixels (y down), scale 2. */
const VIEW = { transform: [2, 0, 0, -2, 0, 1200], width: 800, height: 1200, dpi: 144 };
const STYLES = { F1: { ascent: 0.75, descent: -0.25 } };

/** A text item of `size` pt at (x, y) in user space; its width is what the usual glyph widths give it. */
function item(str: string, x: number, y: number, size = 10, width = str.length * 0.5 * size): PdfTextItem {
  return { str, transform: [size, 0, 0, size, x, y], width, fontName: 'F1' };
}

const words = (page: OcrPage): string[][] => page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.map((l) => l.words.map((w) => w.text))));

describe('a PDF page’s text as an OCR result', () => {
  it('splits items into words on spaces, with boxes in the page’s pixels', () => {
    const page = ocrPageFromText({ items: [item('Hello wide world', 50, 500)], styles: STYLES }, VIEW);
    expect(page).toMatchObject({ width: 800, height: 1200, dpi: 144, engine: 'pdf', languages: [] });
    expect(words(page)).toEqual([['Hello', 'wide', 'world']]);
    const line = page.blocks[0].paragraphs[0].lines[0];
    // The baseline is at y = 500 pt → 1200 − 1000 = 200 px. The boxes hold the letters' ink, as an OCR engine's do:
    // up to the capitals' height (0.73 em of 10 pt, ×2 px), and no lower than the baseline (no descender here).
    expect(line.box.y0).toBe(185);
    expect(line.box.y1).toBe(200);
    expect(line.baseline).toEqual({ x0: 100, y0: 200, x1: 260, y1: 200 });
    // The item spans 80 pt from x = 50 pt: pixels 100 to 260, the words in order inside it, apart.
    const [hello, wide, world] = line.words;
    expect(hello.box.x0).toBe(100);
    expect(world.box.x1).toBe(260);
    expect(hello.box.x1).toBeLessThan(wide.box.x0);
    expect(wide.box.x1).toBeLessThan(world.box.x0);
    expect(line.words.every((w) => w.confidence === 100)).toBe(true);
  });

  it('joins items on one baseline into one line, a word running on across a font change', () => {
    const items = [item('Bold', 50, 500, 10, 20), item('face and', 70, 500, 10, 40), item('more', 112, 500, 10, 20)];
    const page = ocrPageFromText({ items, styles: STYLES }, VIEW);
    // "Bold" and "face" touch: one word. A 2 pt gap (0.2 em) before "more" separates words even without a space.
    expect(words(page)).toEqual([['Boldface', 'and', 'more']]);
  });

  it('starts a new line at a new baseline and at a gutter, a new block after a large gap or going back up', () => {
    const items = [
      item('First line of text', 50, 500),
      item('second line', 50, 488),
      item('beside, across a gutter', 200, 488),
      // 30 pt below: a new paragraph.
      item('After the gap', 50, 458),
      // A second column starting at the top again.
      item('Column two', 220, 500),
      item('', 50, 440),
      item('   ', 50, 430),
    ];
    const page = ocrPageFromText({ items, styles: STYLES }, VIEW);
    expect(page.blocks.map((b) => b.paragraphs[0].lines.map((l) => l.words.map((w) => w.text).join(' ')))).toEqual([
      ['First line of text', 'second line', 'beside, across a gutter'],
      ['After the gap'],
      ['Column two'],
    ]);
  });

  it('places text on a turned page through the viewport, and drops words off the page', () => {
    // The same page turned 90° clockwise: user (x, y) → pixels (2y, 2x).
    const turned = { transform: [0, 2, 2, 0, 0, 0], width: 1200, height: 800, dpi: 144 };
    const page = ocrPageFromText({ items: [item('Sideways', 50, 500), item('Gone', 50, 900)], styles: STYLES }, turned);
    expect(words(page)).toEqual([['Sideways']]);
    const box = page.blocks[0].box;
    // Text now runs down the page from y = 100 px: a tall box around x = 1000 px, as wide as the letters of
    // `Sideways` reach across the baseline (capital and ascender 0.73 em, descender 0.22 em of 20 px: 19 px).
    expect(box.y0).toBe(100);
    expect(box.y1).toBe(180);
    expect(box.x1 - box.x0).toBe(19);
  });

  it('counts a page as having text only when some character is more than space', () => {
    expect(hasRealText({ items: [item('  ', 0, 0), { type: 'beginMarkedContent' }] })).toBe(false);
    expect(hasRealText({ items: [item(' ', 0, 0), item('.', 0, 0)] })).toBe(true);
    expect(hasRealText({ items: [item('Ω', 0, 0)] })).toBe(true);
  });
});
