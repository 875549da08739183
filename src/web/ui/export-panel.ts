/// <reference lib="dom" />
/**
 * The Export panel: one list of exporter cards — the formats, and one `send:<slug>` card per
 * installed destination — chosen the same way and run by the same Export button. A destination not
 * set up says what it needs, and Export opens its settings instead of exporting.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DocumentSummary, ExporterCard, ExportResult } from '../api-types.js';
import { api, ApiFailure, messageOf, startDownload } from './api.js';
import { Icon } from './icons.js';

const FORMAT_NAMES: Record<string, string> = { pdf: 'PDF', md: 'Markdown', epub: 'EPUB', textpack: 'OCR textpack' };

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

interface Outcome {
  tone: 'ok' | 'bad' | 'info';
  lines: string[];
}

function outcomeOf(result: ExportResult): Outcome {
  if (result.kind === 'download' && result.download) {
    return { tone: 'ok', lines: [`${result.download.fileName} (${result.download.size}) is ready; your browser saves it.`] };
  }
  const sends = result.sends ?? [];
  if (sends.length === 0) return { tone: 'bad', lines: ['Nothing was sent: the destination takes none of the written files.'] };
  return {
    tone: sends.every((s) => s.ok) ? 'ok' : 'bad',
    lines: sends.map((s) => `${s.ok ? (s.alreadyThere ? 'Already there' : 'Sent') : (s.kindLabel ?? 'Failed')} — ${s.message}`),
  };
}

export function ExportPanel({
  doc,
  pluginsVersion,
  onSetUp,
}: {
  doc: DocumentSummary | null;
  pluginsVersion: number;
  /** Open a destination's settings. */
  onSetUp: (slug: string) => void;
}): ComponentChild {
  const [cards, setCards] = useState<ExporterCard[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useState('pdf');
  const [choices, setChoices] = useState<Record<string, Record<string, string>>>({});
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

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
  const busy = running || doc?.status === 'working';

  const run = async (): Promise<void> => {
    if (!card || !doc) return;
    setOutcome(null);
    if (card.kind === 'destination' && card.state === 'needs-settings') {
      setOutcome({ tone: 'info', lines: [`Set up ${card.title} first, then press Export again.`] });
      onSetUp(slugOf(card));
      return;
    }
    const body =
      card.kind === 'format'
        ? { target: card.key, options: Object.fromEntries((card.options ?? []).map((o) => [o.name, choice(card.key, o.name, o.default)])) }
        : { target: card.key, as: choice(card.key, 'as', card.formats?.[0] ?? 'pdf') };
    setRunning(true);
    try {
      const result = await api<ExportResult>('POST', `/api/documents/${doc.id}/export`, body);
      if (result.kind === 'download' && result.download) startDownload(result.download.url, result.download.fileName);
      setOutcome(outcomeOf(result));
    } catch (e) {
      if (e instanceof ApiFailure && e.code === 'not_set_up' && card.kind === 'destination') onSetUp(slugOf(card));
      setOutcome({ tone: 'bad', lines: [messageOf(e)] });
    } finally {
      setRunning(false);
    }
  };

  const disabled = (c: ExporterCard): boolean => c.kind === 'destination' && (c.state === 'refused' || c.state === 'no-format');

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
          cards.map((c) => {
            const id = `exporter-${c.key.replace(/[^a-z0-9-]/g, '-')}`;
            const isSelected = card?.key === c.key;
            return h(
              'div',
              { key: c.key, class: `card${isSelected ? ' selected' : ''}${disabled(c) ? ' disabled' : ''}` },
              h(
                'div',
                { class: 'card-head' },
                h('input', { type: 'radio', name: 'exporter', id, value: c.key, checked: isSelected, disabled: disabled(c), onChange: () => setSelected(c.key), 'aria-describedby': `${id}-desc` }),
                h('label', { for: id }, c.title, c.kind === 'destination' ? h('span', { class: 'card-key' }, c.key) : null),
              ),
              h('p', { class: 'card-desc', id: `${id}-desc` }, c.description),
              stateLine(c),
              c.needsOcr ? h('p', { class: 'muted small' }, doc?.ocr ? 'Uses the recognised text.' : 'Needs text: OCR runs first.') : null,
              isSelected && c.kind === 'format'
                ? (c.options ?? []).map((o) =>
                    h(
                      'div',
                      { class: 'field inline' },
                      h('label', { for: `${id}-${o.name}` }, o.label),
                      h(
                        'select',
                        { id: `${id}-${o.name}`, value: choice(c.key, o.name, o.default), onChange: (e: Event) => setChoice(c.key, o.name, (e.currentTarget as HTMLSelectElement).value) },
                        o.values.map((v) => h('option', { value: v }, v)),
                      ),
                    ),
                  )
                : null,
              isSelected && c.kind === 'destination' && c.formats && c.formats.length > 1
                ? h(
                    'div',
                    { class: 'field inline' },
                    h('label', { for: `${id}-as` }, 'Export as'),
                    h(
                      'select',
                      { id: `${id}-as`, value: choice(c.key, 'as', c.formats[0]), onChange: (e: Event) => setChoice(c.key, 'as', (e.currentTarget as HTMLSelectElement).value) },
                      c.formats.map((f) => h('option', { value: f }, `${f} — ${FORMAT_NAMES[f] ?? f}`)),
                    ),
                  )
                : null,
              isSelected && c.kind === 'destination' && c.formats?.length === 1 ? h('p', { class: 'muted small' }, `Sends ${FORMAT_NAMES[c.formats[0]] ?? c.formats[0]}.`) : null,
              isSelected && c.kind === 'destination' && c.state !== 'refused'
                ? h('button', { type: 'button', class: 'link-button', onClick: () => onSetUp(slugOf(c)) }, `${c.title} settings…`)
                : null,
            );
          }),
        )
      : null,
    cards && cards.every((c) => c.kind === 'format') ? h('p', { class: 'muted small' }, 'Install a destination in Plugins to send exports to a library, an e-reader or a corpus.') : null,
    h(
      'div',
      { class: 'panel-actions' },
      h('button', { type: 'button', class: 'button primary', disabled: !doc || !card || busy || doc.pages === 0, onClick: () => void run() }, running ? 'Exporting…' : 'Export'),
    ),
    outcome
      ? h(
          'div',
          { class: `outcome ${outcome.tone}`, role: outcome.tone === 'bad' ? 'alert' : 'status' },
          outcome.lines.map((l) => h('p', null, l)),
        )
      : null,
  );
}
