/// <reference lib="dom" />
/**
 * The proofreading view: the recognised text beside the page image. Words worth a look (the engine was unsure,
 * or the correction step changed them) are marked on both; a word picked in the text shows its box on the page
 * and, enlarged, its line; Enter corrects it in place. "Next word to check" (N) goes through them, on to the
 * next pages. Every correction is saved in the project at once and goes into every export.
 */
import { Fragment, h, type ComponentChild } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { DocumentDetail, PageView, PageWords, WordEditResult, WordView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { lineBox, ProofPage, WordDetail, WordInput, wordNote, wordState } from './proof-word.js';
import { isTyping } from './shortcuts.js';

/** Which word to pick when a page opens: the first or last word to check, or none. */
export type InitialWord = 'first-doubtful' | 'last-doubtful' | null;

/**
 * Where a key pressed in the text moves the pick: a word's number, `edit` (Enter, F2), null when it moves nowhere,
 * undefined when the key is not one of the text's.
 */
function keyTarget(key: string, words: PageWords, all: WordView[], current: WordView | undefined): number | 'edit' | null | undefined {
  const lines = words.lines;
  const at = current ? lines.findIndex((l) => l.words.some((w) => w.n === current.n)) : -1;
  switch (key) {
    case 'ArrowRight':
      return current ? Math.min(current.n + 1, all.length - 1) : 0;
    case 'ArrowLeft':
      return current ? Math.max(current.n - 1, 0) : 0;
    case 'ArrowDown':
    case 'ArrowUp': {
      const target = lines[at + (key === 'ArrowDown' ? 1 : -1)];
      if (!target || !current) return !current && all.length > 0 ? 0 : null;
      const middle = (current.box.x0 + current.box.x1) / 2;
      const nearest = target.words.reduce((best, w) =>
        Math.abs((w.box.x0 + w.box.x1) / 2 - middle) < Math.abs((best.box.x0 + best.box.x1) / 2 - middle) ? w : best,
      );
      return nearest.n;
    }
    case 'Home':
      return at >= 0 ? lines[at].words[0].n : null;
    case 'End':
      return at >= 0 ? lines[at].words[lines[at].words.length - 1].n : null;
    case 'Enter':
    case 'F2':
      return 'edit';
    default:
      return undefined;
  }
}

/** The proofreading bar: the words to check on this page and in the document, and the way to the next one. */
function ProofBar({
  pageDoubtful,
  docDoubtful,
  checked,
  nextDoubtful,
}: {
  pageDoubtful: number;
  docDoubtful: number;
  checked: number;
  nextDoubtful: (direction: 1 | -1) => void;
}): ComponentChild {
  return h(
    'div',
    { class: 'proof-bar' },
    h('h3', { id: 'proof-title' }, 'Proofreading'),
    h(
      'p',
      { class: 'muted small', role: 'status' },
      `${pageDoubtful} word${pageDoubtful === 1 ? '' : 's'} to check on this page`,
      docDoubtful !== pageDoubtful ? `, ${docDoubtful} in the document` : '',
      checked > 0 ? ` · ${checked} checked` : '',
    ),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'button', onClick: () => nextDoubtful(-1), 'aria-keyshortcuts': 'Shift+N' }, 'Previous'),
      h('button', { type: 'button', class: 'button primary', onClick: () => nextDoubtful(1), 'aria-keyshortcuts': 'N' }, 'Next word to check'),
    ),
  );
}

/** The page's words, paragraph by paragraph and line by line, each a button (the one being corrected a field). */
function ProofLines({
  words,
  current,
  pick,
  startEditing,
  input,
}: {
  words: PageWords;
  current: WordView | undefined;
  pick: (n: number) => void;
  startEditing: () => void;
  /** The field a word is being corrected in, if it is. */
  input: (w: WordView) => ComponentChild;
}): ComponentChild {
  const button = (w: WordView): ComponentChild =>
    h(
      'button',
      {
        key: w.n,
        type: 'button',
        class: `word ${wordState(w)}${current?.n === w.n ? ' selected' : ''}`,
        'data-n': w.n,
        tabIndex: (current ? current.n === w.n : w.n === 0) ? 0 : -1,
        'aria-pressed': current?.n === w.n,
        onClick: () => (current?.n === w.n ? startEditing() : pick(w.n)),
      },
      w.text === '' ? h('span', { class: 'removed' }, '(removed)') : w.text,
      h('span', { class: 'visually-hidden' }, wordNote(w)),
    );
  return h(
    Fragment,
    null,
    groupParagraphs(words).map((para) =>
      h(
        'div',
        { class: 'proof-para' },
        para.map((line) =>
          h(
            'div',
            { class: 'proof-line' },
            line.words.map((w) => input(w) ?? button(w)),
          ),
        ),
      ),
    ),
  );
}

