/**
 * The document's structure, step 4: footnotes numbered and linked. A note's number comes from the notes' own
 * sequence (OCR misreads a number now and then: 14, 15, 16 read as 4, 16, 18); its call in the text is found by its
 * glyphs and geometry, whatever OCR made of the superscript (`¹⁴`, `14`, `!#`, `?`), and cross-checked with the
 * calls' order on the page.
 */
import { plainDigits } from '../util/index.js';
import type { HeadingItem, LineItem, NoteItem, PageLayout } from './structure-classify.js';
import type { Row, Word } from './structure-rows.js';
import { isTerminated, type NoteMarker } from './structure-text.js';

/** A footnote, its continuation on later pages joined to it. */
export interface LinkedNote {
  /** Unique in the document (`14`; `3-2` for the second note numbered 3; `star` for `*`); absent when no call refers to it. */
  id?: string;
  /** The number or sign as printed (`14`, `*`). */
  marker?: string;
  /** Index of the page the note starts on. */
  page: number;
  /** Its words line by line, the marker taken off the first line. */
  lines: string[][];
}

/** A call in the text: the word it is glued to cut before and after it (`vérité?»` → `vérité` + call + `»`). */
export interface NoteCall {
  /** The note called; undefined for a mark OCR made of a call that could not be linked: it is dropped. */
  note: string | undefined;
  before: string;
  after: string;
}

export interface NoteLinks {
  /** Each note item of the pages' feet → the note it starts or continues. */
  notes: Map<NoteItem, LinkedNote>;
  /** Words of the text that are, or end in, a call. */
  calls: Map<Word, NoteCall>;
  /** Notes whose call was not found in the text: called at the end of their page's last sentence. */
  trailing: Map<Row, string[]>;
}

const SIGN_NAMES: Record<string, string> = { '*': 'star', '†': 'dagger', '‡': 'double-dagger', '§': 'section', '¶': 'pilcrow' };
const CLOSING = `.,;:!?»”"’)\\]`;

interface Candidate {
  word: Word;
  before: string;
  after: string;
  /** The digits (or sign) read, when the call was read as such. */
  read: string | null;
  /** How sure its glyphs and geometry make it a call, before it is matched with a note. */
  strength: number;
}

/** One-edit distance at most (a digit dropped, added or misread). */
function nearNumber(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) return [...a].filter((ch, i) => ch !== b[i]).length === 1;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return [...long].some((_, i) => long.slice(0, i) + long.slice(i + 1) === short);
}

/** A candidate this strong (a quote after a Latin-script word in French, an odd mark, a sign) is a call's mark. */
const STRAY_MARK_STRENGTH = 1.5;

/** Marks OCR makes of a superscript that are seldom glued to a word otherwise. */
const ODD_MARKS = '#°^ϐ®©*†‡';
/** Quotes and apostrophes: a superscript read as `’`, `”`, `"` where the language closes no quote that way (French). */
const QUOTE_MARKS = `’”"'`;

/**
 * What could be a note call in a row: superscripts, small raised tokens, digits or stray marks glued to a word, and
 * how sure each one is. `spacedPunctuation`: the text sets a space before `?` and `!` and quotes with « » (French),
 * so a `?`, `!` or quote glued to a word is suspect.
 */
