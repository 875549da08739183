// Text comparison for the benchmarks: character error rate after the normalisation every OCR
// comparison needs (Unicode NFC, one kind of quote and space, superscript note calls dropped).

/** Normalise text for a fair comparison: spacing, quotes, dashes, note calls. */
export function normaliseText(text) {
  return text
    .normalize('NFC')
    .replace(/[\u00b9\u00b2\u00b3\u2070-\u2079]/g, '')
    .replace(/[“”„«»]/g, '"')
    .replace(/[‘’‚]/g, "'")
    .replace(/[‐‑‒–—]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Levenshtein distance, O(n·m) time and O(m) memory. */
export function editDistance(a, b) {
  if (a.length < b.length) [a, b] = [b, a];
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** Character error rate of `got` against `truth`, both normalised. */
export function cer(truth, got) {
  const t = normaliseText(truth);
  const g = normaliseText(got);
  return t.length === 0 ? (g.length === 0 ? 0 : 1) : editDistance(t, g) / t.length;
}

/** The body text of Quire's Markdown: no page comments, heading marks, footnote items or escapes. */
export function markdownBody(md) {
  return md
    .replace(/<!-- page [^>]*-->/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*(\d+\.|\\\*|†|\[\^[^\]]+\]:)\s/.test(line))
    .map((line) =>
      line
        .replace(/^(#+|>)\s+/, '')
        .replace(/\[\^[^\]]+\]/g, '')
        .replace(/\\$/, '')
        .replace(/\\([\\`*_{}[\]()#+\-.!>])/g, '$1'),
    )
    .join('\n');
}
