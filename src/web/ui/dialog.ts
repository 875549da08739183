/// <reference lib="dom" />
/**
 * A modal dialog on the browser's own `<dialog>`: it keeps focus inside and closes on Escape. On opening, focus
 * goes to the element marked `data-autofocus` (else the first field or button of the body); on closing, it
 * returns to where it was, so a keyboard user is never left at the top of the page. `ConfirmDialog` is the app's
 * question before anything that cannot be undone, in place of the browser's `confirm()`.
 */
import { h, type ComponentChild, type ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

let nextId = 0;

const FIRST_FIELD = '.modal-body :is(input:not([type=hidden]):not([tabindex="-1"]), select, textarea, button, a[href]):not(:disabled)';

/** Where focus goes in a dialog: the element marked `data-autofocus` when it can take it, else the first field. */
function focusTarget(dialog: HTMLDialogElement): HTMLElement | null {
  const marked = dialog.querySelector<HTMLElement>('[data-autofocus]');
  return marked && !(marked as HTMLButtonElement).disabled ? marked : dialog.querySelector<HTMLElement>(FIRST_FIELD);
}

/**
 * A dialog whose fields arrive later (settings read from the server, an Install button enabled once the plugin's
 * declaration is read) gives them the focus when they come, as long as the person has not moved it themselves:
 * until then it sits where the dialog put it (the first field, or nowhere).
 */
function focusWhenReady(dialog: HTMLDialogElement): () => void {
  const close = dialog.querySelector('.modal-head button');
  let placed: Element | null = null;
  const idle = (): boolean => {
    const at = document.activeElement;
    return at === null || at === document.body || at === dialog || at === close || at === placed;
  };
  /** True when there is nothing more to wait for. */
  const settle = (): boolean => {
    if (!idle()) return true;
    const target = focusTarget(dialog);
    if (target && target !== document.activeElement) target.focus();
    if (target) placed = target;
    const marked = dialog.querySelector('[data-autofocus]');
    return target !== null && (marked === null || marked === target);
  };
  if (settle()) return () => undefined;
  const watch = new MutationObserver(() => {
    if (settle()) watch.disconnect();
  });
  watch.observe(dialog, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
  return () => watch.disconnect();
}

export function Modal({
  title,
  onClose,
  children,
  wide = false,
  role = 'dialog',
  describedBy,
}: {
  title: string;
  onClose: () => void;
  children?: ComponentChildren;
  wide?: boolean;
  role?: 'dialog' | 'alertdialog';
  describedBy?: string;
}): ComponentChild {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useRef(`dialog-title-${++nextId}`);
  useEffect(() => {
    const dialog = ref.current;
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // When that element goes with what the dialog did (a removed plugin's button), the area it was in takes focus.
    const area = returnTo?.closest<HTMLElement>('#side-panel, #main') ?? document.getElementById('main');
    if (dialog && !dialog.open) dialog.showModal();
    // showModal may have put focus on the close button: the dialog's own choice comes first.
    if (dialog && document.activeElement !== dialog.querySelector('[data-autofocus]')) (document.activeElement as HTMLElement | null)?.blur();
    const stopWatching = dialog ? focusWhenReady(dialog) : () => undefined;
    return () => {
      stopWatching();
      if (dialog?.open) dialog.close();
      // Back where the person was, once the dialog is gone (a dialog under this one, or the page).
      queueMicrotask(() => {
        if (returnTo?.isConnected) returnTo.focus();
        else if (area?.isConnected) area.focus();
      });
    };
  }, []);
  return h(
    'dialog',
    {
      ref,
      class: wide ? 'modal modal-wide' : 'modal',
      role,
      'aria-labelledby': id.current,
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
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

/**
 * Ask before something that cannot be undone: the safe answer has the focus, Escape gives it, and the other
 * button names the action ("Close document", "Remove").
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  danger = true,
  onConfirm,
  onCancel,
}: {
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}): ComponentChild {
  const describedBy = useRef(`confirm-text-${++nextId}`);
  return h(
    Modal,
    { title, onClose: onCancel, role: 'alertdialog', describedBy: describedBy.current },
    h('div', { id: describedBy.current, class: 'confirm-text' }, children),
    h(
      'div',
      { class: 'modal-actions' },
      h('button', { type: 'button', class: 'button', onClick: onCancel, 'data-autofocus': true }, cancelLabel),
      h('button', { type: 'button', class: danger ? 'button danger' : 'button primary', onClick: onConfirm }, confirmLabel),
    ),
  );
}
