/// <reference lib="dom" />
/**
 * What the Plugins tab's lists share, destinations and processors/OCR engines alike: a list of plugins each
 * with its head (name, version, badges), what it says of itself, its facts and its buttons; the registry's
 * Install… button; and a view read from the server again whenever the plugins change.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.js';

/** One plugin as a list shows it. */
export interface ListedPlugin {
  slug: string;
  name: string;
  version: string;
  /** Shown after the version, each after a space (a null keeps its space). */
  badges: ComponentChild[];
  description: string;
  /** Lines under the description: what it takes, its sandbox, its state. */
  facts: ComponentChild[];
  /** The buttons of its row. */
  actions: ComponentChild[];
  /** Under the row: the outcome of its last action. */
  outcome?: ComponentChild;
}

export function PluginList({ label, plugins }: { label: string; plugins: ListedPlugin[] }): ComponentChild {
  return h(
    'ul',
    { class: 'plugin-list', 'aria-label': label },
    plugins.map((p) =>
      h(
        'li',
        { key: p.slug, class: 'plugin' },
        h('div', { class: 'plugin-head' }, h('strong', null, p.name), h('span', { class: 'muted' }, ` ${p.version}`), ...p.badges.flatMap((b) => [' ', b])),
        h('p', { class: 'small' }, p.description),
        ...p.facts,
        h('div', { class: 'row' }, ...p.actions),
        p.outcome ?? null,
      ),
    ),
  );
}

/** A registry entry's row: Installed, and Install… or Reinstall…. */
export function registryActions(entry: { name: string; installed: boolean }, onInstall: () => void): ComponentChild[] {
  return [
    // The accessible name starts with the words shown, as speech input users say them.
    entry.installed ? h('span', { class: 'badge ok' }, 'Installed') : null,
    h(
      'button',
      { type: 'button', class: 'button', onClick: onInstall, 'aria-label': `${entry.installed ? 'Reinstall' : 'Install'} ${entry.name}…` },
      entry.installed ? 'Reinstall…' : 'Install…',
    ),
  ];
}

/** What `load` answers, read again each time `version` changes; an answer that comes after the next change is dropped. */
export function useLoaded<T>(load: () => Promise<T>, version: number): { value: T | null; error: string | null; setError: (error: string | null) => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => live && setValue(v),
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [version]);
  return { value, error, setError };
}