/** A word's correction in progress: whether it runs, the text typed. */
function useWordEditing(): {
  editing: boolean;
  draft: string;
  setDraft: (text: string) => void;
  editingRef: { current: boolean };
  stopEditing: () => void;
  begin: (text: string) => void;
} {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  // Set at once (state lags a render): the field's blur after Enter or Escape must not save a second time.
  const editingRef = useRef(false);
  const stopEditing = (): void => {
    editingRef.current = false;
    setEditing(false);
  };
  const begin = (text: string): void => {
    setDraft(text);
    editingRef.current = true;
    setEditing(true);
  };
  return { editing, draft, setDraft, editingRef, stopEditing, begin };
}

/** A page's words, read again when the document changes; `onNewPage` runs when another page's words arrive. */
function usePageWords(
  docId: string,
  pageIndex: number,
  revision: number,
  onNewPage: (w: PageWords) => void,
): { words: PageWords | null; setWords: (f: (w: PageWords | null) => PageWords | null) => void; error: string | null } {
  const [words, setWords] = useState<PageWords | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shownPage = useRef<number | null>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    api<PageWords>('GET', `/api/documents/${docId}/pages/${pageIndex}/words`).then(
      (w) => {
        if (!live) return;
        if (shownPage.current !== w.index) {
          shownPage.current = w.index;
          onNewPage(w);
        }
        setWords(w);
      },
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [docId, pageIndex, revision]);
  return { words, setWords, error };
}

/** The picked word takes the focus when the keyboard moved to it (`focusWord`), and shows on the page and in the text. */
function useFocusPicked(
  textRef: { current: HTMLDivElement | null },
  selected: number | null,
  editing: boolean,
  words: PageWords | null,
  focusWord: { current: boolean },
): void {
  useEffect(() => {
    if (selected === null || editing) return;
    const button = textRef.current?.querySelector<HTMLElement>(`[data-n="${selected}"]`);
    button?.scrollIntoView({ block: 'nearest' });
    if (focusWord.current) {
      button?.focus({ preventScroll: true });
      focusWord.current = false;
    }
  }, [selected, editing, words]);
}

/** The next word to check after word `at` (or before it), on this page. */
function nextDoubtfulWord(list: WordView[], at: number | null, direction: 1 | -1): WordView | undefined {
  const from = at ?? (direction === 1 ? -1 : Number.MAX_SAFE_INTEGER);
  const candidates = list.filter((w) => w.doubtful && (direction === 1 ? w.n > from : w.n < from));
  return direction === 1 ? candidates[0] : candidates[candidates.length - 1];
}

