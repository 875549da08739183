/**
 * The words the correction checks and how a chosen spelling is written back: a token is one word, or a word hyphenated
 * across a line's end checked as one; its candidate spellings come from the engine's own character choices or from a
 * table of confusions, one of them is taken only when a dictionary accepts exactly one, and it is written back into the
 * token's words with what each was (`OcrWord.correction`).
 */
import type { OcrCorrection, OcrPage, OcrWord } from '../../project/index.js';
import { choiceSegments, type Candidate, type Segment } from './confusions.js';
import { isGreekLetter } from '../scripts.js';
import { splitWord, type WordParts } from './words.js';

/** The engine's character choices for the core of a word, or undefined when they do not line up with it. */
export function coreChoices(word: OcrWord, parts: WordParts): Segment[] | undefined {
  if (!word.alternatives) return undefined;
  const from = Array.from(parts.prefix).length;
  const to = from + Array.from(parts.core).length;
  let at = 0;
  const inside: string[][] = [];
  for (const group of word.alternatives) {
    const length = Array.from(group[0] ?? '').length;
    const [start, end] = [at, at + length];
    at = end;
    if (end <= from || start >= to) continue;
    if (start < from || end > to) return undefined;
    inside.push(group);
  }
  return choiceSegments(inside, parts.core);
}

/** One word to check, or a word hyphenated across a line end and the start of the next line, checked as one. */
export interface Token {
  words: OcrWord[];
  parts: WordParts[];
  /** Letters of the rest of the word's line, by script: the word's context. */
  line: { latin: number; greek: number };
  /** The words before and after it in its paragraph. */
  before?: OcrWord;
  after?: OcrWord;
}

const HYPHEN_END = /[-\u2010\u00ad]$/u;

export function tokensOf(page: OcrPage): Token[] {
  const tokens: Token[] = [];
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      const lines = paragraph.lines;
      let carried: OcrWord | undefined;
      lines.forEach((line, li) => {
        const counts = line.words.map((w) => letterCounts(w.text));
        const total = counts.reduce((s, c) => ({ latin: s.latin + c.latin, greek: s.greek + c.greek }), { latin: 0, greek: 0 });
        line.words.forEach((word, wi) => {
          if (wi === 0 && carried) {
            const first = carried;
            carried = undefined;
            const head = splitWord(first.text.replace(HYPHEN_END, ''));
            tokens.push({ words: [first, word], parts: [head, splitWord(word.text)], line: total, before: undefined, after: line.words[1] });
            return;
          }
          const isLast = wi === line.words.length - 1;
          const nextLine = lines[li + 1];
          if (isLast && nextLine && nextLine.words.length > 0 && HYPHEN_END.test(word.text) && /\p{L}/u.test(word.text)) {
            carried = word;
            return;
          }
          const own = counts[wi];
          tokens.push({
            words: [word],
            parts: [splitWord(word.text)],
            line: { latin: total.latin - own.latin, greek: total.greek - own.greek },
            // Across a line's end too: the paragraph's text runs on.
            before: line.words[wi - 1] ?? lines[li - 1]?.words.at(-1),
            after: line.words[wi + 1] ?? nextLine?.words[0],
          });
        });
      });
      if (carried) tokens.push({ words: [carried], parts: [splitWord(carried.text)], line: { latin: 0, greek: 0 } });
    }
  }
  return tokens;
}

function letterCounts(text: string): { latin: number; greek: number } {
  let latin = 0;
  let greek = 0;
  for (const ch of text) {
    if (isGreekLetter(ch)) greek++;
    else if (/\p{L}/u.test(ch)) latin++;
  }
  return { latin, greek };
}

/**
 * The one candidate spelling a lexicon accepts, with the language that accepted it; 'several' when a second distinct
 * spelling is accepted (the correction is then not sure, and leaves the word as read) — unless, with `common`, exactly
 * one of a few is among its language's most frequent words; undefined for none.
 */
export function onlyAccepted(
  candidates: Iterable<Candidate>,
  accept: (word: string) => string | undefined,
  common?: (word: string, language: string) => boolean,
): { candidate: Candidate; language: string } | 'several' | undefined {
  const found = new Map<string, { candidate: Candidate; language: string }>();
  for (const candidate of candidates) {
    const text = candidate.parts.join('');
    if (found.has(text)) continue;
    const language = accept(text);
    if (language) found.set(text, { candidate, language });
    if (found.size > (common ? MAX_SEVERAL : 1)) return 'several';
  }
  if (found.size <= 1) return found.size === 1 ? [...found.values()][0] : undefined;
  const frequent = [...found].filter(([text, f]) => common?.(text, f.language));
  return frequent.length === 1 ? frequent[0][1] : 'several';
}

/** Beyond this many words made from one reading, none is taken, however frequent. */
const MAX_SEVERAL = 6;

/** The engine's choices for the whole token (both halves of a hyphenated word), when every word has them. */
export function choiceSegmentsOf(token: Token): Segment[] | undefined {
  const all: Segment[] = [];
  for (const [i, word] of token.words.entries()) {
    const segments = coreChoices(word, token.parts[i]);
    if (!segments) return undefined;
    all.push(...segments);
  }
  return all.some((s) => s.options.length > 0) ? all : undefined;
}

/** Every spelling with all the letters at `at` replaced (a product over their options), up to a limit. */
export function* everyReplaced(segments: readonly Segment[], at: readonly number[], limit = 4096): Generator<Candidate> {
  const parts = segments.map((s) => s.read);
  let made = 0;
  function* fill(k: number): Generator<Candidate> {
    if (made >= limit) return;
    if (k === at.length) {
      made++;
      yield { parts: [...parts], changed: [...at] };
      return;
    }
    for (const option of segments[at[k]].options) {
      parts[at[k]] = option;
      yield* fill(k + 1);
    }
    parts[at[k]] = segments[at[k]].read;
  }
  yield* fill(0);
}

/** Write a candidate back into the token's words, recording what each word was. */
export function apply(token: Token, segments: readonly Segment[], candidate: Candidate, what: Omit<OcrCorrection, 'from'>): void {
  // The segments run through the words' cores in order: cut the candidate where each core's segments end.
  let at = 0;
  token.words.forEach((word, i) => {
    const parts = token.parts[i];
    let length = 0;
    let consumed = 0;
    while (at + consumed < segments.length && length < Array.from(parts.core).length) {
      length += Array.from(segments[at + consumed].read).length;
      consumed++;
    }
    const core = candidate.parts.slice(at, at + consumed).join('');
    at += consumed;
    if (core === parts.core) return;
    const hyphen = i === 0 && token.words.length === 2 ? (HYPHEN_END.exec(word.text)?.[0] ?? '') : '';
    const text = `${parts.prefix}${core}${parts.suffix}${hyphen}`;
    word.correction = { from: word.text, ...what };
    word.text = text;
    delete word.unknown;
  });
}
