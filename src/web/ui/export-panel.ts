/// <reference lib="dom" />
/**
 * The Export panel: one list of exporter cards — the formats, and one `send:<slug>` card per
 * installed destination — chosen the same way and run by the same Export button. A destination not
 * set up says what it needs, and Export opens its settings instead of exporting. What the panel says
 * of an export is the selected document's own last export, as the server has it: the files written,
 * with Open folder and Download, or what each destination answered.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DocumentSummary, ExporterCard, ExportResult } from '../api-types.js';
import { api, ApiFailure, messageOf } from './api.js';
import { Icon } from './icons.js';
import { FORMAT_TITLES } from '../stages.js';
import { formatSeconds, StageList } from './progress.js';

function stateLine(card: ExporterCard): ComponentChild {
  if (card.kind !== 'destination') return null;
  switch (card.state) {
    case 'ready':
      return h('p', { class: 'card-state ok' }, h(Icon, { name: 'check', size: 16 }), 'Ready');
    case 'needs-settings':
      return h('p', { class: 'card-state warn' }, `Not set up yet — needs ${card.missing?.join(', ') ?? 'its settings'}`);
    case 'refused':
      return h('p', { class: 'card-state bad' }, `Cannot be used: ${card.reason ?? 'refused'}`);
    default:
      return h('p', { class: 'card-state bad' }, 'Takes no format Quire writes.');
  }
}

function timeOf(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function took(result: ExportResult): string {
  const started = result.stages.find((s) => s.started !== undefined)?.started;
  if (started === undefined) return '';
  const seconds = (result.at - started) / 1000;
  return seconds < 1 ? ', in under a second' : `, in ${formatSeconds(seconds)}`;
}

/** A finished export: the files written with Open folder and Download, or what each destination said. */
function ExportOutcome({ doc, result, local }: { doc: DocumentSummary; result: ExportResult; local: boolean }): ComponentChild {
  const [folderNote, setFolderNote] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  useEffect(() => setFolderNote(null), [doc.id, result.at]);
  const openFolder = (): void => {
    setFolderNote(null);
    api('POST', `/api/documents/${doc.id}/open-folder`).then(
      () => setFolderNote({ tone: 'ok', text: 'The folder opens in your file manager.' }),
      (e: unknown) => setFolderNote({ tone: 'bad', text: messageOf(e) }),
    );
  };
  const stages = h(
    'details',
    { class: 'stages-done' },
    h('summary', null, `How it went${took(result)}`),
    h(StageList, { stages: result.stages, label: 'Stages of the export' }),
  );
  if (result.kind === 'files') {
    const files = result.files ?? [];
    return h(
      'section',
      { class: 'outcome ok', 'aria-labelledby': 'export-done-title' },
      h(
        'h3',
        { id: 'export-done-title', role: 'status' },
        `${result.title} written at ${timeOf(result.at)}: ${files.length === 1 ? files[0].fileName : `${files.length} files`}`,
      ),
      h('p', { class: 'small' }, 'In ', h('span', { class: 'path' }, result.folder ?? ''), ':'),
      h(
        'ul',
        { class: 'written', 'aria-label': 'Files written' },
        files.map((f) =>
          h(
            'li',
            { key: f.url },
            h('span', { class: 'written-name' }, f.fileName),
            h('span', { class: 'muted small' }, ` ${f.size}`),
            h(
              'a',
              { class: 'button small-button', href: f.url, download: f.fileName, 'aria-label': `Download ${f.fileName}` },
              h(Icon, { name: 'download', size: 16 }),
              'Download',
            ),
          ),
        ),
      ),
      local
        ? h(
            'div',
            { class: 'row' },
            h('button', { type: 'button', class: 'button', onClick: openFolder }, h(Icon, { name: 'folder', size: 16 }), 'Open folder'),
          )
        : null,
      folderNote
        ? h('p', { class: folderNote.tone === 'bad' ? 'error' : 'small', role: folderNote.tone === 'bad' ? 'alert' : 'status' }, folderNote.text)
        : null,
      stages,
    );
  }
  const sends = result.sends ?? [];
  const ok = sends.length > 0 && sends.every((s) => s.ok);
  return h(
    'section',
    { class: `outcome ${ok ? 'ok' : 'bad'}`, 'aria-labelledby': 'export-done-title' },
    h('h3', { id: 'export-done-title' }, `${result.title} at ${timeOf(result.at)}`),
    h(
      'div',
      { role: ok ? 'status' : 'alert' },
      sends.length === 0
        ? h('p', null, 'Nothing was sent: the destination takes none of the written files.')
        : sends.map((s) => h('p', null, `${s.ok ? (s.alreadyThere ? 'Already there' : 'Sent') : (s.kindLabel ?? 'Failed')} — ${s.message}`)),
    ),
    stages,
  );
}

