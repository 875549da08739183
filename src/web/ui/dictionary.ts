/// <reference lib="dom" />
/**
 * The person's dictionary in the window: "Add to dictionary" on a word proofreading marks (it stops being marked in
 * this document and every later one), and the list itself, one word a line, to edit in Settings.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { WordView } from '../api-types.js';
import { api, messageOf } from './api.js';

export function AddToDictionary({
  word,
  disabled,
  onNote,
}: {
  word: WordView;
  disabled: boolean;
  onNote: (tone: 'ok' | 'bad', text: string) => void;
}): ComponentChild {
  if (!word.doubtful) return null;
  const add = (): void => {
    api('POST', '/api/dictionary/words', { word: word.text }).then(
      () => onNote('ok', `“${word.text}” is in your dictionary: it is no longer marked, here or in later documents.`),
      (e: unknown) => onNote('bad', messageOf(e)),
    );
  };
  return h('button', { type: 'button', class: 'button', disabled, onClick: add }, 'Add to dictionary');
}

export function DictionaryEditor(): ComponentChild {
  const [text, setText] = useState<string | null>(null);
  const [state, setState] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  useEffect(() => {
    api<{ words: string[] }>('GET', '/api/dictionary').then(
      (d) => setText(d.words.join('\n')),
      (e: unknown) => setState({ tone: 'bad', text: messageOf(e) }),
    );
  }, []);
  const save = async (): Promise<void> => {
    setState(null);
    try {
      const d = await api<{ words: string[] }>('PUT', '/api/dictionary', { words: (text ?? '').split('\n') });
      setText(d.words.join('\n'));
      setState({ tone: 'ok', text: `Saved: ${d.words.length} word${d.words.length === 1 ? '' : 's'}.` });
    } catch (e) {
      setState({ tone: 'bad', text: messageOf(e) });
    }
  };
  return h(
    'form',
    {
      class: 'panel-content dictionary',
      onSubmit: (e: Event) => {
        e.preventDefault();
        void save();
      },
    },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-dictionary' }, 'Your dictionary'),
      h('textarea', {
        id: 'set-dictionary',
        rows: 6,
        spellcheck: false,
        value: text ?? '',
        disabled: text === null,
        'aria-describedby': 'set-dictionary-help',
        onInput: (e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value),
      }),
      h(
        'p',
        { class: 'muted small', id: 'set-dictionary-help' },
        'One word a line. Proofreading does not mark these words as ones to check, in any document; case and the punctuation around a word do not matter.',
      ),
    ),
    h('div', { class: 'panel-actions' }, h('button', { type: 'submit', class: 'button', disabled: text === null }, 'Save dictionary')),
    state ? h('p', { class: `outcome ${state.tone}`, role: state.tone === 'bad' ? 'alert' : 'status' }, state.text) : null,
  );
}
