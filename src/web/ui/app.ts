/// <reference lib="dom" />
/**
 * The app's frame: the top bar, the document area (open, progress, pages), and the right-hand
 * rail whose entries — Export, OCR, Plugins, Settings — open their panel beside the pages.
 *
 * What it shows is the server's: the documents come from its list and its event stream (a reload
 * finds them all again, the one being looked at included), and every panel reads the selected
 * document's own state, so nothing said about one document stays on screen for another. The keys of
 * `shortcuts.ts` work wherever the focus is, except in a field.
 */
import { h, type ComponentChild } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { BootState, DocumentDetail, DocumentSummary, PageView, PresetChoice, SettingsView } from '../api-types.js';
import { api, messageOf, uploadDocument } from './api.js';
import { ErrorBanner } from './banner.js';
import { ConfirmDialog } from './dialog.js';
import { RerunConfirm } from './keep-work.js';
import { Announcer } from './live.js';
import { DictionaryEditor } from './dictionary.js';
import { ExportPanel } from './export-panel.js';
import { Icon, type IconName } from './icons.js';
import { OcrPanel } from './ocr-panel.js';
import { EmptyState, FilePicker, UploadProgress } from './open.js';
import { PageGrid, PageViewer, type ViewMode } from './pages.js';
import { PluginSettingsDialog } from './plugin-settings.js';
import { PluginsPanel } from './plugins-panel.js';
import { TaskPanel } from './progress.js';
import { RecogniseButton } from './recognise.js';
import { SettingsPanel } from './settings-panel.js';
import { useDocumentActions, useDocumentDetail, useFileDrop, usePageNav, useServerState } from './app-state.js';
import { refuseUnopenable } from './upload-guard.js';
import { isTyping, ShortcutsDialog } from './shortcuts.js';

type PanelName = 'export' | 'ocr' | 'plugins' | 'settings';

const RAIL: Array<{ name: PanelName; label: string; icon: IconName }> = [
  { name: 'export', label: 'Export', icon: 'export' },
  { name: 'ocr', label: 'OCR', icon: 'ocr' },
  { name: 'plugins', label: 'Plugins', icon: 'plug' },
  { name: 'settings', label: 'Settings', icon: 'settings' },
];

/** The document this window looked at last survives a reload. */
const CURRENT_KEY = 'quire.document';

