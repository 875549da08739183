/// <reference lib="dom" />
/**
 * One word of the proofreading view: its state and what a screen reader hears of it, why it is worth a look,
 * its box on the page image and its line enlarged, and the field it is corrected in.
 */
import { h, type ComponentChild } from 'preact';
import type { PageView, PageWords, WordView } from '../api-types.js';
import { AddToDictionary } from './dictionary.js';
import { Icon } from './icons.js';

export function wordState(w: WordView): string {
  if (w.edit) return w.edit.from === w.text ? 'checked' : 'edited';
  return w.doubtful ? 'doubtful' : '';
}

/** What a screen reader hears after the word itself. */
export function wordNote(w: WordView): string {
  if (w.edit) return w.edit.from === w.text ? ', checked' : `, corrected from ${w.edit.from}`;
  if (w.correction) return `, changed from ${w.correction.from} by the correction step`;
  return w.doubtful ? ', worth checking' : '';
}

function whyDoubtful(w: WordView): string[] {
  const lines: string[] = [];
  if (w.edit) lines.push(w.edit.from === w.text ? 'You checked this word.' : `You corrected it from “${w.edit.from}”.`);
  if (w.correction) lines.push(`The correction step changed “${w.correction.from}” to this (${correctionWhy(w.correction)}).`);
  lines.push(`The engine was ${Math.round(w.confidence)}% sure of its reading.`);
  return lines;
}

/** Why the correction step changed a word, in words: its reason, the characters it changed. */
function correctionWhy(c: NonNullable<WordView['correction']>): string {
  const why =
    c.reason === 'engine-choice'
      ? 'the only dictionary word among the letters the engine hesitated between'
      : c.reason === 'known-confusion'
        ? 'the only dictionary word after undoing a usual OCR misreading'
        : c.reason === 'script'
          ? 'Greek look-alike letters inside a Latin word'
          : c.reason === 'grammar'
            ? 'the word after it calls for the other spelling'
            : c.reason === 'punctuation'
              ? 'the punctuation the page prints, by its ink or as the book sets it'
              : c.reason === 'letter-case'
                ? 'the ink is a small letter, no taller than the others'
                : c.reason === 'reread'
                  ? 'read again on its own, it is a dictionary word'
                  : c.reason === 'note-call'
                    ? 'the raised note call, read on its own'
                    : c.reason;
  return c.change ? `${why}: ${c.change}` : why;
}

/** The box of the line a word sits on, widened a little: what the magnifier shows. */
export function lineBox(words: PageWords, w: WordView): { x: number; y: number; width: number; height: number } {
  const line = words.lines.find((l) => l.words.some((x) => x.n === w.n));
  const boxes = (line?.words ?? [w]).map((x) => x.box);
  const x0 = Math.min(...boxes.map((b) => b.x0));
  const x1 = Math.max(...boxes.map((b) => b.x1));
  const y0 = Math.min(...boxes.map((b) => b.y0));
  const y1 = Math.max(...boxes.map((b) => b.y1));
  const pad = Math.max(6, (y1 - y0) * 0.3);
  const x = Math.max(0, x0 - pad);
  const y = Math.max(0, y0 - pad);
  return { x, y, width: Math.min(words.width, x1 + pad) - x, height: Math.min(words.height, y1 + pad) - y };
}

function rect(w: WordView, cls: string, onPick?: (n: number) => void): ComponentChild {
  return h('rect', {
    key: `${cls}-${w.n}`,
    class: `word-box ${cls}`,
    x: w.box.x0,
    y: w.box.y0,
    width: Math.max(1, w.box.x1 - w.box.x0),
    height: Math.max(1, w.box.y1 - w.box.y0),
    ...(onPick ? { onClick: () => onPick(w.n) } : {}),
  });
}

