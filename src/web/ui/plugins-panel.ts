/// <reference lib="dom" />
/**
 * The Plugins tab: how plugins are isolated on this machine, installed destinations with their
 * state (ready, needs settings, secrets unreadable, refused with the reason) and where secrets
 * go, and the registry's list with an install dialog showing what a plugin declares and a
 * first-party label for ours. Where plugins cannot be isolated, installing one that is not
 * first-party needs the user's explicit yes (`--allow-unisolated` in the CLI).
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PluginsView, PluginView, RegistryDetail, RegistryView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { ConfirmDialog, Modal } from './dialog.js';
import { PagePluginsPanel } from './page-plugins-panel.js';
import { PluginList, registryActions, useLoaded, type ListedPlugin } from './plugin-list.js';

function FirstParty(): ComponentChild {
  return h('span', { class: 'badge first-party', title: 'Written by the makers of Quire; installed the same way as any plugin' }, 'First-party');
}

function StateBadge({ plugin }: { plugin: PluginView }): ComponentChild {
  if (plugin.state === 'ready') return h('span', { class: 'badge ok' }, 'Ready');
  if (plugin.state === 'needs-settings') return h('span', { class: 'badge warn' }, 'Needs settings');
  if (plugin.state === 'unreadable') return h('span', { class: 'badge warn' }, 'Secrets unreadable');
  return h('span', { class: 'badge bad' }, 'Refused');
}

function InstallDialog({ slug, onClose, onInstalled }: { slug: string; onClose: () => void; onInstalled: (plugin: PluginView) => void }): ComponentChild {
  const [detail, setDetail] = useState<RegistryDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [installing, setInstalling] = useState(false);
  const [unisolated, setUnisolated] = useState(false);
  useEffect(() => {
    api<RegistryDetail>('GET', `/api/registry/${slug}`).then(setDetail, (e: unknown) => setError(messageOf(e)));
  }, [slug]);
  const apiMismatch = detail !== null && detail.api !== detail.hostApi;
  const needsYes = detail !== null && detail.isolation.level === 'partial' && !detail.shipped;

  const install = async (): Promise<void> => {
    setInstalling(true);
    setError(null);
    try {
      onInstalled(await api<PluginView>('POST', `/api/plugins/${slug}/install`, { allowUnisolated: needsYes && unisolated }));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setInstalling(false);
    }
  };

  return h(
    Modal,
    { title: `Install ${detail?.name ?? slug}`, onClose },
    detail
      ? h(
          'div',
          { class: 'install' },
          h('p', null, detail.description || 'No description.', ' ', detail.firstParty ? h(FirstParty, null) : h('span', { class: 'badge' }, 'Third-party')),
          detail.firstParty
            ? h(
                'p',
                { class: 'muted small' },
                'First-party: written by the makers of Quire, and still installed, checked and sandboxed exactly like any other plugin.',
              )
            : null,
          h(
            'dl',
            { class: 'facts' },
            h('dt', null, 'Version'),
            h('dd', null, detail.version || 'not given'),
            h('dt', null, 'Author'),
            h('dd', null, detail.author),
            h('dt', null, 'Capabilities'),
            h('dd', null, detail.capabilities.network ? 'Network: talks to a server over the network' : 'No network access declared'),
            h('dt', null, 'Plugin API'),
            h('dd', null, apiMismatch ? `needs ${detail.api}; this Quire provides ${detail.hostApi}` : `${detail.api} (this Quire provides ${detail.hostApi})`),
            h('dt', null, 'Files'),
            h('dd', null, `${detail.files} (${detail.size}), each checked against the registry's checksum`),
            h('dt', null, 'Isolation'),
            h(
              'dd',
              { class: detail.isolation.level === 'partial' ? 'warn-text' : undefined },
              `${detail.isolation.level === 'full' ? 'Full' : 'Partial'}: ${detail.isolation.summary}`,
            ),
          ),
          h(
            'p',
            { class: 'muted small' },
            'It runs in a separate process that may read only its own folder, write only its own data folder, and reach only the servers its settings name, through Quire.',
          ),
          needsYes
            ? h(
                'div',
                { class: 'notice' },
                h(
                  'p',
                  null,
                  'Plugins cannot be isolated on this system, and this one is not the first-party plugin shipped with Quire: without isolation it could reach more of your computer than its own folder.',
                ),
                h(
                  'label',
                  { class: 'check' },
                  h('input', { type: 'checkbox', checked: unisolated, onChange: (e: Event) => setUnisolated((e.currentTarget as HTMLInputElement).checked) }),
                  'I trust this plugin: install and run it without isolation',
                ),
              )
            : null,
        )
      : error
        ? null
        : h('p', { role: 'status' }, 'Reading what the plugin declares…'),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    h(
      'div',
      { class: 'modal-actions' },
      h('button', { type: 'button', class: 'button', onClick: onClose }, 'Cancel'),
      h(
        'button',
        // The dialog's answer has the focus once the plugin's declaration is read (Cancel while it cannot be installed).
        {
          type: 'button',
          class: 'button primary',
          'data-autofocus': true,
          disabled: !detail || installing || apiMismatch || (needsYes && !unisolated),
          onClick: () => void install(),
        },
        installing ? 'Installing…' : detail?.installed ? 'Install again' : 'Install',
      ),
    ),
  );
}

/** An installed destination as the list shows it: its state, what it takes, and its buttons. */
function listedDestination(p: PluginView, on: { checked: string | undefined; settings: () => void; check: () => void; remove: () => void }): ListedPlugin {
  return {
    slug: p.slug,
    name: p.display,
    version: p.version,
    badges: [p.firstParty ? h(FirstParty, null) : null, h(StateBadge, { plugin: p })],
    description: p.description,
    facts: [
      p.state === 'needs-settings' ? h('p', { class: 'card-state warn' }, `Not set up yet — needs ${p.missing.join(', ')}`) : null,
      p.state === 'unreadable' ? h('p', { class: 'card-state warn' }, `${p.unreadable ?? 'A secret cannot be read'}.`) : null,
      p.state === 'refused' ? h('p', { class: 'card-state bad' }, `Refused: ${p.reason ?? ''}`) : null,
      p.state !== 'refused' ? h('p', { class: 'muted small' }, `Takes ${p.accepts.join(', ')}${p.network ? ' · uses the network' : ''}`) : null,
    ],
    actions: [
      p.state !== 'refused'
        ? h('button', { type: 'button', class: 'button', onClick: on.settings, 'aria-label': `Settings of ${p.display}` }, 'Settings…')
        : null,
      p.state !== 'refused' ? h('button', { type: 'button', class: 'button', onClick: on.check, 'aria-label': `Check ${p.display}` }, 'Check') : null,
      h('button', { type: 'button', class: 'button subtle', onClick: on.remove, 'aria-label': `Remove ${p.display}` }, 'Remove'),
    ],
    outcome: on.checked ? h('p', { class: 'small', role: 'status' }, on.checked) : null,
  };
}

