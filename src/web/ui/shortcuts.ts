/// <reference lib="dom" />
/** The keyboard shortcuts: one list, shown by `?`, and the test of whether a key press is the app's to take. */
import { h, type ComponentChild } from 'preact';
import { Modal } from './dialog.js';

export const SHORTCUTS: Array<{ keys: string[]; what: string; where: string }> = [
  { keys: ['?'], what: 'Show these shortcuts', where: 'Anywhere' },
  { keys: ['O'], what: 'Open files as a new document', where: 'Anywhere' },
  { keys: ['←', 'Page Up'], what: 'Previous page', where: 'Page view' },
  { keys: ['→', 'Page Down'], what: 'Next page', where: 'Page view' },
  { keys: ['Home', 'End'], what: 'First page, last page', where: 'Page view' },
  { keys: ['Esc'], what: 'Back to all pages; close a dialog or a panel', where: 'Page view, dialogs, panels' },
  { keys: ['P'], what: 'Proofread this page, or compare it with its capture', where: 'Page view' },
  { keys: ['N'], what: 'Next word to check (on the next pages too)', where: 'Proofreading' },
  { keys: ['Shift+N'], what: 'Previous word to check', where: 'Proofreading' },
  { keys: ['←', '→', '↑', '↓'], what: 'Move between words', where: 'Proofreading, in the text' },
  { keys: ['Enter'], what: 'Correct the word; Enter again saves (unchanged, it marks the word checked)', where: 'Proofreading' },
  { keys: ['Esc'], what: 'Leave the word as it was', where: 'Proofreading, while correcting' },
  { keys: ['←', '→', '↑', '↓'], what: 'Move between pages', where: 'All pages' },
];

/** Key presses typed into a field, or made with Ctrl, Alt or ⌘, are the browser's and the field's, never a shortcut. */
export function isTyping(e: KeyboardEvent): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey) return true;
  const target = e.target as HTMLElement | null;
  if (!target) return false;
  return target.isContentEditable || target.closest('input, select, textarea') !== null;
}

export function ShortcutsDialog({ onClose }: { onClose: () => void }): ComponentChild {
  return h(
    Modal,
    { title: 'Keyboard shortcuts', onClose, wide: true },
    h(
      'table',
      { class: 'shortcuts' },
      h('caption', { class: 'visually-hidden' }, 'Keyboard shortcuts'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Keys'), h('th', { scope: 'col' }, 'What they do'), h('th', { scope: 'col' }, 'Where'))),
      h(
        'tbody',
        null,
        SHORTCUTS.map((s) =>
          h(
            'tr',
            null,
            h(
              'td',
              null,
              s.keys.map((k, i) => [i > 0 ? ' ' : null, h('kbd', null, k)]),
            ),
            h('td', null, s.what),
            h('td', { class: 'muted' }, s.where),
          ),
        ),
      ),
    ),
    h('p', { class: 'muted small' }, 'Tab and Shift+Tab move through every control; Enter or Space presses a button.'),
    h('div', { class: 'modal-actions' }, h('button', { type: 'button', class: 'button primary', onClick: onClose, 'data-autofocus': true }, 'Close')),
  );
}
