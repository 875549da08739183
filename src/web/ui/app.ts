/// <reference lib="dom" />
/**
 * The app's frame: the top bar, the document area (open, progress, pages), and the right-hand
 * rail whose entries — Export, OCR, Plugins, Settings — open their panel beside the pages.
 */
import { h, type ComponentChild } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { BootState, DocumentDetail, DocumentSummary, PageView, PresetChoice, SettingsView } from '../api-types.js';
import { api, messageOf, uploadDocument } from './api.js';
import { ExportPanel } from './export-panel.js';
import { Icon, type IconName } from './icons.js';
import { OcrPanel } from './ocr-panel.js';
import { EmptyState, FilePicker, UploadProgress } from './open.js';
import { PageGrid, PageViewer } from './pages.js';
import { PluginSettingsDialog } from './plugin-settings.js';
import { PluginsPanel } from './plugins-panel.js';
import { TaskPanel } from './progress.js';
import { SettingsPanel } from './settings-panel.js';

type PanelName = 'export' | 'ocr' | 'plugins' | 'settings';

const RAIL: Array<{ name: PanelName; label: string; icon: IconName }> = [
  { name: 'export', label: 'Export', icon: 'export' },
  { name: 'ocr', label: 'OCR', icon: 'ocr' },
  { name: 'plugins', label: 'Plugins', icon: 'plug' },
  { name: 'settings', label: 'Settings', icon: 'settings' },
];

function Rail({ panel, onPanel }: { panel: PanelName | null; onPanel: (p: PanelName | null) => void }): ComponentChild {
  return h(
    'nav',
    { class: 'rail', 'aria-label': 'Tools' },
    RAIL.map((entry) =>
      h(
        'button',
        {
          type: 'button',
          class: `rail-button${panel === entry.name ? ' active' : ''}${entry.name === 'settings' ? ' bottom' : ''}`,
          'aria-expanded': panel === entry.name,
          'aria-controls': 'side-panel',
          onClick: () => onPanel(panel === entry.name ? null : entry.name),
        },
        h(Icon, { name: entry.icon, size: 22 }),
        h('span', { class: 'rail-label' }, entry.label),
      ),
    ),
  );
}

function PresetRerun({ doc, presets, busy }: { doc: DocumentSummary; presets: BootState['presets']; busy: boolean }): ComponentChild {
  const [preset, setPreset] = useState<PresetChoice>(doc.preset);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setPreset(doc.preset), [doc.id, doc.preset]);
  return h(
    'form',
    {
      class: 'rerun',
      onSubmit: (e: Event) => {
        e.preventDefault();
        setError(null);
        api('POST', `/api/documents/${doc.id}/rerun`, { preset }).catch((err: unknown) => setError(messageOf(err)));
      },
    },
    h('label', { for: 'rerun-preset' }, 'Preset'),
    h(
      'select',
      { id: 'rerun-preset', value: preset, disabled: busy, onChange: (e: Event) => setPreset((e.currentTarget as HTMLSelectElement).value as PresetChoice) },
      h('option', { value: 'auto' }, 'Automatic'),
      presets.map((p) => h('option', { value: p.name, title: p.description }, p.name)),
    ),
    h('button', { type: 'submit', class: 'button', disabled: busy }, 'Rerun'),
    error ? h('span', { class: 'error inline', role: 'alert' }, error) : null,
  );
}

function LastTaskNote({ doc }: { doc: DocumentSummary }): ComponentChild {
  const last = doc.lastTask;
  if (!last || doc.status === 'working' || last.outcome === 'done') return null;
  const what = { open: 'Opening', rerun: 'The rerun', ocr: 'OCR', export: 'The export' }[last.kind];
  return h('p', { class: last.outcome === 'failed' ? 'error' : 'notice', role: last.outcome === 'failed' ? 'alert' : 'status' }, last.outcome === 'cancelled' ? `${what} was cancelled.` : `${what} failed: ${last.message ?? ''}`);
}