/** Under the chosen format: the other formats to write in the same export, under the same name. */
function AlsoWrite({
  id,
  chosen,
  formats,
  also,
  onChange,
}: {
  id: string;
  chosen: ExporterCard;
  formats: ExporterCard[];
  also: string[];
  onChange: (format: string, on: boolean) => void;
}): ComponentChild {
  if (formats.length === 0) return null;
  return h(
    'fieldset',
    { class: 'also-write' },
    h('legend', { class: 'small' }, `Write with the ${chosen.title}`),
    formats.map((f) =>
      h(
        'label',
        { class: 'check small' },
        h('input', {
          type: 'checkbox',
          id: `${id}-also-${f.key}`,
          checked: also.includes(f.key),
          onChange: (e: Event) => onChange(f.key, (e.currentTarget as HTMLInputElement).checked),
        }),
        f.title,
      ),
    ),
  );
}

/** A destination that cannot be chosen: refused, or taking no format Quire writes. */
const disabled = (c: ExporterCard): boolean => c.kind === 'destination' && (c.state === 'refused' || c.state === 'no-format');

/** One card of the export panel: a format or a destination, with its options when it is the chosen one. */
function ExporterCardItem({
  c,
  isSelected,
  hasText,
  formats,
  choice,
  setChoice,
  also,
  onAlso,
  onSelect,
  onSetUp,
}: {
  c: ExporterCard;
  isSelected: boolean;
  /** The document has recognised text already. */
  hasText: boolean;
  /** The other formats that may be written with this one. */
  formats: ExporterCard[];
  choice: (key: string, name: string, fallback: string) => string;
  setChoice: (key: string, name: string, value: string) => void;
  also: string[];
  onAlso: (format: string, on: boolean) => void;
  onSelect: () => void;
  onSetUp: () => void;
}): ComponentChild {
  const id = `exporter-${c.key.replace(/[^a-z0-9-]/g, '-')}`;
  return h(
    'div',
    { class: `card${isSelected ? ' selected' : ''}${disabled(c) ? ' disabled' : ''}` },
    h(
      'div',
      { class: 'card-head' },
      h('input', {
        type: 'radio',
        name: 'exporter',
        id,
        value: c.key,
        checked: isSelected,
        disabled: disabled(c),
        onChange: onSelect,
        'aria-describedby': `${id}-desc`,
      }),
      h('label', { for: id }, c.title, c.kind === 'destination' ? h('span', { class: 'card-key' }, c.key) : null),
    ),
    h('p', { class: 'card-desc', id: `${id}-desc` }, c.description),
    stateLine(c),
    c.needsOcr ? h('p', { class: 'muted small' }, hasText ? 'Uses the recognised text.' : 'Needs text: OCR runs first.') : null,
    isSelected && c.kind === 'format'
      ? (c.options ?? []).map((o) =>
          h(
            'div',
            { class: 'field inline' },
            h('label', { for: `${id}-${o.name}` }, o.label),
            h(
              'select',
              {
                id: `${id}-${o.name}`,
                value: choice(c.key, o.name, o.default),
                onChange: (e: Event) => setChoice(c.key, o.name, (e.currentTarget as HTMLSelectElement).value),
              },
              o.values.map((v) => h('option', { value: v }, v)),
            ),
          ),
        )
      : null,
    isSelected && c.kind === 'format' ? h(AlsoWrite, { id, chosen: c, formats, also, onChange: onAlso }) : null,
    isSelected && c.kind === 'destination' && c.formats && c.formats.length > 1
      ? h(
          'div',
          { class: 'field inline' },
          h('label', { for: `${id}-as` }, 'Export as'),
          h(
            'select',
            {
              id: `${id}-as`,
              value: choice(c.key, 'as', c.formats[0]),
              onChange: (e: Event) => setChoice(c.key, 'as', (e.currentTarget as HTMLSelectElement).value),
            },
            c.formats.map((f) => h('option', { value: f }, `${f} — ${FORMAT_TITLES[f] ?? f}`)),
          ),
        )
      : null,
    isSelected && c.kind === 'destination' && c.formats?.length === 1
      ? h('p', { class: 'muted small' }, `Sends ${FORMAT_TITLES[c.formats[0]] ?? c.formats[0]}.`)
      : null,
    isSelected && c.kind === 'destination' && c.state !== 'refused'
      ? h('button', { type: 'button', class: 'link-button', onClick: onSetUp }, `${c.title} settings…`)
      : null,
  );
}