/** The page image with the words to check, the checked ones and the picked one marked. */
export function ProofPage({
  words,
  page,
  marked,
  current,
  pick,
}: {
  words: PageWords;
  page: PageView;
  marked: WordView[];
  current: WordView | undefined;
  pick: (n: number) => void;
}): ComponentChild {
  const pageDoubtful = words.doubtful;
  return h(
    'figure',
    { class: 'proof-page' },
    h(
      'figcaption',
      null,
      h('strong', null, 'The page'),
      ' — words to check are marked',
      h('span', { class: 'swatch doubtful', 'aria-hidden': 'true' }),
      ', checked ones',
      h('span', { class: 'swatch checked', 'aria-hidden': 'true' }),
    ),
    h(
      'svg',
      {
        class: 'proof-image',
        viewBox: `0 0 ${words.width} ${words.height}`,
        role: 'img',
        'aria-label': `Page ${page.index} with ${pageDoubtful} word${pageDoubtful === 1 ? '' : 's'} to check marked${current ? `, and the box of “${current.text}”` : ''}`,
      },
      h('image', { href: page.image, x: 0, y: 0, width: words.width, height: words.height, preserveAspectRatio: 'none' }),
      marked.map((w) => rect(w, wordState(w), pick)),
      current ? rect(current, 'selected') : null,
    ),
  );
}

/** The picked word: its line enlarged, why it is worth a look, and what can be done with it. */
export function WordDetail({
  current,
  magnified,
  words,
  page,
  busy,
  startEditing,
  save,
  onNote,
}: {
  current: WordView;
  magnified: { x: number; y: number; width: number; height: number };
  words: PageWords;
  page: PageView;
  busy: boolean;
  startEditing: () => void;
  save: (change: { text?: string; restore?: boolean }) => Promise<void>;
  onNote: (tone: 'ok' | 'bad', text: string) => void;
}): ComponentChild {
  return h(
    'div',
    { class: 'word-detail' },
    h(
      'svg',
      {
        class: 'magnifier',
        viewBox: `${magnified.x} ${magnified.y} ${magnified.width} ${magnified.height}`,
        role: 'img',
        'aria-label': `The line of “${current.text}” on the page, enlarged`,
      },
      h('image', { href: page.image, x: 0, y: 0, width: words.width, height: words.height, preserveAspectRatio: 'none' }),
      rect(current, 'selected'),
    ),
    h(
      'div',
      { class: 'word-facts small' },
      whyDoubtful(current).map((t) => h('p', null, t)),
    ),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        { type: 'button', class: 'button', disabled: busy, onClick: startEditing, 'aria-keyshortcuts': 'Enter' },
        h(Icon, { name: 'pen', size: 16 }),
        'Correct',
      ),
      !current.edit ? h('button', { type: 'button', class: 'button', disabled: busy, onClick: () => void save({ text: current.text }) }, 'Mark checked') : null,
      current.edit
        ? h('button', { type: 'button', class: 'button subtle', disabled: busy, onClick: () => void save({ restore: true }) }, `Restore “${current.edit.from}”`)
        : null,
      h(AddToDictionary, { word: current, disabled: busy, onNote }),
    ),
  );
}

/** The field a word is corrected in: Enter saves, Escape gives up, leaving it saves a changed word. */
export function WordInput({
  word,
  draft,
  setDraft,
  save,
  editingRef,
  onStop,
}: {
  word: WordView;
  draft: string;
  setDraft: (text: string) => void;
  save: (change: { text?: string; restore?: boolean }) => Promise<void>;
  /** Set at once (state lags a render): the field's blur after Enter or Escape must not save a second time. */
  editingRef: { current: boolean };
  /** Stop editing; `refocus`: the word takes the focus again. */
  onStop: (refocus: boolean) => void;
}): ComponentChild {
  return h('input', {
    class: 'word-input',
    value: draft,
    size: Math.max(4, draft.length + 2),
    'aria-label': `Correct “${word.text}”`,
    spellcheck: false,
    ref: (el: HTMLInputElement | null) => {
      if (el && document.activeElement !== el) {
        el.focus();
        el.select();
      }
    },
    onInput: (e: Event) => setDraft((e.currentTarget as HTMLInputElement).value),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        void save({ text: draft });
      } else if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        onStop(true);
      }
    },
    onBlur: () => {
      if (!editingRef.current) return;
      if (draft.trim() !== word.text) void save({ text: draft });
      else onStop(false);
    },
  });
}