function Rail({ panel, onPanel }: { panel: PanelName | null; onPanel: (p: PanelName | null) => void }): ComponentChild {
  return h(
    'nav',
    { class: 'rail', 'aria-label': 'Tools' },
    RAIL.map((entry) =>
      h(
        'button',
        {
          type: 'button',
          id: `rail-${entry.name}`,
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
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    setPreset(doc.preset);
    setError(null);
    setConfirming(false);
  }, [doc.id, doc.preset]);
  const checked = doc.proofreading?.checked ?? 0;
  const run = (): void => {
    setConfirming(false);
    setError(null);
    api('POST', `/api/documents/${doc.id}/rerun`, { preset }).catch((err: unknown) => setError(messageOf(err)));
  };
  return h(
    'form',
    {
      class: 'rerun',
      onSubmit: (e: Event) => {
        e.preventDefault();
        // New pages mean new text: the words a person checked go with the old ones, so Rerun asks as Run OCR does.
        if (checked > 0) setConfirming(true);
        else run();
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
    confirming ? h(RerunConfirm, { checked, onConfirm: run, onCancel: () => setConfirming(false) }) : null,
  );
}

function LastTaskNote({ doc, exportPanel }: { doc: DocumentSummary; exportPanel: boolean }): ComponentChild {
  const last = doc.lastTask;
  // An export's outcome is told in the Export panel, when it is open.
  if (!last || doc.status === 'working' || last.outcome === 'done' || (last.kind === 'export' && exportPanel)) return null;
  const what = { open: 'Opening', rerun: 'The rerun', ocr: 'OCR', export: 'The export' }[last.kind];
  return h(
    'p',
    { class: last.outcome === 'failed' ? 'error' : 'notice', role: last.outcome === 'failed' ? 'alert' : 'status' },
    last.outcome === 'cancelled' ? `${what} was cancelled.` : `${what} failed: ${last.message ?? ''}`,
  );
}

function clock(at: number, seconds: boolean): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
}

function sourceOf(doc: DocumentSummary): string {
  const [first, ...rest] = doc.inputs;
  return rest.length > 0 ? `${first ?? ''} and ${rest.length} more` : (first ?? '');
}

/** Name, input and time opened: enough to tell two documents of one name apart (to the second when the minute is shared too). */
function describeDocs(docs: DocumentSummary[]): Map<string, string> {
  const minute = (d: DocumentSummary): string => `${d.name}\u0000${sourceOf(d)}\u0000${clock(d.openedAt, false)}`;
  const shared = new Map<string, number>();
  for (const d of docs) shared.set(minute(d), (shared.get(minute(d)) ?? 0) + 1);
  return new Map(docs.map((d) => [d.id, `${d.name} — ${sourceOf(d)}, opened ${clock(d.openedAt, (shared.get(minute(d)) ?? 0) > 1)}`]));
}

/** The document to show when none is chosen: the one this window showed before, else the last opened. */
function pickDocument(docs: Record<string, DocumentSummary>): string | null {
  const remembered = sessionStorage.getItem(CURRENT_KEY);
  if (remembered && docs[remembered]) return remembered;
  const latest = Object.values(docs).sort((a, b) => b.openedAt - a.openedAt)[0];
  return latest?.id ?? null;
}

/** A document without pages to show yet: its task, or why it has none. */
function PendingDocument({
  doc,
  boot,
  busy,
  onCancel,
  onClose,
}: {
  doc: DocumentSummary;
  boot: BootState;
  busy: boolean;
  onCancel: () => void;
  onClose: () => void;
}): ComponentChild {
  return h(
    'div',
    { class: 'doc-pending' },
    busy ? h(TaskPanel, { doc, onCancel }) : null,
    !busy && doc.status === 'failed'
      ? h('div', { class: 'error-state', role: 'alert' }, h('h2', null, `${doc.name} could not be opened`), h('p', null, doc.error?.message ?? 'It failed.'))
      : null,
    !busy && doc.status === 'cancelled'
      ? h(
          'div',
          { class: 'notice-state', role: 'status' },
          h('h2', null, 'Opening was cancelled'),
          h('p', null, 'Nothing was kept. Start again with another preset if you like.'),
        )
      : null,
    !busy && (doc.status === 'failed' || doc.status === 'cancelled')
      ? h(
          'div',
          { class: 'row' },
          doc.hasCaptures ? h(PresetRerun, { doc, presets: boot.presets, busy }) : null,
          h('button', { type: 'button', class: 'button', onClick: onClose }, 'Close document'),
        )
      : null,
    !busy && doc.status === 'ready' ? h('p', { role: 'status' }, 'Loading the pages…') : null,
  );
}

/** The bar above a document's pages: its facts, Proofread or Recognise, Rerun and Close. */
function DocBar({
  detail,
  doc,
  boot,
  busy,
  proofreading,
  onProofread,
  onError,
  onClose,
}: {
  detail: DocumentDetail;
  doc: DocumentSummary;
  boot: BootState;
  busy: boolean;
  proofreading: DocumentDetail['proofreading'];
  onProofread: () => void;
  onError: (e: unknown) => void;
  onClose: () => void;
}): ComponentChild {
  return h(
    'div',
    { class: 'doc-bar' },
    h(
      'p',
      { class: 'doc-facts' },
      `${detail.pageList.length} page${detail.pageList.length === 1 ? '' : 's'}`,
      detail.hiddenPages > 0 ? `, ${detail.hiddenPages} hidden from exports` : '',
      detail.usedPreset ? ` · preset ${detail.usedPreset}` : '',
      detail.ocr
        ? ` · text: ${detail.ocr.engine} (${detail.ocr.languages.join('+')})`
        : detail.pageList.every((p) => p.hasText)
          ? " · text: the PDF's own"
          : ' · no text yet',
    ),
    proofreading
      ? h(
          'button',
          { type: 'button', class: 'button', onClick: onProofread },
          h(Icon, { name: 'pen', size: 16 }),
          proofreading.doubtful > 0 ? `Proofread: ${proofreading.doubtful} word${proofreading.doubtful === 1 ? '' : 's'} to check` : 'Proofread',
        )
      : h(RecogniseButton, { boot, doc, pages: detail.pageList, busy, onError }),
    doc.hasCaptures ? h(PresetRerun, { doc, presets: boot.presets, busy }) : null,
    h('button', { type: 'button', class: 'button subtle', onClick: onClose, disabled: busy }, 'Close document'),
  );
}

/** The top bar: the document's name and source, the document switcher, Open… and the shortcuts. */
function TopBar({
  doc,
  all,
  currentId,
  uploading,
  onSwitch,
  onFiles,
  onShortcuts,
}: {
  doc: DocumentSummary | null;
  /** Every document, oldest first. */
  all: DocumentSummary[];
  currentId: string | null;
  uploading: number | null;
  onSwitch: (id: string) => void;
  onFiles: (files: File[]) => void;
  onShortcuts: () => void;
}): ComponentChild {
  const labels = describeDocs(all);
  return h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, h(Icon, { name: 'book', size: 22 }), h('span', null, 'Quire')),
    doc
      ? h(
          'div',
          { class: 'doc-heading' },
          h('h1', { class: 'doc-title', title: doc.name }, doc.name),
          h('p', { class: 'doc-source muted' }, `${sourceOf(doc)} · opened ${clock(doc.openedAt, false)}`),
        )
      : h('span', { class: 'doc-title muted' }, 'No document open'),
    all.length > 1
      ? h(
          'label',
          { class: 'switcher' },
          h('span', { class: 'visually-hidden' }, 'Switch document'),
          h(
            'select',
            { value: currentId ?? '', onChange: (e: Event) => onSwitch((e.currentTarget as HTMLSelectElement).value) },
            all.map((d) => h('option', { value: d.id }, labels.get(d.id))),
          ),
        )
      : null,
    doc && uploading !== null ? h(UploadProgress, { share: uploading }) : null,
    h(FilePicker, { onFiles, label: 'Open…', inputId: 'open-files' }),
    h(
      'button',
      {
        type: 'button',
        class: 'icon-button',
        'aria-label': 'Keyboard shortcuts',
        'aria-keyshortcuts': '?',
        title: 'Keyboard shortcuts (?)',
        onClick: onShortcuts,
      },
      h(Icon, { name: 'keyboard' }),
    ),
  );
}

/** The panel a rail entry opens beside the pages. */
function SidePanel({
  panel,
  doc,
  boot,
  pluginsVersion,
  onClose,
  onSetUp,
  onPluginsChanged,
  onSettingsSaved,
}: {
  panel: PanelName;
  doc: DocumentSummary | null;
  boot: BootState;
  pluginsVersion: number;
  onClose: () => void;
  /** Open a plugin's settings. */
  onSetUp: (slug: string) => void;
  onPluginsChanged: () => void;
  onSettingsSaved: (settings: SettingsView) => void;
}): ComponentChild {
  const panelTitle = RAIL.find((r) => r.name === panel)?.label;
  return h(
    'aside',
    { id: 'side-panel', class: 'side-panel', 'aria-labelledby': 'panel-title', tabIndex: -1 },
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'panel-title' }, panelTitle),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': `Close ${panelTitle}`, onClick: onClose }, h(Icon, { name: 'close' })),
    ),
    panel === 'export' ? h(ExportPanel, { doc, pluginsVersion, onSetUp, local: boot.local }) : null,
    panel === 'ocr' ? h(OcrPanel, { boot, doc }) : null,
    panel === 'plugins' ? h(PluginsPanel, { version: pluginsVersion, onChanged: onPluginsChanged, onSettings: onSetUp }) : null,
    panel === 'settings' ? h(SettingsPanel, { boot, onSaved: onSettingsSaved }) : null,
    panel === 'settings' ? h(DictionaryEditor, null) : null,
  );
}