export function App(): ComponentChild {
  const [boot, setBoot] = useState<BootState | null>(null);
  const [bootError, setBootError] = useState<string | null>(null);
  const [docs, setDocs] = useState<Record<string, DocumentSummary>>({});
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [detail, setDetail] = useState<DocumentDetail | null>(null);
  const [panel, setPanel] = useState<PanelName | null>(null);
  const [pageIndex, setPageIndex] = useState<number | null>(null);
  const [uploading, setUploading] = useState<number | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const [pluginsVersion, setPluginsVersion] = useState(0);
  const [settingsOf, setSettingsOf] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  useEffect(() => {
    api<BootState>('GET', '/api/state').then(setBoot, (e: unknown) => setBootError(messageOf(e)));
    const events = new EventSource('/api/events');
    events.addEventListener('document', (e) => {
      const summary = JSON.parse((e as MessageEvent<string>).data) as DocumentSummary;
      setDocs((all) => ({ ...all, [summary.id]: summary }));
    });
    return () => events.close();
  }, []);

  const doc = currentId ? (docs[currentId] ?? null) : null;
  const revision = doc?.revision;
  useEffect(() => {
    if (!currentId) {
      setDetail(null);
      return;
    }
    let live = true;
    api<DocumentDetail>('GET', `/api/documents/${currentId}`).then((d) => live && setDetail(d), (e: unknown) => live && setActionError(messageOf(e)));
    return () => {
      live = false;
    };
  }, [currentId, revision]);

  const open = useCallback(async (files: File[]) => {
    setOpenError(null);
    setUploading(0);
    try {
      const summary = await uploadDocument(files, setUploading);
      setDocs((all) => ({ ...all, [summary.id]: { ...summary, ...all[summary.id] } }));
      setCurrentId(summary.id);
      setPageIndex(null);
    } catch (e) {
      setOpenError(messageOf(e));
    } finally {
      setUploading(null);
    }
  }, []);

  const toggle = useCallback(
    (page: PageView) => {
      if (!currentId) return;
      setActionError(null);
      api('PATCH', `/api/documents/${currentId}/pages/${page.index}`, { hidden: !page.hidden }).catch((e: unknown) => setActionError(messageOf(e)));
    },
    [currentId],
  );

  const cancel = (): void => {
    if (currentId) api('POST', `/api/documents/${currentId}/cancel`).catch((e: unknown) => setActionError(messageOf(e)));
  };
  const closeDocument = (): void => {
    if (!currentId) return;
    const id = currentId;
    api('DELETE', `/api/documents/${id}`).then(
      () => {
        setDocs((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== id)));
        setCurrentId(null);
        setPageIndex(null);
      },
      (e: unknown) => setActionError(messageOf(e)),
    );
  };
  const pluginsChanged = (): void => setPluginsVersion((v) => v + 1);
  const settingsSaved = (settings: SettingsView): void => setBoot((b) => (b ? { ...b, settings } : b));

  // Dropping files anywhere opens them, not only on the empty screen.
  const onDrop = (e: DragEvent): void => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    const files = [...(e.dataTransfer.files ?? [])];
    if (files.length > 0) void open(files);
  };

  if (bootError) return h('main', { class: 'fatal' }, h('h1', null, 'Quire cannot start this window'), h('p', { role: 'alert' }, bootError));
  if (!boot) return h('main', { class: 'fatal', role: 'status' }, 'Loading Quire…');

  const busy = doc?.status === 'working';
  const ready = detail && detail.id === currentId && detail.pageList.length > 0;
  const others = Object.values(docs).filter((d) => d.id !== currentId);

  let content: ComponentChild;
  if (!doc) {
    content = h(EmptyState, { onFiles: (f) => void open(f), uploading, error: openError });
  } else if (!ready) {
    content = h(
      'div',
      { class: 'doc-pending' },
      busy ? h(TaskPanel, { doc, onCancel: cancel }) : null,
      !busy && doc.status === 'failed' ? h('div', { class: 'error-state', role: 'alert' }, h('h2', null, `${doc.name} could not be opened`), h('p', null, doc.error?.message ?? 'It failed.')) : null,
      !busy && doc.status === 'cancelled' ? h('div', { class: 'notice-state', role: 'status' }, h('h2', null, 'Opening was cancelled'), h('p', null, 'Nothing was kept. Start again with another preset if you like.')) : null,
      !busy && (doc.status === 'failed' || doc.status === 'cancelled') ? h('div', { class: 'row' }, h(PresetRerun, { doc, presets: boot.presets, busy }), h('button', { type: 'button', class: 'button', onClick: closeDocument }, 'Close document')) : null,
      !busy && doc.status === 'ready' ? h('p', { role: 'status' }, 'Loading the pages…') : null,
    );
  } else {
    content = h(
      'div',
      { class: 'doc' },
      h(
        'div',
        { class: 'doc-bar' },
        h('p', { class: 'doc-facts' }, `${detail.pageList.length} page${detail.pageList.length === 1 ? '' : 's'}`, detail.hiddenPages > 0 ? `, ${detail.hiddenPages} hidden from exports` : '', detail.usedPreset ? ` · preset ${detail.usedPreset}` : '', detail.ocr ? ` · text: ${detail.ocr.engine} (${detail.ocr.languages.join('+')})` : ' · no text yet'),
        h(PresetRerun, { doc, presets: boot.presets, busy }),
        h('button', { type: 'button', class: 'button subtle', onClick: closeDocument, disabled: busy }, 'Close document'),
      ),
      busy ? h(TaskPanel, { doc, onCancel: cancel, compact: true }) : null,
      h(LastTaskNote, { doc }),
      actionError ? h('p', { class: 'error', role: 'alert' }, actionError) : null,
      pageIndex === null
        ? h(PageGrid, { doc: detail, onOpen: setPageIndex, onToggle: toggle, busy })
        : h(PageViewer, { doc: detail, index: pageIndex, onIndex: setPageIndex, onBack: () => setPageIndex(null), onToggle: toggle, busy }),
    );
  }

  const panelTitle = RAIL.find((r) => r.name === panel)?.label;
  return h(
    'div',
    { class: panel ? 'app with-panel' : 'app', onDragOver: (e: DragEvent) => e.preventDefault(), onDrop },
    h('a', { class: 'skip', href: '#main' }, 'Skip to the pages'),
    h(
      'header',
      { class: 'topbar' },
      h('div', { class: 'brand' }, h(Icon, { name: 'book', size: 22 }), h('span', null, 'Quire')),
      doc ? h('h1', { class: 'doc-title', title: doc.name }, doc.name) : h('span', { class: 'doc-title muted' }, 'No document open'),
      others.length > 0
        ? h(
            'label',
            { class: 'switcher' },
            h('span', { class: 'visually-hidden' }, 'Switch document'),
            h(
              'select',
              {
                value: currentId ?? '',
                onChange: (e: Event) => {
                  setCurrentId((e.currentTarget as HTMLSelectElement).value);
                  setPageIndex(null);
                },
              },
              Object.values(docs).map((d) => h('option', { value: d.id }, d.name)),
            ),
          )
        : null,
      doc && uploading !== null ? h(UploadProgress, { share: uploading }) : null,
      h(FilePicker, { onFiles: (f) => void open(f), label: 'Open…' }),
    ),
    doc && openError ? h('p', { class: 'error banner', role: 'alert' }, openError) : null,
    h('main', { id: 'main', class: 'main', tabIndex: -1 }, content),
    panel
      ? h(
          'aside',
          { id: 'side-panel', class: 'side-panel', 'aria-labelledby': 'panel-title' },
          h(
            'div',
            { class: 'panel-head' },
            h('h2', { id: 'panel-title' }, panelTitle),
            h('button', { type: 'button', class: 'icon-button', 'aria-label': `Close ${panelTitle}`, onClick: () => setPanel(null) }, h(Icon, { name: 'close' })),
          ),
          panel === 'export' ? h(ExportPanel, { doc, pluginsVersion, onSetUp: setSettingsOf }) : null,
          panel === 'ocr' ? h(OcrPanel, { boot, doc }) : null,
          panel === 'plugins' ? h(PluginsPanel, { version: pluginsVersion, onChanged: pluginsChanged, onSettings: setSettingsOf }) : null,
          panel === 'settings' ? h(SettingsPanel, { boot, onSaved: settingsSaved }) : null,
        )
      : null,
    h(Rail, { panel, onPanel: setPanel }),
    settingsOf ? h(PluginSettingsDialog, { slug: settingsOf, onClose: () => setSettingsOf(null), onChanged: pluginsChanged }) : null,
  );
}