function IsolationNote({ plugins }: { plugins: PluginsView }): ComponentChild {
  return plugins.isolation.level === 'partial'
    ? h(
        'p',
        { class: 'notice', 'aria-label': 'Isolation' },
        `Isolation: partial — ${plugins.isolation.summary}. Only first-party plugins run here unless you allow one when you install it.`,
      )
    : h('p', { class: 'muted small', 'aria-label': 'Isolation' }, `Isolation: full — ${plugins.isolation.summary}.`);
}

type Removing = Pick<PluginView, 'slug' | 'display'>;

/** The installed destinations, each with Settings…, Check and Remove, and where their secrets are kept. */
function InstalledDestinations({
  plugins,
  error,
  onSettings,
  onRemove,
}: {
  plugins: PluginsView | null;
  error: string | null;
  onSettings: (slug: string) => void;
  onRemove: (plugin: Removing) => void;
}): ComponentChild {
  const [checks, setChecks] = useState<Record<string, string>>({});
  const check = async (plugin: PluginView): Promise<void> => {
    setChecks((c) => ({ ...c, [plugin.slug]: 'Checking…' }));
    try {
      const result = await api<{ label: string; message: string }>('POST', `/api/plugins/${plugin.slug}/check`, {});
      setChecks((c) => ({ ...c, [plugin.slug]: `${result.label} — ${result.message}` }));
    } catch (e) {
      setChecks((c) => ({ ...c, [plugin.slug]: messageOf(e) }));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'installed-title' },
    h('h3', { id: 'installed-title' }, 'Installed destinations'),
    plugins === null && !error ? h('p', { class: 'muted', role: 'status' }, 'Looking for installed destinations…') : null,
    plugins && plugins.installed.length === 0
      ? h(
          'p',
          { class: 'empty-note' },
          'No destination is installed yet. Install one from the registry below to send exports to a library, an e-reader or a corpus.',
        )
      : null,
    plugins && plugins.installed.length > 0
      ? h(PluginList, {
          label: 'Installed destinations',
          plugins: plugins.installed.map((p) =>
            listedDestination(p, {
              checked: checks[p.slug],
              settings: () => onSettings(p.slug),
              check: () => void check(p),
              remove: () => onRemove(p),
            }),
          ),
        })
      : null,
    plugins
      ? plugins.secretStore.plainText
        ? h('p', { class: 'notice small' }, `Secrets typed here are stored as plain text in ${plugins.secretStore.text}.`)
        : h('p', { class: 'muted small' }, `Secrets typed here are kept in ${plugins.secretStore.text}.`)
      : null,
  );
}

