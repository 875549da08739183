/// <reference lib="dom" />
/**
 * The Plugins tab's processors and OCR engines, beside its destinations: each installed one with its kind, its
 * sandbox and whether it is accepted; the registry's with Install…. Installing or accepting one goes through the
 * same warning dialog as installing a destination, naming the sha256 of its files and what it may do; a plugin whose
 * files changed since is not run until accepted again here (or with `quire plugins accept`).
 */
import { h, type ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import type { PagePluginsView, PagePluginView, PageRegistryEntryView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { Modal } from './dialog.js';
import { PluginList, registryActions, useLoaded, type ListedPlugin } from './plugin-list.js';

const KIND_WORDS = { processor: 'Processor', ocr: 'OCR engine' } as const;

function TrustBadge({ plugin }: { plugin: PagePluginView }): ComponentChild {
  if (plugin.state === 'ready') return h('span', { class: 'badge ok' }, 'Accepted');
  if (plugin.state === 'changed') return h('span', { class: 'badge warn' }, 'Changed since accepted');
  if (plugin.state === 'not-accepted') return h('span', { class: 'badge warn' }, 'Not accepted');
  return h('span', { class: 'badge bad' }, 'Refused');
}

/** What accepting records and allows: one dialog for installing from the registry and for accepting again. */
interface Asked {
  how: 'install' | 'accept';
  slug: string;
  name: string;
  kind: 'processor' | 'ocr';
  version: string;
  sha256: string;
  mayDo: string[];
  firstParty?: boolean;
  changed?: boolean;
  files?: string;
}

function AcceptDialog({
  asked,
  sandbox,
  onClose,
  onDone,
}: {
  asked: Asked;
  sandbox: string;
  onClose: () => void;
  onDone: (plugin: PagePluginView) => void;
}): ComponentChild {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      onDone(await api<PagePluginView>('POST', `/api/page-plugins/${asked.slug}/${asked.how}`, { sha256: asked.sha256 }));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const verb = asked.how === 'install' ? 'Install and accept' : 'Accept';
  return h(
    Modal,
    { title: `${asked.how === 'install' ? 'Install' : 'Accept'} ${asked.name}`, onClose },
    h(
      'div',
      { class: 'install' },
      h(
        'p',
        { class: 'notice' },
        asked.changed
          ? `The files of ${asked.name} changed since you accepted it, so Quire does not run it. Accept it only if you changed them yourself or trust where the change came from.`
          : `${asked.name} is code that Quire runs on your pages once you accept it. Accepting records the sha256 of its files; if they change, it is not run until you accept it again.`,
      ),
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Kind'),
        h('dd', null, KIND_WORDS[asked.kind]),
        h('dt', null, 'Version'),
        h('dd', null, asked.version || 'not given'),
        asked.firstParty !== undefined ? h('dt', null, 'Author') : null,
        asked.firstParty !== undefined ? h('dd', null, asked.firstParty ? 'The makers of Quire' : 'Third-party') : null,
        h('dt', null, 'sha256'),
        h('dd', { class: 'sha256', 'aria-label': 'sha256' }, h('code', null, asked.sha256)),
        asked.files ? h('dt', null, 'Files') : null,
        asked.files ? h('dd', null, asked.files) : null,
        h('dt', null, 'Sandbox'),
        h('dd', null, sandbox),
      ),
      h('p', null, h('strong', null, 'What it may do')),
      h(
        'ul',
        { class: 'may-do', 'aria-label': 'What it may do' },
        asked.mayDo.map((line) => h('li', { key: line, class: 'small' }, line)),
      ),
    ),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    h(
      'div',
      { class: 'modal-actions' },
      h('button', { type: 'button', class: 'button', onClick: onClose }, 'Cancel'),
      h('button', { type: 'button', class: 'button primary', 'data-autofocus': true, disabled: busy, onClick: () => void go() }, busy ? 'Working…' : verb),
    ),
  );
}

function describeRegistry(e: PageRegistryEntryView): Asked {
  return {
    how: 'install',
    slug: e.slug,
    name: e.name,
    kind: e.kind,
    version: e.version,
    sha256: e.sha256,
    mayDo: e.mayDo,
    firstParty: e.firstParty,
    files: `${e.files} (${e.size}), each checked against the registry's checksum`,
  };
}

/** An installed processor or OCR engine as the list shows it: its sandbox, whether it is accepted, and its buttons. */
function listedPagePlugin(p: PagePluginView, on: { accept: (asked: Asked) => void; remove: () => void }): ListedPlugin {
  return {
    slug: p.slug,
    name: p.display,
    version: p.version,
    badges: [h('span', { class: 'badge' }, KIND_WORDS[p.kind]), h(TrustBadge, { plugin: p })],
    description: p.description,
    facts: [
      h(
        'p',
        { class: 'muted small' },
        [
          p.sandbox,
          p.after ? `runs after ${p.after}` : '',
          p.languages ? (p.languages.length > 0 ? `reads ${p.languages.join(', ')}` : 'no language yet: put a model in its files folder') : '',
        ]
          .filter((t) => t !== '')
          .join(' · '),
      ),
      p.state === 'refused' ? h('p', { class: 'card-state bad' }, `Refused: ${p.reason ?? ''}`) : null,
      p.state === 'changed' ? h('p', { class: 'card-state warn' }, 'Its files changed since you accepted it: it is not run until you accept it again.') : null,
      p.state === 'not-accepted' ? h('p', { class: 'card-state warn' }, 'Not run until you accept it.') : null,
    ],
    actions: [
      (p.state === 'changed' || p.state === 'not-accepted') && p.sha256
        ? h(
            'button',
            {
              type: 'button',
              class: 'button',
              'aria-label': `Accept ${p.display}…`,
              onClick: () =>
                on.accept({
                  how: 'accept',
                  slug: p.slug,
                  name: p.display,
                  kind: p.kind,
                  version: p.version,
                  sha256: p.sha256 ?? '',
                  mayDo: p.mayDo,
                  changed: p.state === 'changed',
                }),
            },
            'Accept…',
          )
        : null,
      h('button', { type: 'button', class: 'button subtle', onClick: on.remove, 'aria-label': `Remove ${p.display}` }, 'Remove'),
    ],
  };
}

function listedRegistryEntry(e: PageRegistryEntryView, onInstall: () => void): ListedPlugin {
  return {
    slug: e.slug,
    name: e.name,
    version: e.version,
    badges: [
      h('span', { class: 'badge' }, KIND_WORDS[e.kind]),
      e.firstParty ? h('span', { class: 'badge first-party' }, 'First-party') : h('span', { class: 'badge' }, 'Third-party'),
    ],
    description: e.description,
    facts: [],
    actions: registryActions(e, onInstall),
  };
}

export function PagePluginsPanel({
  version,
  onChanged,
  onRemove,
}: {
  version: number;
  onChanged: () => void;
  onRemove: (slug: string, display: string) => void;
}): ComponentChild {
  const { value: view, error } = useLoaded(() => api<PagePluginsView>('GET', '/api/page-plugins'), version);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const sandbox = view?.isolation
    ? view.isolation.level === 'full'
      ? `Sandboxed: ${view.isolation.summary}`
      : `Sandbox partial: ${view.isolation.summary}`
    : 'Sandboxed';
  return h(
    'section',
    { 'aria-labelledby': 'page-plugins-title' },
    h('h3', { id: 'page-plugins-title' }, 'Processors and OCR engines'),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    note ? h('p', { class: 'outcome ok', role: 'status' }, note) : null,
    view === null && !error ? h('p', { class: 'muted', role: 'status' }, 'Looking for installed processors and OCR engines…') : null,
    view && view.installed.length === 0
      ? h(
          'p',
          { class: 'empty-note' },
          'No processor or OCR engine plugin is installed. A processor adds a step to the pipeline (despeckle); an OCR engine reads text its own way.',
        )
      : null,
    view && view.installed.length > 0
      ? h(PluginList, {
          label: 'Installed processors and OCR engines',
          plugins: view.installed.map((p) => listedPagePlugin(p, { accept: setAsked, remove: () => onRemove(p.slug, p.display) })),
        })
      : null,
    view?.registryError ? h('p', { class: 'error', role: 'alert' }, `The registry cannot be read: ${view.registryError}`) : null,
    view && view.registry.length > 0
      ? h(PluginList, {
          label: 'Processors and OCR engines in the registry',
          plugins: view.registry.map((e) => listedRegistryEntry(e, () => setAsked(describeRegistry(e)))),
        })
      : null,
    asked
      ? h(AcceptDialog, {
          asked,
          sandbox,
          onClose: () => setAsked(null),
          onDone: (p) => {
            setAsked(null);
            setNote(`${p.display} is ${asked.how === 'install' ? 'installed and ' : ''}accepted (sha256 ${(p.sha256 ?? asked.sha256).slice(0, 12)}…).`);
            onChanged();
          },
        })
      : null,
  );
}