function callCandidates(row: Row, spacedPunctuation: boolean): Candidate[] {
  const found: Candidate[] = [];
  const closing = `[${CLOSING}]*`;
  row.words.forEach((word, k) => {
    const text = word.text;
    const previous = row.words[k - 1];
    const next = row.words[k + 1];
    const add = (before: string, after: string, read: string | null, strength: number): void => {
      // A mark read as no number, or as a sign, whose ink the correction step read as digits (`revirement”.`, ⁷).
      if (word.raised && (read === null || /^[*†‡]$/u.test(read))) found.push({ word, before, after, read: word.raised, strength: Math.max(strength, 2) });
      else if (strength > 0) found.push({ word, before, after, read, strength });
    };
    // A superscript as OCR wrote it, glued or alone.
    let m = new RegExp(`^(.*?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)(${closing})$`, 'u').exec(text);
    if (m && (m[1] !== '' || previous)) return add(m[1], m[3], plainDigits(m[2]), 3);
    // A token of its own just after a word: small and raised, or a mark that is no word at all.
    if (previous && new RegExp(`^[\\d!?${ODD_MARKS}${QUOTE_MARKS}]{1,3}$`, 'u').test(text) && word.x0 - previous.x1 < 0.6 * row.size) {
      const raised = word.bottom - word.top < 0.6 * row.size && word.bottom < row.baseline - 0.15 * row.size;
      const read = /^\d+$/u.test(text) || /^[*†‡]$/u.test(text) ? text : null;
      const odd = new RegExp(`[${ODD_MARKS}]`, 'u').test(text);
      const quote = new RegExp(`^[${QUOTE_MARKS}]+$`, 'u').test(text);
      return add('', '', read, raised ? 3 : odd ? 2 : spacedPunctuation && quote ? 1 : 0);
    }
    // Digits glued to the end of a word (`traité10,`), not a reference (`p.265`).
    m = new RegExp(`^(.*\\p{L}{2}[»”"’)\\]]?)(\\d{1,3})(${closing})$`, 'u').exec(text);
    if (m && !/\d/u.test(m[1])) return add(m[1], m[3], m[2], 2);
    // The same with a superscript one read as `!` or `|` (`traité!0.` for `traité¹⁰.`).
    m = new RegExp(`^(.*\\p{L}{2}[»”"’)\\]]?)((?:[!|]\\d|\\d[!|]|[!|]\\d\\d|\\d[!|]\\d|\\d\\d[!|]))(${closing})$`, 'u').exec(text);
    if (m && !/\d/u.test(m[1])) return add(m[1], m[3], m[2].replace(/[!|]/gu, '1'), 2);
    // A sign glued to a word (`word*`).
    m = new RegExp(`^(.*\\p{L})([*†‡])(${closing})$`, 'u').exec(text);
    if (m) return add(m[1], m[3], m[2], 2);
    // Marks OCR made of a superscript, glued to the word or after its punctuation (`reprises!#`, `four®`,
    // `simulation?.`, `corps"`, `terre."`).
    m = new RegExp(`^(.*\\p{L}[.,;:]?)([!?${ODD_MARKS}${QUOTE_MARKS}]{1,3})(${closing})$`, 'u').exec(text);
    if (!m) return;
    const [, before, marks, after] = m;
    // `?,`, `!.` or `.?` is no punctuation any language writes.
    const stray = /[?!]/u.test(marks) && (/^[.,;:]/u.test(after) || /[.,;:]$/u.test(before));
    if (new RegExp(`[${ODD_MARKS}]`, 'u').test(marks) || stray) return add(before, after, null, 2);
    if (!spacedPunctuation) return;
    // A lone `?`, `!` or quote is punctuation in many places: before a sentence that starts with a capital it is
    // no evidence, after a word in another script little.
    const sentenceEnds = /[?!]/u.test(marks) && after === '' && next !== undefined && /^\p{Lu}/u.test(next.text);
    const latin = /\p{Script=Latin}[.,;:]?$/u.test(before);
    add(before, after, null, sentenceEnds ? 0 : latin ? 1.5 : 1);
  });
  // A call the text does not show at all, found in the ink by the correction step (`simulation.`, ⁹ dropped).
  for (const word of row.words) {
    if (!word.raised || found.some((c) => c.word === word)) continue;
    const m = new RegExp(`^(.*?\\p{L})(${closing})$`, 'u').exec(word.text);
    if (m) found.push({ word, before: m[1], after: m[2], read: word.raised, strength: 2 });
  }
  return found;
}