export function ExportPanel({
  doc,
  pluginsVersion,
  onSetUp,
  local,
}: {
  doc: DocumentSummary | null;
  pluginsVersion: number;
  /** Open a destination's settings. */
  onSetUp: (slug: string) => void;
  /** Open folder can show the folder (the window is on the computer Quire runs on). */
  local: boolean;
}): ComponentChild {
  const [cards, setCards] = useState<ExporterCard[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useState('pdf');
  const [choices, setChoices] = useState<Record<string, Record<string, string>>>({});
  // Formats written together with the chosen one, by the chosen one's key: PDF, Markdown and EPUB in one export.
  const [also, setAlso] = useState<Record<string, string[]>>({});
  const [starting, setStarting] = useState(false);
  // What this panel said of the export it was asked for, before the task took over; it belongs to that document only.
  const [note, setNote] = useState<{ docId: string; tone: 'bad' | 'info'; text: string } | null>(null);

  useEffect(() => {
    let live = true;
    api<ExporterCard[]>('GET', '/api/exporters').then(
      (c) => {
        if (!live) return;
        setCards(c);
        setLoadError(null);
      },
      (e: unknown) => live && setLoadError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [pluginsVersion]);

  const card = cards?.find((c) => c.key === selected) ?? cards?.[0];
  const choice = (key: string, name: string, fallback: string): string => choices[key]?.[name] ?? fallback;
  const setChoice = (key: string, name: string, value: string): void => setChoices((c) => ({ ...c, [key]: { ...c[key], [name]: value } }));
  const slugOf = (c: ExporterCard): string => c.key.slice('send:'.length);
  const alsoOf = (key: string): string[] => also[key] ?? [];
  const setAlsoOf = (key: string, format: string, on: boolean): void =>
    setAlso((a) => ({ ...a, [key]: on ? [...(a[key] ?? []).filter((f) => f !== format), format] : (a[key] ?? []).filter((f) => f !== format) }));
  const exporting = doc?.task?.kind === 'export';
  const busy = starting || doc?.status === 'working';

  const run = async (): Promise<void> => {
    if (!card || !doc) return;
    setNote(null);
    if (card.kind === 'destination' && card.state === 'needs-settings') {
      setNote({ docId: doc.id, tone: 'info', text: `Set up ${card.title} first, then press Export again.` });
      onSetUp(slugOf(card));
      return;
    }
    const optionsOf = (c: ExporterCard): Record<string, string> => Object.fromEntries((c.options ?? []).map((o) => [o.name, choice(c.key, o.name, o.default)]));
    const more = (cards ?? []).filter((c) => alsoOf(card.key).includes(c.key));
    const body =
      card.kind === 'format'
        ? { target: card.key, options: optionsOf(card), ...(more.length > 0 ? { also: more.map((c) => ({ target: c.key, options: optionsOf(c) })) } : {}) }
        : { target: card.key, as: choice(card.key, 'as', card.formats?.[0] ?? 'pdf') };
    setStarting(true);
    try {
      // The export runs as the document's task: its stages and its outcome arrive with the document.
      await api<DocumentSummary>('POST', `/api/documents/${doc.id}/export`, body);
    } catch (e) {
      if (e instanceof ApiFailure && e.code === 'not_set_up' && card.kind === 'destination') onSetUp(slugOf(card));
      setNote({ docId: doc.id, tone: 'bad', text: messageOf(e) });
    } finally {
      setStarting(false);
    }
  };
  const shownNote = note && doc && note.docId === doc.id ? note : null;
  const failed = doc?.lastTask?.kind === 'export' && doc.lastTask.outcome !== 'done' && !exporting ? doc.lastTask : null;

  return h(
    'div',
    { class: 'panel-content' },
    !doc ? h('p', { class: 'empty-note' }, 'Open a document first; its exports are made here.') : null,
    loadError ? h('p', { class: 'error', role: 'alert' }, loadError) : null,
    cards === null && !loadError ? h('p', { class: 'muted', role: 'status' }, 'Loading the exporters…') : null,
    cards
      ? h(
          'fieldset',
          { class: 'cards' },
          h('legend', null, 'What to make'),
          cards.map((c) =>
            h(ExporterCardItem, {
              key: c.key,
              c,
              isSelected: card?.key === c.key,
              hasText: Boolean(doc?.ocr),
              formats: cards.filter((o) => o.kind === 'format' && o.key !== c.key),
              choice,
              setChoice,
              also: alsoOf(c.key),
              onAlso: (f, on) => setAlsoOf(c.key, f, on),
              onSelect: () => setSelected(c.key),
              onSetUp: () => onSetUp(slugOf(c)),
            }),
          ),
        )
      : null,
    cards && cards.every((c) => c.kind === 'format')
      ? h('p', { class: 'muted small' }, 'Install a destination in Plugins to send exports to a library, an e-reader or a corpus.')
      : null,
    h(
      'div',
      // Kept in sight at the foot of the panel however long the list of cards is (1280×800 included).
      { class: 'panel-actions sticky-actions' },
      h(
        'button',
        { type: 'button', class: 'button primary', disabled: !doc || !card || busy || doc.pages === 0, onClick: () => void run() },
        exporting || starting ? 'Exporting…' : 'Export',
      ),
    ),
    exporting && doc?.task
      ? h('div', { class: 'export-running', role: 'status', 'aria-live': 'polite' }, h(StageList, { stages: doc.task.stages, label: 'Stages of the export' }))
      : null,
    shownNote
      ? h('p', { class: shownNote.tone === 'bad' ? 'error' : 'outcome info', role: shownNote.tone === 'bad' ? 'alert' : 'status' }, shownNote.text)
      : null,
    failed
      ? h(
          'p',
          { class: failed.outcome === 'failed' ? 'error' : 'notice', role: failed.outcome === 'failed' ? 'alert' : 'status' },
          failed.outcome === 'cancelled' ? 'The export was cancelled.' : `The export failed: ${failed.message ?? ''}`,
        )
      : null,
    doc?.lastExport && !exporting && !failed ? h(ExportOutcome, { doc, result: doc.lastExport, local }) : null,
  );
}
