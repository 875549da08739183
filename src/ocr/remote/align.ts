/**
 * The remote text on a local layout. The remote service reads better but places nothing finer than a block; a
 * local engine (tesseract) places every word but misreads some. When both read a page, the two word sequences are
 * aligned (Needleman–Wunsch on normalised words: equal words score 2, similar ones 1, others −1 as a substitution,
 * a word on one side only −1), and each remote word takes the box of the local word it is aligned with. Remote
 * words the local engine missed join the local word before them (its box is shared out by letters); local words the
 * remote text lacks are dropped. Lines, baselines and blocks stay the local ones, so selection is word-accurate.
 * When too few words agree (under a third), the layouts are taken to be of different pages and nothing is aligned.
 */
import type { OcrBlock, OcrLine, OcrPage, OcrWord } from '../../project/index.js';
import { spreadWords, wordsOf } from './layout.js';
import { editDistance } from '../../util/index.js';

/** Past this many cells (words × words) the alignment would be slow and large: keep the block placement. */
const MAX_CELLS = 4_000_000;
const MIN_AGREEMENT = 1 / 3;
const MATCH = 2;
const SIMILAR = 1;
const MISMATCH = -1;
const GAP = -1;

/** Lower case, accents and punctuation off: `«Déjà,` and `deja` are one word. */
export function normalizeWord(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

function score(a: string, b: string): number {
  if (a === b) return a === '' ? SIMILAR : MATCH;
  const longest = Math.max(a.length, b.length);
  return longest > 0 && 1 - editDistance(a, b) / longest >= 0.6 ? SIMILAR : MISMATCH;
}

/**
 * For each remote word, the index of the local word it lands on; `agreeing` counts pairs that matched or were
 * similar. Null when either side is empty or the table would be too large.
 */
export function alignWords(remote: readonly string[], local: readonly string[]): { anchors: number[]; agreeing: number } | null {
  const n = remote.length;
  const m = local.length;
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_CELLS) return null;
  const r = remote.map(normalizeWord);
  const l = local.map(normalizeWord);
  const w = m + 1;
  const best = new Int32Array((n + 1) * w);
  // 0 diagonal, 1 up (remote word alone), 2 left (local word alone)
  const from = new Uint8Array((n + 1) * w);
  for (let i = 1; i <= n; i++) {
    best[i * w] = i * GAP;
    from[i * w] = 1;
  }
  for (let j = 1; j <= m; j++) {
    best[j] = j * GAP;
    from[j] = 2;
  }
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const diag = best[(i - 1) * w + j - 1] + score(r[i - 1], l[j - 1]);
      const up = best[(i - 1) * w + j] + GAP;
      const left = best[i * w + j - 1] + GAP;
      const k = i * w + j;
      if (diag >= up && diag >= left) {
        best[k] = diag;
        from[k] = 0;
      } else if (up >= left) {
        best[k] = up;
        from[k] = 1;
      } else {
        best[k] = left;
        from[k] = 2;
      }
    }
  }
  const anchors = new Array<number>(n).fill(-1);
  let agreeing = 0;
  for (let i = n, j = m; i > 0 || j > 0;) {
    const dir = from[i * w + j];
    if (i > 0 && j > 0 && dir === 0) {
      anchors[i - 1] = j - 1;
      if (score(r[i - 1], l[j - 1]) > MISMATCH) agreeing++;
      i--;
      j--;
    } else if (i > 0 && (j === 0 || dir === 1)) i--;
    else j--;
  }
  // A remote word the local engine missed goes with the local word before it (or, at the start, the first one after).
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (anchors[i] >= 0) last = anchors[i];
    else if (last >= 0) anchors[i] = last;
  }
  const first = anchors.find((a) => a >= 0) ?? 0;
  for (let i = 0; i < n && anchors[i] < 0; i++) anchors[i] = first;
  return { anchors, agreeing };
}

/**
 * `remote`'s words on `local`'s lines (see the module comment), or null when the two do not read as the same page.
 * The result is in `local`'s pixels and names the remote engine.
 */
export function alignOntoLayout(remote: OcrPage, local: OcrPage): OcrPage | null {
  const remoteWords = wordsOf(remote);
  const localWords = wordsOf(local);
  const aligned = alignWords(
    remoteWords.map((w) => w.text),
    localWords.map((w) => w.text),
  );
  if (!aligned || aligned.agreeing < MIN_AGREEMENT * Math.min(remoteWords.length, localWords.length)) return null;
  const groups = localWords.map((): string[] => []);
  aligned.anchors.forEach((a, i) => groups[a].push(remoteWords[i].text));
  const replacement = new Map<OcrWord, OcrWord[]>();
  localWords.forEach((w, k) => replacement.set(w, groups[k].length > 0 ? spreadWords(groups[k].join(' '), w.box) : []));

  const blocks: OcrBlock[] = [];
  for (const block of local.blocks) {
    const paragraphs = block.paragraphs
      .map((p) => ({
        box: p.box,
        lines: p.lines
          .map((line): OcrLine => ({ ...line, words: line.words.flatMap((w) => replacement.get(w) ?? []) }))
          .filter((line) => line.words.length > 0),
      }))
      .filter((p) => p.lines.length > 0);
    if (paragraphs.length > 0) blocks.push({ box: block.box, paragraphs });
  }
  return { width: local.width, height: local.height, dpi: local.dpi, engine: remote.engine, languages: [...remote.languages], blocks };
}