/** How well a candidate fits a note: its strength, more when it reads as the note's number, nothing when it contradicts it. */
function fit(candidate: Candidate, marker: string): number {
  if (candidate.read === null) return candidate.strength;
  // A sign where the notes are numbered: a small digit the engine took for an asterisk, weaker evidence.
  if (signForNumber(candidate, marker)) return candidate.strength - 1;
  if (candidate.read === marker) return candidate.strength + 3;
  if (/^\d+$/u.test(candidate.read) && /^\d+$/u.test(marker) && nearNumber(candidate.read, marker)) return candidate.strength - 0.5;
  return -Infinity;
}

/** The order-keeping match of notes to candidates that scores best (dynamic programming); -1 where a note has none. */
function matchCalls(markers: string[], candidates: Candidate[]): number[] {
  const n = markers.length;
  const m = candidates.length;
  // best[i][j]: best score matching the first i notes within the first j candidates.
  const best = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const score = fit(candidates[j - 1], markers[i - 1]);
      best[i][j] = Math.max(best[i - 1][j], best[i][j - 1], score > 0 ? best[i - 1][j - 1] + score : -Infinity);
    }
  }
  const chosen = new Array<number>(n).fill(-1);
  for (let i = n, j = m; i > 0 && j > 0;) {
    if (best[i][j] === best[i - 1][j]) i--;
    else if (best[i][j] === best[i][j - 1]) j--;
    else {
      chosen[i - 1] = j - 1;
      i--;
      j--;
    }
  }
  // A sign read for a numbered note's call, or a mark that reads as no number at all (a quote, a stray sign), says
  // nothing of which note it calls: when the note beside the one it was given has no call either, either could be
  // meant, and neither is linked to it.
  const signed = chosen.map((j, i) => j >= 0 && /^\d+$/u.test(markers[i]) && (candidates[j].read === null || signForNumber(candidates[j], markers[i])));
  return chosen.map((j, i) => (signed[i] && (chosen[i - 1] === -1 || chosen[i + 1] === -1) ? -1 : j));
}

function signForNumber(candidate: Candidate, marker: string): boolean {
  return candidate.read !== null && /^[*†‡]$/u.test(candidate.read) && /^\d+$/u.test(marker);
}

/** How close a number read is to the one expected: 1 when equal, less for a digit off (little for a lone digit). */
function closeness(read: string, expected: string): number {
  if (read === expected) return 1;
  return nearNumber(read, expected) ? (expected.length > 1 ? 0.5 : 0.2) : 0;
}

/**
 * The numbers of a page's notes from their sequence (`null` where a note's number was not read): the start that
 * makes the most of them read right (a digit off counts for less), preferring to continue the previous page's
 * numbering, then to start again at 1. Kept as read (and unknown where unread) when no start explains at least
 * half of those read.
 */
function sequenceNumbers(read: (number | null)[], previous: number | null): (number | null)[] {
  const known = read.filter((n) => n !== null).length;
  const starts = new Set<number>([...read.flatMap((n, i) => (n !== null ? [n - i] : [])), 1, ...(previous !== null ? [previous + 1] : [])]);
  let best: { start: number; score: number } | null = null;
  for (const start of starts) {
    if (start < 1) continue;
    let score = previous !== null && start === previous + 1 ? 0.3 : start === 1 ? 0.15 : 0;
    read.forEach((n, i) => (score += n === null ? 0 : closeness(String(n), String(start + i))));
    if (!best || score > best.score) best = { start, score };
  }
  if (best && (known === 0 ? previous !== null : best.score >= 0.5 * known)) return read.map((_, i) => best.start + i);
  return read;
}

/** Join a page's first note to the last one when it has no marker and the last one stopped mid-sentence. */
function continues(item: NoteItem, last: LinkedNote | null): boolean {
  const lastLine = last?.lines[last.lines.length - 1];
  return item.marker === null && last !== null && !isTerminated(lastLine?.join(' ') ?? '');
}

/** The note's words line by line, its marker taken off the first line (`¹See` keeps `See`). */
function noteLines(item: NoteItem): string[][] {
  const lines = item.rows.map((r) => r.words.map((w) => w.text));
  if (item.marker) lines[0] = [item.marker.rest, ...lines[0].slice(1)].filter((w) => w !== '');
  return lines;
}

