/// <reference lib="dom" />
/**
 * A modal dialog on the browser's own `<dialog>`: it traps focus, closes on Escape and returns
 * focus where it was, so the app need not re-implement any of that.
 */
import { h, type ComponentChild, type ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let nextId = 0;

export function Modal({ title, onClose, children, wide = false, role = 'dialog' }: { title: string; onClose: () => void; children?: ComponentChildren; wide?: boolean; role?: 'dialog' | 'alertdialog' }): ComponentChild {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useRef(`dialog-title-${++nextId}`);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);
  return h(
    'dialog',
    {
      ref,
      class: wide ? 'modal modal-wide' : 'modal',
      role,
      'aria-labelledby': id.current,
      onCancel: (e: Event) => {
        e.preventDefault();
        onClose();
      },
    },
    h(
      'div',
      { class: 'modal-head' },
      h('h2', { id: id.current }, title),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close dialog', onClick: onClose }, h('span', { 'aria-hidden': 'true' }, '×')),
    ),
    h('div', { class: 'modal-body' }, children),
  );
}
