/**
 * Scores the Markdown made from the synthetic book (`book-corpus.ts`) against its truth: what a reader of the
 * Markdown would notice. Used by the corpus tests and by `npm run bench:markdown`, on any Markdown (the measures read
 * the text, not Quire's internals, so an older Quire is scored the same way).
 */
import type { CorpusTruth } from './book-corpus.js';

export interface Score {
  right: number;
  total: number;
}

export interface CorpusScores {
  /** Running heads and page numbers that show in the text (`right` counts them: fewer is better). */
  headLeaks: Score;
  /** Footnotes whose call stands after the right word and names a definition holding the note's text. */
  notesLinked: Score;
  /** Words split at a line or page end, joined back without their hyphen. */
  splitsJoined: Score;
  /** Compounds split at their own hyphen at a line end, kept with it. */
  compoundsKept: Score;
  /** Every compound of the text (inside lines too), found with its hyphen. */
  hyphensKept: Score;
  /** Headings found at the level of their rank (1, 2, 3). */
  headingLevels: Score;
  /** Margin line numbers that stayed out of the text. */
  lineNumbersOut: Score;
  /** Side notes set apart as a block of their own (a blockquote), not woven into a paragraph. */
  sideNotesApart: Score;
}

/** Lower case, accents and punctuation off, letters and digits only: for matching text OCR read slightly differently. */
function key(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** Where `needle` first occurs in `haystack` with at most a fifth of its characters different, or -1. */
function fuzzyIndex(haystack: string, needle: string): number {
  if (needle.length === 0) return -1;
  const exact = haystack.indexOf(needle);
  if (exact >= 0) return exact;
  const allowed = Math.floor(0.2 * needle.length);
  for (let i = 0; i + needle.length - allowed <= haystack.length; i++) {
    for (const length of [needle.length - 1, needle.length, needle.length + 1]) {
      if (editDistance(haystack.slice(i, i + length), needle) <= allowed) return i;
    }
  }
  return -1;
}

function fuzzyIncludes(haystack: string, needle: string): boolean {
  return fuzzyIndex(haystack, needle) >= 0;
}

/** How many times any of `needles` occurs in `haystack`, each with at most a fifth of its characters different. */
function occurrences(haystack: string, needles: string[]): number {
  let count = 0;
  let rest = haystack;
  for (;;) {
    const at = needles.map((n) => fuzzyIndex(rest, n)).filter((i) => i >= 0);
    if (at.length === 0) return count;
    count++;
    rest = rest.slice(Math.min(...at) + Math.min(...needles.map((n) => n.length)));
  }
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** The Markdown's blocks, HTML comments taken out. */
function blocksOf(markdown: string): string[] {
  return markdown
    .replace(/<!--[\s\S]*?-->/gu, '')
    .split(/\n{2,}/u)
    .map((b) => b.trim())
    .filter((b) => b !== '');
}

/** A block's words, Markdown markers (`#`, `>`, `[^n]`, escapes) taken off. */
function plain(block: string): string {
  return block
    .replace(/^(#{1,6}|>)\s*/u, '')
    .replace(/\[\^[^\]]+\](:)?/gu, '')
    .replace(/\\(.)/gu, '$1');
}

export function scoreCorpus(markdown: string, truth: CorpusTruth): CorpusScores {
  const blocks = blocksOf(markdown);
  const headingTexts = new Set(truth.headings.map((h) => key(h.text)));
  // The text a reader reads as the book's, its own headings aside (a running head may repeat a chapter title).
  const body = blocks.filter((b) => !(headingTexts.has(key(plain(b))) && key(plain(b)).length > 0));
  const bodyKey = key(body.map(plain).join(' '));
  const bodyWords = new Set(body.flatMap((b) => plain(b).split(/\s+/u)).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));

  // Each distinct head (read a little differently on each page) may show as often as pages carry it.
  const heads = truth.pages.flatMap((p) => (p.head !== undefined ? [key(p.head)] : []));
  const groups: string[][] = [];
  for (const head of heads) {
    const group = groups.find((g) => editDistance(g[0], head) <= 0.2 * head.length);
    if (group) group.push(head);
    else groups.push([head]);
  }
  const headLeaks =
    groups.reduce((sum, group) => sum + Math.min(group.length, occurrences(bodyKey, group)), 0) +
    truth.pages.filter((page) => page.folio !== '' && bodyWords.has(page.folio)).length;

  const definitions = new Map<string, string>();
  for (const b of blocks) {
    const m = /^\[\^([^\]]+)\]:\s*(.*)$/su.exec(b);
    if (m) definitions.set(m[1], key(m[2]));
  }
  const notesLinked = truth.notes.filter((note) => {
    const calls = [...markdown.matchAll(new RegExp(`${escape(note.after)}[.,;:»”)]*\\[\\^([^\\]]+)\\]`, 'gu'))].map((m) => m[1]);
    const start = key(note.text.split(' ').slice(0, 5).join(' '));
    return calls.some((id) => fuzzyIncludes(definitions.get(id)?.slice(0, start.length + 4) ?? '', start));
  }).length;

  // Accents and apostrophes aside: the OCR's misreadings there are not the hyphen's doing.
  const loose = (t: string): string => t.normalize('NFD').replace(/\p{M}/gu, '').replace(/[’‘]/gu, "'");
  const text = loose(blocks.map(plain).join('\n'));
  const has = (form: string): boolean => new RegExp(`(^|[^\\p{L}])${escape(loose(form))}($|[^\\p{L}])`, 'u').test(text);
  const splits = truth.splits.filter((s) => !s.compound);
  const splitsJoined = splits.filter((s) => {
    const [head, rest] = [s.word.slice(0, s.at), s.word.slice(s.at)];
    return has(s.word) && !has(`${head}-${rest}`) && !has(`${head}- ${rest}`) && !has(`${head} ${rest}`);
  }).length;
  const compounds = truth.splits.filter((s) => s.compound);
  const compoundsKept = compounds.filter((s) => has(s.word) && !has(s.word.slice(0, s.at) + s.word.slice(s.at + 1))).length;
  const hyphensKept = truth.compounds.filter((c) => has(c)).length;

  const headingLevels = truth.headings.filter((h) =>
    blocks.some((b) => {
      const m = /^(#{1,6}) (.*)$/u.exec(b);
      return m !== null && m[1].length === h.rank && Math.abs(key(m[2]).length - key(h.text).length) <= 2 && fuzzyIncludes(key(m[2]), key(h.text));
    }),
  ).length;

  // Line numbers stand beside the Latin quotation: none of them may show inside it.
  const latin = body.find((b) => key(b).includes(key('Quid ergo amo'))) ?? '';
  const lineNumbersOut = truth.lineNumbers.filter((n) => !new RegExp(`(^|\\D)${n}(\\D|$)`, 'u').test(latin)).length;

  const sideNotesApart = truth.sideNotes.filter((note) => {
    const k = key(note);
    const quoted = blocks.some((b) => b.startsWith('>') && fuzzyIncludes(key(plain(b)), k));
    const woven = blocks.some((b) => !b.startsWith('>') && key(plain(b)).length > k.length + 20 && fuzzyIncludes(key(plain(b)), k));
    return quoted && !woven;
  }).length;

  return {
    headLeaks: { right: headLeaks, total: heads.length + truth.pages.filter((p) => p.folio !== '').length },
    notesLinked: { right: notesLinked, total: truth.notes.length },
    splitsJoined: { right: splitsJoined, total: splits.length },
    compoundsKept: { right: compoundsKept, total: compounds.length },
    hyphensKept: { right: hyphensKept, total: truth.compounds.length },
    headingLevels: { right: headingLevels, total: truth.headings.length },
    lineNumbersOut: { right: lineNumbersOut, total: truth.lineNumbers.length },
    sideNotesApart: { right: sideNotesApart, total: truth.sideNotes.length },
  };
}