/**
 * Number every footnote of the document and link it to its call (`spacedPunctuation`: the page sets a space
 * before `?` and `!`, as French does). Notes continued on the next page are joined;
 * numbers come from the sequence; calls on a page are matched with that page's notes in order. A note whose call
 * is not found is called at the end of its page's last sentence, so that no note is left without a reference; a
 * note with neither a number nor a call stays unlinked.
 */
export function linkNotes(layouts: PageLayout[], spacedPunctuation: (page: number) => boolean = () => false): NoteLinks {
  const notes = new Map<NoteItem, LinkedNote>();
  const calls = new Map<Word, NoteCall>();
  const trailing = new Map<Row, string[]>();
  const used = new Map<string, number>();
  const idFor = (marker: string): string => {
    const base = SIGN_NAMES[marker] ?? marker;
    const count = (used.get(base) ?? 0) + 1;
    used.set(base, count);
    return count === 1 ? base : `${base}-${count}`;
  };

  let last: LinkedNote | null = null;
  let lastNumber = null as number | null;
  layouts.forEach((layout, page) => {
    // The notes that start on this page, with the marker each was read with.
    const starting: { note: LinkedNote; read: NoteMarker | null }[] = [];
    for (const item of layout.foot) {
      if (item.kind !== 'note') continue;
      if (continues(item, last) && last) {
        last.lines.push(...noteLines(item));
        notes.set(item, last);
        continue;
      }
      const note: LinkedNote = { page, lines: noteLines(item) };
      notes.set(item, note);
      starting.push({ note, read: item.marker });
      last = note;
    }
    // Numbers from the sequence; a note whose number was not read takes its place in it, tentatively (it is linked
    // only if a call is found for it). Notes marked with signs stand outside the sequence.
    const numbered = starting.filter((s) => !s.read || s.read.numeric);
    const fixed = sequenceNumbers(
      numbered.map((s) => (s.read ? Number(s.read.marker) : null)),
      lastNumber,
    );
    numbered.forEach((s, i) => {
      const n = fixed[i];
      if (n !== null) {
        s.note.marker = String(n);
        lastNumber = n;
      }
    });
    for (const s of starting) if (s.read && !s.read.numeric) s.note.marker = s.read.marker;

    const markers = starting.filter((s) => s.note.marker !== undefined);
    const bodyRows = layout.items.flatMap((item: HeadingItem | LineItem) => (item.kind === 'heading' ? item.rows : [item.row]));
    const candidates = bodyRows.flatMap((row) => callCandidates(row, spacedPunctuation(page)));
    const chosen = matchCalls(
      markers.map((s) => s.note.marker as string),
      candidates,
    );
    markers.forEach((s, i) => {
      const tentative = !s.read;
      if (chosen[i] < 0 && tentative) return;
      s.note.id = idFor(s.note.marker as string);
      if (chosen[i] >= 0) {
        const c = candidates[chosen[i]];
        calls.set(c.word, { note: s.note.id, before: c.before, after: c.after });
      } else if (bodyRows.length > 0) {
        // At the end of the page's last sentence (a line ending in a hyphen continues its word on the next line).
        const end = [...bodyRows].reverse().find((r) => isTerminated(r.text)) ?? bodyRows[bodyRows.length - 1];
        trailing.set(end, [...(trailing.get(end) ?? []), s.note.id]);
      }
    });
    // A note called at the end of its paragraph lost its call; a mark that reads as no number (a quote, a stray sign
    // glued to a word) left unlinked beside it is most likely what OCR made of one: dropped from the text, not kept
    // as a stray quote ("revirement”." reads "revirement.").
    const lost = markers.some((s, i) => chosen[i] < 0 && s.read);
    const taken = new Set(chosen);
    candidates.forEach((c, j) => {
      if (!lost || taken.has(j) || calls.has(c.word) || c.strength < STRAY_MARK_STRENGTH) return;
      if (c.read === null || /^[*†‡]$/u.test(c.read)) calls.set(c.word, { note: undefined, before: c.before, after: c.after });
    });
  });
  return { notes, calls, trailing };
}