/** Asked before closing a document whose text changed since its last export; the safe answer has the focus. */
function CloseConfirm({ doc, onConfirm, onCancel }: { doc: DocumentSummary; onConfirm: () => void; onCancel: () => void }): ComponentChild {
  return h(
    ConfirmDialog,
    { title: `Close ${doc.name}?`, confirmLabel: 'Close document', cancelLabel: 'Keep it open', onConfirm, onCancel },
    h(
      'p',
      null,
      `${doc.proofreading?.checked ? `Its text, with the ${doc.proofreading.checked} word${doc.proofreading.checked === 1 ? '' : 's'} you checked,` : 'Its recognised text'} ${doc.lastExport ? 'changed after its last export' : 'has not been exported'}. Closing removes the document from Quire.`,
    ),
    h('p', { class: 'muted small' }, 'To keep it, export it first: a PDF or Markdown for the text, a slim project to go on proofreading later.'),
  );
}

/** What the app's keys need to know and do. */
interface AppKeyState {
  /** The pages of the document shown. */
  pages: PageView[];
  pageIndex: number | null;
  panel: PanelName | null;
  mode: ViewMode;
  openPage: (index: number) => void;
  backToGrid: () => void;
  setMode: (mode: ViewMode) => void;
  setPanel: (panel: PanelName | null) => void;
  showShortcuts: () => void;
}