/** N and Shift+N work anywhere in the page view, not only in the text. */
function useNextWordKeys(nextDoubtful: (direction: 1 | -1) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || isTyping(e) || document.querySelector('dialog[open]')) return;
      if (e.key === 'n' || e.key === 'N') {
        e.preventDefault();
        nextDoubtful(e.shiftKey ? -1 : 1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
}

type Note = { tone: 'ok' | 'bad'; text: string };

/** Saves a word's correction, check or restore at `url`, puts the saved word in the page's words, and says what was done. */
async function saveWordEdit(
  url: string,
  word: WordView,
  change: { text?: string; restore?: boolean },
  setWords: (f: (w: PageWords | null) => PageWords | null) => void,
): Promise<Note> {
  try {
    const result = await api<WordEditResult>('PUT', url, { ...change, was: word.text });
    setWords((w) =>
      w ? { ...w, ...result.page, lines: w.lines.map((l) => ({ ...l, words: l.words.map((x) => (x.n === result.word.n ? result.word : x)) })) } : w,
    );
    return {
      tone: 'ok',
      text: change.restore
        ? `Back to “${result.word.text}”.`
        : result.word.text === word.text
          ? `“${word.text}” is checked.`
          : `“${word.text}” is now “${result.word.text}”.`,
    };
  } catch (e) {
    return { tone: 'bad', text: messageOf(e) };
  }
}

export function ProofreadView({
  doc,
  page,
  initialWord,
  onOtherPage,
}: {
  doc: DocumentDetail;
  page: PageView;
  initialWord: InitialWord;
  /** Go to the nearest page (after or before this one) with words to check, picking its first or last one. */
  onOtherPage: (direction: 1 | -1) => boolean;
}): ComponentChild {
  const [selected, setSelected] = useState<number | null>(null);
  const { editing, draft, setDraft, editingRef, stopEditing, begin } = useWordEditing();
  const [note, setNote] = useState<Note | null>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const focusWord = useRef(false);
  const busy = doc.status === 'working';

  // A new page starts where the person asked; the same page read again (after an edit) keeps its place.
  const { words, setWords, error } = usePageWords(doc.id, page.index, doc.revision, (w) => {
    const doubtful = w.lines.flatMap((l) => l.words).filter((x) => x.doubtful);
    const first = initialWord === 'first-doubtful' ? doubtful[0] : initialWord === 'last-doubtful' ? doubtful[doubtful.length - 1] : undefined;
    setSelected(first ? first.n : null);
    stopEditing();
    focusWord.current = first !== undefined;
  });

  const all = useMemo(() => words?.lines.flatMap((l) => l.words) ?? [], [words]);
  const current = selected === null ? undefined : all.find((w) => w.n === selected);
  // Keys pressed faster than the page renders go from the word just picked, not from the one last drawn.
  const latest = useRef({ selected, all, loaded: false });
  latest.current = { selected, all, loaded: words?.index === page.index };

  useFocusPicked(textRef, selected, editing, words, focusWord);

  // A word picked anyhow (keys, a click in the text or on the page image) has the focus, so Enter corrects it.
  const pick = (n: number): void => {
    setNote(null);
    stopEditing();
    // Picked again (the same word clicked once more on the image): nothing re-renders, so it is focused here.
    if (n === latest.current.selected) textRef.current?.querySelector<HTMLElement>(`[data-n="${n}"]`)?.focus({ preventScroll: true });
    latest.current.selected = n;
    setSelected(n);
    focusWord.current = true;
  };

  const nextDoubtful = (direction: 1 | -1): void => {
    const { selected: at, all: list, loaded } = latest.current;
    // The next page is still loading (a key pressed right after moving to it): that key waits for nothing.
    if (!loaded) return;
    const target = nextDoubtfulWord(list, at, direction);
    if (target) {
      pick(target.n);
      return;
    }
    if (onOtherPage(direction)) latest.current.loaded = false;
    else
      setNote({ tone: 'ok', text: direction === 1 ? 'No word to check after this one, on this page or the next ones.' : 'No word to check before this one.' });
  };

  useNextWordKeys(nextDoubtful);

  const startEditing = (): void => {
    if (!current || busy) return;
    setNote(null);
    begin(current.text);
  };

  const save = async (change: { text?: string; restore?: boolean }): Promise<void> => {
    if (!current || !words) return;
    const word = current;
    stopEditing();
    focusWord.current = true;
    // Nothing to record: the word is already checked and unchanged.
    if (change.text !== undefined && change.text.trim() === word.text && word.edit) return;
    setNote(await saveWordEdit(`/api/documents/${doc.id}/pages/${page.index}/words/${word.n}`, word, change, setWords));
  };

  const onTextKey = (e: KeyboardEvent): void => {
    if (editing || isTyping(e) || !words) return;
    const at0 = latest.current.selected;
    const target = keyTarget(e.key, words, all, at0 === null ? undefined : all.find((w) => w.n === at0));
    if (target === undefined) return;
    if (target === 'edit') startEditing();
    else if (target !== null) pick(target);
    e.preventDefault();
    // The page view's own keys (← → turn pages) wait while the text has them.
    e.stopPropagation();
  };

  if (error) return h('p', { class: 'error', role: 'alert' }, error);
  if (!words) return h('p', { class: 'muted', role: 'status' }, 'Loading the words…');

  const pageDoubtful = words.doubtful;
  const docDoubtful = doc.proofreading?.doubtful ?? pageDoubtful;
  const marked = all.filter((w) => w.doubtful || w.edit);
  const magnified = current ? lineBox(words, current) : null;

  return h(
    'div',
    { class: 'proof' },
    h(ProofPage, { words, page, marked, current, pick }),
    h(
      'section',
      { class: 'proof-text', 'aria-labelledby': 'proof-title' },
      h(ProofBar, { pageDoubtful, docDoubtful, checked: words.checked, nextDoubtful }),
      current && magnified
        ? h(WordDetail, { current, magnified, words, page, busy, startEditing, save, onNote: (tone, text) => setNote({ tone, text }) })
        : h('p', { class: 'muted small' }, 'Pick a word, or press N for the next word to check. Enter corrects it.'),
      note ? h('p', { class: note.tone === 'bad' ? 'error' : 'outcome ok', role: note.tone === 'bad' ? 'alert' : 'status' }, note.text) : null,
      busy ? h('p', { class: 'notice', role: 'status' }, 'Corrections wait until the running task ends.') : null,
      h(
        'div',
        { class: 'proof-words', ref: textRef, role: 'group', 'aria-label': `Recognised text of page ${page.index}`, onKeyDown: onTextKey },
        all.length === 0 ? h('p', { class: 'muted' }, 'No text was found on this page.') : null,
        h(ProofLines, {
          words,
          current,
          pick,
          startEditing,
          input: (w) =>
            editing && current && w.n === current.n
              ? h(WordInput, {
                  key: `edit-${w.n}`,
                  word: w,
                  draft,
                  setDraft,
                  save,
                  editingRef,
                  onStop: (refocus) => {
                    stopEditing();
                    if (refocus) focusWord.current = true;
                  },
                })
              : null,
        }),
      ),
    ),
  );
}

function groupParagraphs(words: PageWords): PageWords['lines'][] {
  const paragraphs: PageWords['lines'][] = [];
  for (const line of words.lines) {
    const last = paragraphs[paragraphs.length - 1];
    if (last && last[0].paragraph === line.paragraph) last.push(line);
    else paragraphs.push([line]);
  }
  return paragraphs;
}
