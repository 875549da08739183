// Typesetting and randomness shared by the scripts that make synthetic pages (scripts/make-sample.mjs, the
// example bundle; scripts/quality-corpus.mjs, the OCR quality benchmark's corpus): a seeded PRNG, glyph advances
// measured on the font librsvg really uses, greedy line breaking and justification.
import sharp from 'sharp';

/** mulberry32: a small seeded PRNG, so the same seed gives the same frame. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Roughly normal (sum of three uniforms), unit variance: good enough for sensor noise, and cheap. */
export function normal(random) {
  return (random() + random() + random() - 1.5) * 2;
}

export function escapeXml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Advance width (in em) of each character in `family`, measured by rendering "H" + ten copies + "H" and comparing
 * the distance between the two H's with that of "HH": no font file parsing, and it measures exactly the
 * font fontconfig hands to librsvg.
 */
export async function measureAdvances(chars, { family, italic = false }) {
  const size = 50;
  const rowHeight = 80;
  const repeat = 10;
  const rows = ['', ...chars];
  const width = Math.ceil(40 + size * (3 + 1.4 * repeat));
  const height = rows.length * rowHeight;
  const style = italic ? ' font-style="italic"' : '';
  const texts = rows.map(
    (c, i) => `<text x="20" y="${i * rowHeight + 58}" font-size="${size}"${style} xml:space="preserve">H${escapeXml(c.repeat(repeat))}H</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><g font-family="${family}">${texts.join('')}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const span = (row) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (let y = row * rowHeight; y < (row + 1) * rowHeight; y++) {
      for (let x = 0; x < info.width; x++) {
        if (data[y * info.width + x] < 128) {
          if (x < lo) lo = x;
          if (x > hi) hi = x;
        }
      }
    }
    return hi - lo;
  };
  const base = span(0);
  const advances = new Map();
  chars.forEach((c, i) => advances.set(c, (span(i + 1) - base) / repeat / size));
  return advances;
}

export function textWidth(text, advances, size) {
  let w = 0;
  for (const ch of text) w += advances.get(ch) ?? 0.6;
  return w * size;
}

/** Greedy line breaking without hyphenation: good enough at ~65 characters a line. */
export function breakLines(words, width, indent, advances, size) {
  const space = textWidth(' ', advances, size);
  const lines = [];
  let current = [];
  let used = 0;
  let available = width - indent;
  for (const word of words) {
    const w = textWidth(word.text, advances, size);
    if (current.length > 0 && used + space + w > available) {
      lines.push({ words: current, indent: lines.length === 0 ? indent : 0 });
      current = [];
      used = 0;
      available = width;
    }
    used += (current.length > 0 ? space : 0) + w;
    current.push({ ...word, width: w });
  }
  if (current.length > 0) lines.push({ words: current, indent: lines.length === 0 ? indent : 0 });
  lines.forEach((line, i) => (line.last = i === lines.length - 1));
  return lines;
}

/** Word positions of a justified line (the last line of a paragraph is set ragged, as books do). */
export function justify(line, left, width, advances, size) {
  const natural = textWidth(' ', advances, size);
  const inked = line.words.reduce((sum, w) => sum + w.width, 0);
  const gaps = line.words.length - 1;
  const gap = line.last || gaps === 0 ? natural : (width - line.indent - inked) / gaps;
  let x = left + line.indent;
  return line.words.map((w) => {
    const placed = { x, text: w.text };
    x += w.width + gap;
    return placed;
  });
}
