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

/**
 * The words of a text as a reader counts them: split at spaces, each cut to the part from its first letter or digit
 * to its last letter (punctuation, quotes and note calls left out), after `normaliseText`.
 */
export function wordsOf(text) {
  const out = [];
  for (const token of normaliseText(text).split(' ')) {
    const chars = Array.from(token);
    const start = chars.findIndex((c) => /[\p{L}\p{N}]/u.test(c));
    let end = chars.length;
    while (end > 0 && !/\p{L}/u.test(chars[end - 1])) end--;
    if (start >= 0 && end > start) out.push(chars.slice(start, end).join(''));
  }
  return out;
}

/** A word with a letter outside ASCII (é, ç, œ, Â…): what camera OCR gets wrong first. */
export function isAccented(word) {
  return Array.from(word).some((c) => c.codePointAt(0) > 0x7f) && /\p{L}/u.test(word);
}

/** How many of the truth's words the text has (each found word used once), in all and among accented words. */
export function wordRecall(truth, got) {
  const have = new Map();
  for (const w of wordsOf(got)) have.set(w, (have.get(w) ?? 0) + 1);
  const result = { words: 0, found: 0, accented: 0, accentedFound: 0 };
  for (const w of wordsOf(truth)) {
    const accented = isAccented(w);
    result.words++;
    if (accented) result.accented++;
    const n = have.get(w) ?? 0;
    if (n > 0) {
      have.set(w, n - 1);
      result.found++;
      if (accented) result.accentedFound++;
    }
  }
  return result;
}

/**
 * Word recall of the body text alone (the target), from a page's truth lines (`{ kind, text }`, kind 'body'
 * for running text; headings, running heads, notes and folios otherwise). The page's words are aligned with the
 * words read, in order (the fewest insertions, deletions and substitutions); a body word counts as found when the
 * word aligned with it is the same. So a body word misread is never found in a note's copy of it, nor a note's
 * misreading blamed on the body.
 */
export function bodyRecall(lines, got) {
  const truth = lines.flatMap((line) => wordsOf(line.text).map((word) => ({ word, body: line.kind === 'body' })));
  const read = wordsOf(got);
  const words = truth.map((t) => t.word);
  const matched = new Array(words.length).fill(false);
  for (const [i, j] of align(words, read).pairs) matched[i] = words[i] === read[j];
  const result = { bodyWords: 0, bodyFound: 0, bodyAccented: 0, bodyAccentedFound: 0 };
  truth.forEach((t, i) => {
    if (!t.body) return;
    const accented = isAccented(t.word);
    result.bodyWords++;
    if (accented) result.bodyAccented++;
    if (matched[i]) {
      result.bodyFound++;
      if (accented) result.bodyAccentedFound++;
    }
  });
  return result;
}

/**
 * The Levenshtein alignment of two sequences (characters or words): its distance, and the pairs [i, j] it sets
 * against each other (equal or substituted), from the end; what is left out of either has no pair.
 */
export function align(a, b) {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  // 0 match/substitute, 1 an item of `a` left out, 2 an item of `b` added.
  const move = new Uint8Array((n + 1) * width);
  let prev = new Uint32Array(width);
  let cur = new Uint32Array(width);
  for (let j = 0; j <= m; j++) {
    prev[j] = j;
    move[j] = 2;
  }
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    move[i * width] = 1;
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      let best = sub;
      let how = 0;
      if (del < best) {
        best = del;
        how = 1;
      }
      if (ins < best) {
        best = ins;
        how = 2;
      }
      cur[j] = best;
      move[i * width + j] = how;
    }
    [prev, cur] = [cur, prev];
  }
  const pairs = [];
  for (let i = n, j = m; i > 0 || j > 0;) {
    const how = move[i * width + j];
    if (i > 0 && j > 0 && how === 0) {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    } else if (i > 0 && (how === 1 || j === 0)) i--;
    else j--;
  }
  return { distance: prev[m], pairs };
}

