/// <reference lib="dom" />
/**
 * The OCR panel: choose the engine and the languages, run, and see the text beside each page. The engines'
 * state is the server's (a key saved in Settings makes the remote engine usable here at once), and what the
 * panel says of a run is the selected document's.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { BootState, DocumentSummary } from '../api-types.js';
import { api, messageOf } from './api.js';
import { ConfirmDialog } from './dialog.js';

/**
 * The engine offered first: the default one when it can run, else Automatic (the fastest local engine that reads the
 * languages: native tesseract when it is installed, as the CLI's `--ocr auto` picks it).
 */
export function firstEngine(boot: BootState): string {
  const preferred = boot.settings.ocrEngine;
  if (preferred !== 'none' && preferred !== 'auto' && boot.ocrEngines.some((e) => e.name === preferred && e.available)) return preferred;
  return 'auto';
}

/** The engine whose languages and description Automatic stands for. */
function describedEngine(boot: BootState, engine: string): BootState['ocrEngines'][number] | undefined {
  return boot.ocrEngines.find((e) => e.name === (engine === 'auto' ? 'tesseract' : engine));
}

export function LanguagePicker({
  languages,
  value,
  onChange,
  idPrefix,
}: {
  languages: Array<{ code: string; name: string }>;
  value: string;
  onChange: (value: string) => void;
  idPrefix: string;
}): ComponentChild {
  const auto = value === 'auto';
  // '' is "detection off, nothing chosen yet": the caller asks for a language before running.
  const chosen = auto ? [] : value.split('+').filter((c) => c !== '');
  const toggle = (code: string, on: boolean): void => {
    const next = on ? [...chosen.filter((c) => c !== code), code] : chosen.filter((c) => c !== code);
    onChange(next.join('+'));
  };
  return h(
    'fieldset',
    { class: 'languages' },
    h('legend', null, 'Languages'),
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        id: `${idPrefix}-auto`,
        checked: auto,
        onChange: (e: Event) => onChange((e.currentTarget as HTMLInputElement).checked ? 'auto' : ''),
      }),
      'Detect them from the pages',
    ),
    h(
      'div',
      { class: 'language-list' },
      languages.map((l) =>
        h(
          'label',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            checked: chosen.includes(l.code),
            disabled: auto,
            onChange: (e: Event) => toggle(l.code, (e.currentTarget as HTMLInputElement).checked),
          }),
          `${l.name} (${l.code})`,
        ),
      ),
    ),
    !auto && chosen.length === 0 ? h('p', { class: 'card-state warn' }, 'Choose at least one language, or let Quire detect them.') : null,
    !auto && chosen.length > 1 ? h('p', { class: 'muted small' }, `The first one ticked, ${chosen[0]}, is the main language.`) : null,
  );
}

export function OcrPanel({ boot, doc }: { boot: BootState; doc: DocumentSummary | null }): ComponentChild {
  const [engine, setEngine] = useState(() => firstEngine(boot));
  const [languages, setLanguages] = useState(boot.settings.ocrLanguages);
  const [error, setError] = useState<{ docId: string; text: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => setConfirming(false), [doc?.id]);

  const description = describedEngine(boot, engine);
  const engineLanguages = description?.languages ?? [];
  const busy = doc?.status === 'working';
  const checked = doc?.proofreading?.checked ?? 0;
  const running = doc?.task?.kind === 'ocr';
  const last = doc?.lastTask?.kind === 'ocr' && !running ? doc.lastTask : null;
  const shownError = error && doc && error.docId === doc.id ? error.text : null;

  const run = async (): Promise<void> => {
    if (!doc) return;
    setConfirming(false);
    setError(null);
    try {
      await api('POST', `/api/documents/${doc.id}/ocr`, { engine, languages });
    } catch (e) {
      setError({ docId: doc.id, text: messageOf(e) });
    }
  };

  return h(
    'div',
    { class: 'panel-content' },
    !doc ? h('p', { class: 'empty-note' }, 'Open a document first; its pages are recognised here.') : null,
    doc?.ocr
      ? h('p', { class: 'outcome ok', role: 'status' }, `The pages have text: ${doc.ocr.engine}, ${doc.ocr.languages.join('+')}. Running again replaces it.`)
      : doc
        ? h('p', { class: 'muted' }, 'The pages have no recognised text yet.')
        : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'ocr-engine' }, 'Engine'),
      h(
        'select',
        { id: 'ocr-engine', value: engine, onChange: (e: Event) => setEngine((e.currentTarget as HTMLSelectElement).value) },
        h('option', { value: 'auto' }, 'Automatic (fastest local engine)'),
        boot.ocrEngines
          .filter((e) => e.name !== 'none')
          .map((e) => h('option', { value: e.name, disabled: !e.available }, `${e.display}${e.available ? '' : ` — ${e.reason ?? 'not available'}`}`)),
      ),
      engine === 'auto'
        ? h('p', { class: 'muted small' }, 'Native tesseract when it is installed on this computer (faster), else tesseract.js; both read the same languages.')
        : description
          ? h('p', { class: 'muted small' }, description.description)
          : null,
    ),
    engineLanguages.length > 0 ? h(LanguagePicker, { languages: engineLanguages, value: languages, onChange: setLanguages, idPrefix: 'ocr-lang' }) : null,
    h(
      'div',
      { class: 'panel-actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'button primary',
          disabled: !doc || busy || doc.pages === 0 || languages === '' || (engine !== 'auto' && description?.available === false),
          onClick: () => (checked > 0 ? setConfirming(true) : void run()),
        },
        'Run OCR',
      ),
    ),
    running ? h('p', { class: 'muted', role: 'status' }, 'Recognising… the progress shows beside the pages.') : null,
    last?.outcome === 'done' ? h('p', { class: 'outcome ok', role: 'status' }, 'Done: open a page to see its text beside it, or proofread it.') : null,
    last && last.outcome !== 'done'
      ? h(
          'p',
          { class: last.outcome === 'failed' ? 'error' : 'notice', role: last.outcome === 'failed' ? 'alert' : 'status' },
          last.outcome === 'cancelled' ? 'OCR was cancelled.' : `OCR failed: ${last.message ?? ''}`,
        )
      : null,
    shownError ? h('p', { class: 'error', role: 'alert' }, shownError) : null,
    confirming && doc
      ? h(
          ConfirmDialog,
          { title: 'Recognise the text again?', confirmLabel: 'Run OCR again', onConfirm: () => void run(), onCancel: () => setConfirming(false) },
          h('p', null, `This replaces the text of every page, and with it the ${checked} word${checked === 1 ? '' : 's'} you checked or corrected.`),
          h('p', { class: 'muted small' }, 'Export the document first (a slim project keeps your corrections) if you want to keep them.'),
        )
      : null,
  );
}