/** The app's keys, wherever the focus is (except in a field or a dialog). */
function appKey(e: KeyboardEvent, { pages, pageIndex, panel, mode, openPage, backToGrid, setMode, setPanel, showShortcuts }: AppKeyState): void {
  if (e.defaultPrevented || isTyping(e) || document.querySelector('dialog[open]')) return;
  const at = pages.findIndex((p) => p.index === pageIndex);
  const go = (i: number): void => {
    const page = pages[Math.max(0, Math.min(pages.length - 1, i))];
    if (page && page.index !== pageIndex) openPage(page.index);
  };
  let handled = true;
  if (e.key === '?') showShortcuts();
  else if (e.key === 'o' || e.key === 'O') document.getElementById('open-files')?.click();
  else if (e.key === 'Escape' && panel && (document.activeElement === document.body || document.activeElement?.closest('#side-panel'))) {
    const name = panel;
    setPanel(null);
    document.getElementById(`rail-${name}`)?.focus();
  } else if (pageIndex !== null && at >= 0) {
    if (e.key === 'ArrowLeft' || e.key === 'PageUp') go(at - 1);
    else if (e.key === 'ArrowRight' || e.key === 'PageDown') go(at + 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(pages.length - 1);
    else if (e.key === 'Escape') backToGrid();
    else if ((e.key === 'p' || e.key === 'P') && pages[at].hasText && pages[at].kind !== 'pdf') setMode(mode === 'proofread' ? 'compare' : 'proofread');
    else handled = false;
  } else handled = false;
  if (handled) e.preventDefault();
}

/** Whatever is shown is one of the server's documents: after a reload, a close, or a close in another window. */
function useShownDocument(listed: boolean, docs: Record<string, DocumentSummary>, currentId: string | null, show: (id: string | null) => void): void {
  useEffect(() => {
    if (!listed) return;
    if (currentId && docs[currentId]) return;
    const next = pickDocument(docs);
    if (next !== currentId) show(next);
  }, [listed, docs, currentId]);
  useEffect(() => {
    if (currentId) sessionStorage.setItem(CURRENT_KEY, currentId);
  }, [currentId]);
}

/** The app's keys, wherever the focus is (the handler is renewed each render, so it sees the state of now). */
function useWindowKeys(handler: (e: KeyboardEvent) => void): void {
  const onKey = useRef<(e: KeyboardEvent) => void>(() => undefined);
  onKey.current = handler;
  useEffect(() => {
    const listener = (e: KeyboardEvent): void => onKey.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);
}

/** The whole window lit up while a file is dragged over it. */
function DropOverlay(): ComponentChild {
  return h(
    'div',
    { class: 'drop-overlay', 'aria-hidden': 'true' },
    h('div', { class: 'drop-card' }, h(Icon, { name: 'open', size: 40 }), h('p', null, 'Drop to open as a new document')),
  );
}

export function App(): ComponentChild {
  const { boot, setBoot, bootError, docs, setDocs, listed, refreshBoot } = useServerState();
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [detail, setDetail] = useState<DocumentDetail | null>(null);
  const { pageIndex, setPageIndex, mode, setMode, initialWord, gridFocus, setGridFocus, openPage, backToGrid, otherDoubtful, startProofreading } =
    usePageNav(detail);
  const [panel, setPanel] = useState<PanelName | null>(null);
  const [uploading, setUploading] = useState<number | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const [pluginsVersion, setPluginsVersion] = useState(0);
  const [settingsOf, setSettingsOf] = useState<string | null>(null);
  const [shortcuts, setShortcuts] = useState(false);
  const doc = currentId ? (docs[currentId] ?? null) : null;
  const { actionError, setActionError, showError, toggle, cancel, confirmClose, setConfirmClose, closeNow, closeDocument } = useDocumentActions(
    currentId,
    doc,
    (id) => {
      sessionStorage.removeItem(CURRENT_KEY);
      setDocs((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== id)));
      setCurrentId(null);
      setPageIndex(null);
      document.getElementById('main')?.focus();
    },
  );

  useShownDocument(listed, docs, currentId, (next) => {
    setCurrentId(next);
    setPageIndex(null);
  });

  const revision = doc?.revision;
  useDocumentDetail(currentId, revision, setDetail, (id, e) => setActionError({ docId: id, text: messageOf(e) }));

  const open = useCallback(async (files: File[]) => {
    setOpenError(null);
    setUploading(0);
    try {
      await refuseUnopenable(files);
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

  const { dragging, dragHandlers } = useFileDrop(open);

  const switchTo = (id: string): void => {
    setCurrentId(id);
    setPageIndex(null);
    setGridFocus(null);
  };
  const pluginsChanged = (): void => {
    setPluginsVersion((v) => v + 1);
    // An OCR engine plugin installed or accepted is offered in the OCR panel at once.
    refreshBoot();
  };
  const settingsSaved = (settings: SettingsView): void => {
    setBoot((b) => (b ? { ...b, settings } : b));
    refreshBoot();
  };

  useWindowKeys((e) =>
    appKey(e, {
      pages: detail && detail.id === currentId ? detail.pageList : [],
      pageIndex,
      panel,
      mode,
      openPage,
      backToGrid,
      setMode,
      setPanel,
      showShortcuts: () => setShortcuts(true),
    }),
  );

  if (bootError) return h('main', { class: 'fatal' }, h('h1', null, 'Quire cannot start this window'), h('p', { role: 'alert' }, bootError));
  if (!boot || !listed) return h('main', { class: 'fatal', role: 'status' }, 'Loading Quire…');

  const busy = doc?.status === 'working';
  const ready = detail && detail.id === currentId && detail.pageList.length > 0;
  const all = Object.values(docs).sort((a, b) => a.openedAt - b.openedAt);
  const shownError = actionError && actionError.docId === currentId ? actionError.text : null;
  const proofreading = ready ? detail.proofreading : undefined;

  let content: ComponentChild;
  if (!doc) {
    content = h(EmptyState, { onFiles: (f) => void open(f), uploading, error: openError, over: dragging });
  } else if (!ready) {
    content = h(PendingDocument, { doc, boot, busy, onCancel: cancel, onClose: closeDocument });
  } else {
    content = h(
      'div',
      { class: 'doc' },
      h(DocBar, { detail, doc, boot, busy, proofreading, onProofread: startProofreading, onError: showError, onClose: closeDocument }),
      busy ? h(TaskPanel, { doc, onCancel: cancel, compact: true }) : null,
      h(LastTaskNote, { doc, exportPanel: panel === 'export' }),
      shownError ? h(ErrorBanner, { text: shownError, onDismiss: () => setActionError(null) }) : null,
      pageIndex === null
        ? h(PageGrid, { doc: detail, onOpen: (i) => openPage(i), onToggle: toggle, busy, focusIndex: gridFocus })
        : h(PageViewer, {
            doc: detail,
            index: pageIndex,
            mode,
            onMode: setMode,
            initialWord,
            onIndex: (i) => openPage(i),
            onBack: backToGrid,
            onToggle: toggle,
            onOtherDoubtful: otherDoubtful,
            busy,
          }),
    );
  }

  return h(
    'div',
    { class: panel ? 'app with-panel' : 'app', ...dragHandlers },
    h('a', { class: 'skip', href: '#main' }, 'Skip to the pages'),
    h(Announcer, { doc }),
    h(TopBar, { doc, all, currentId, uploading, onSwitch: switchTo, onFiles: (f) => void open(f), onShortcuts: () => setShortcuts(true) }),
    doc && openError ? h(ErrorBanner, { text: openError, banner: true, onDismiss: () => setOpenError(null) }) : null,
    h('main', { id: 'main', class: 'main', tabIndex: -1 }, content),
    panel
      ? h(SidePanel, {
          panel,
          doc,
          boot,
          pluginsVersion,
          onClose: () => setPanel(null),
          onSetUp: setSettingsOf,
          onPluginsChanged: pluginsChanged,
          onSettingsSaved: settingsSaved,
        })
      : null,
    h(Rail, { panel, onPanel: setPanel }),
    dragging ? h(DropOverlay, null) : null,
    settingsOf ? h(PluginSettingsDialog, { slug: settingsOf, onClose: () => setSettingsOf(null), onChanged: pluginsChanged }) : null,
    shortcuts ? h(ShortcutsDialog, { onClose: () => setShortcuts(false) }) : null,
    confirmClose && doc ? h(CloseConfirm, { doc, onConfirm: closeNow, onCancel: () => setConfirmClose(false) }) : null,
  );
}