function baseLetter(ch) {
  return ch
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/**
 * The confusions a reader notices, from a character alignment of the two texts (both normalised): e read as c
 * and c as e, accent confusions — a letter read with another accent or none (é/è/ê/e, ç/c, â/a…) or ç read as g —
 * and stops: a full stop read as a comma or a comma as a full stop. Also the edit distance, so one alignment gives
 * the CER too.
 */
export function confusions(truth, got) {
  const t = Array.from(normaliseText(truth));
  const g = Array.from(normaliseText(got));
  const { distance, pairs } = align(t, g);
  const result = { edits: distance, chars: t.length, ec: 0, accent: 0, stops: 0 };
  for (const [i, j] of pairs) {
    const a = t[i];
    const b = g[j];
    if (a === b) continue;
    if ((a === 'e' && b === 'c') || (a === 'c' && b === 'e')) result.ec++;
    else if ((baseLetter(a) === baseLetter(b) && /\p{L}/u.test(a)) || (a === 'ç' && b === 'g')) result.accent++;
    else if ((a === '.' && b === ',') || (a === ',' && b === '.')) result.stops++;
  }
  return result;
}

/**
 * A word as the real benchmark compares it: compatibility form (ᵉʳ → er, ﬁ → fi), one apostrophe, no hyphen (a
 * compound is one word whether a line break split it or not), `…` as three full stops.
 */
function realKey(word) {
  return word
    .normalize('NFKC')
    .replace(/[‘’‚`]/g, "'")
    .replace(/[-‐‑‒–—]/g, '')
    .normalize('NFC');
}

const GREEK = /\p{Script=Greek}/u;

/**
 * A transcribed page's words in reading order, each with its kind (header, body, notes): lines ending in a hyphen
 * after a letter are joined to the next line's first word, as a reader joins them; `header: false` leaves the running
 * head out (for a text that leaves it out by design).
 */
export function pageWords(truth, { header = true } = {}) {
  const out = [];
  for (const kind of ['header', 'body', 'notes']) {
    if (kind === 'header' && !header) continue;
    for (const word of wordsOf(dehyphenate(truth[kind].join('\n')))) out.push({ word: realKey(word), kind });
  }
  return out;
}

function dehyphenate(text) {
  return text
    .normalize('NFC')
    .replace(/[\u00b9\u00b2\u00b3\u2070-\u2079]/g, '')
    .replace(/…/g, '...')
    .replace(/(\p{L})[-‐]\s*\n\s*/gu, '$1');
}

/**
 * How much of a transcribed page (`pageWords`) a text read from it has, words matched in order: body words,
 * accented body words (Latin letters outside ASCII), Greek words (body and notes), note words; and the character
 * edit distance over the whole of it (CER = edits / chars).
 */
export function realTextMetrics(truthWords, got) {
  const read = wordsOf(dehyphenate(got)).map(realKey);
  const words = truthWords.map((t) => t.word);
  const matched = new Array(words.length).fill(false);
  for (const [i, j] of align(words, read).pairs) matched[i] = words[i] === read[j];
  const m = { body: 0, bodyFound: 0, accented: 0, accentedFound: 0, greek: 0, greekFound: 0, notes: 0, notesFound: 0, edits: 0, chars: 0 };
  truthWords.forEach((t, i) => {
    const greek = GREEK.test(t.word);
    if (t.kind === 'body') {
      m.body++;
      if (matched[i]) m.bodyFound++;
      if (!greek && isAccented(t.word)) {
        m.accented++;
        if (matched[i]) m.accentedFound++;
      }
    }
    if (t.kind === 'notes') {
      m.notes++;
      if (matched[i]) m.notesFound++;
    }
    if (greek && t.kind !== 'header') {
      m.greek++;
      if (matched[i]) m.greekFound++;
    }
  });
  const truthChars = Array.from(words.join(' '));
  m.edits = align(truthChars, Array.from(read.join(' '))).distance;
  m.chars = truthChars.length;
  return m;
}

/** The sum of several pages' `realTextMetrics`. */
export function sumMetrics(list) {
  const total = {};
  for (const m of list) for (const [k, v] of Object.entries(m)) total[k] = (total[k] ?? 0) + v;
  return total;
}

/**
 * How well a page's "to check" flags point at its wrong words: `words` are the words of the text in order, each
 * `{ text, flagged }`; a word is wrong when the word-aligned transcription word is not the same (or there is none).
 */
export function flagMetrics(truthWords, words, details) {
  const read = [];
  for (const w of words) {
    const keys = wordsOf(dehyphenate(w.text)).map(realKey);
    if (keys.length > 0) read.push({ key: keys.join(' '), flagged: w.flagged, word: w });
  }
  const right = new Array(read.length).fill(false);
  const truthOf = new Array(read.length).fill(undefined);
  for (const [i, j] of align(
    truthWords.map((t) => t.word),
    read.map((r) => r.key),
  ).pairs) {
    right[j] = truthWords[i].word === read[j].key;
    truthOf[j] = truthWords[i].word;
  }
  const m = { words: read.length, flagged: 0, wrong: 0, wrongFlagged: 0 };
  read.forEach((r, j) => {
    if (r.flagged) m.flagged++;
    if (!right[j]) {
      m.wrong++;
      if (r.flagged) m.wrongFlagged++;
    }
    // With `details`, the words a proofreader would miss (wrong, not flagged) and look at for nothing (flagged, right).
    if (details && right[j] !== !r.flagged) details.push({ missed: !right[j], text: r.key, truth: truthOf[j], word: r.word });
  });
  return m;
}
