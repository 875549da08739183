/// <reference lib="dom" />
/** An error said at the top of the window or above the pages, which the person can put away once read. */
import { h, type ComponentChild } from 'preact';
import { Icon } from './icons.js';

export function ErrorBanner({ text, onDismiss, banner = false }: { text: string; onDismiss: () => void; banner?: boolean }): ComponentChild {
  return h(
    'div',
    { class: `error dismissable${banner ? ' banner' : ''}`, role: 'alert' },
    h('p', null, text),
    h(
      'button',
      { type: 'button', class: 'icon-button', 'aria-label': 'Dismiss this message', title: 'Dismiss', onClick: onDismiss },
      h(Icon, { name: 'close', size: 16 }),
    ),
  );
}