/** The registry's destinations, each with Install… (Reinstall… once installed). */
function DestinationRegistry({ registry, onInstall }: { registry: RegistryView | null; onInstall: (slug: string) => void }): ComponentChild {
  return h(
    'section',
    { 'aria-labelledby': 'registry-title' },
    h('h3', { id: 'registry-title' }, 'Available from the registry'),
    registry?.error ? h('p', { class: 'error', role: 'alert' }, `The registry cannot be read: ${registry.error}`) : null,
    registry && !registry.error && registry.entries.length === 0 ? h('p', { class: 'empty-note' }, 'The registry offers no destination.') : null,
    registry && registry.entries.length > 0
      ? h(PluginList, {
          label: 'Registry',
          plugins: registry.entries.map((e) => ({
            slug: e.slug,
            name: e.name,
            version: e.version,
            badges: [e.firstParty ? h(FirstParty, null) : h('span', { class: 'badge' }, 'Third-party')],
            description: e.description,
            facts: [],
            actions: registryActions(e, () => onInstall(e.slug)),
          })),
        })
      : null,
  );
}

export function PluginsPanel({
  version,
  onChanged,
  onSettings,
}: {
  version: number;
  onChanged: () => void;
  onSettings: (slug: string) => void;
}): ComponentChild {
  const loaded = useLoaded(() => Promise.all([api<PluginsView>('GET', '/api/plugins'), api<RegistryView>('GET', '/api/registry')]), version);
  const [plugins, registry] = loaded.value ?? [null, null];
  const { error, setError } = loaded;
  const [installing, setInstalling] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Removing | null>(null);

  const remove = async (plugin: Removing): Promise<void> => {
    setRemoving(null);
    try {
      await api('DELETE', `/api/plugins/${plugin.slug}`);
      setNote(`${plugin.display} was removed.`);
      onChanged();
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return h(
    'div',
    { class: 'panel-content' },
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    note ? h('p', { class: 'outcome ok', role: 'status' }, note) : null,
    plugins ? h(IsolationNote, { plugins }) : null,
    h(InstalledDestinations, { plugins, error, onSettings, onRemove: setRemoving }),
    h(PagePluginsPanel, { version, onChanged, onRemove: (slug: string, display: string) => setRemoving({ slug, display }) }),
    h(DestinationRegistry, { registry, onInstall: setInstalling }),
    removing
      ? h(
          ConfirmDialog,
          { title: `Remove ${removing.display}?`, confirmLabel: 'Remove', onConfirm: () => void remove(removing), onCancel: () => setRemoving(null) },
          h('p', null, `${removing.display} goes, with its settings and its secrets. Installing it again later starts from nothing.`),
        )
      : null,
    installing
      ? h(InstallDialog, {
          slug: installing,
          onClose: () => setInstalling(null),
          onInstalled: (p) => {
            setInstalling(null);
            setNote(
              p.state === 'needs-settings'
                ? `${p.display} is installed. Not set up yet — needs ${p.missing.join(', ')}.`
                : `${p.display} is installed and ready.`,
            );
            onChanged();
          },
        })
      : null,
  );
}
