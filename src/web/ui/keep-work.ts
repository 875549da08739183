/// <reference lib="dom" />
/**
 * What keeps a person's work in the window: the question before a rerun throws corrections away, and the list
 * of documents kept from earlier sessions of `quire gui`.
 */
import { h, type ComponentChild } from 'preact';
import { ConfirmDialog } from './dialog.js';

function words(n: number): string {
  return `${n} word${n === 1 ? '' : 's'}`;
}

/** Rerun makes new pages, and new pages need new text: the corrections made on the old text go. */
export function RerunConfirm({ checked, onConfirm, onCancel }: { checked: number; onConfirm: () => void; onCancel: () => void }): ComponentChild {
  return h(
    ConfirmDialog,
    { title: 'Make the pages again?', confirmLabel: 'Rerun and discard them', cancelLabel: 'Keep my corrections', onConfirm, onCancel },
    h(
      'p',
      null,
      `This makes every page anew and recognises its text again, so the ${words(checked)} you checked or corrected ${checked === 1 ? 'is' : 'are'} lost.`,
    ),
    h('p', { class: 'muted small' }, 'Export the document first (a slim project keeps your corrections) if you want to keep them.'),
  );
}
