/// <reference lib="dom" />
/** The app's defaults: the pipeline preset, the OCR engine and languages, the export folder, the remote OCR key. */
import { h, type ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import type { BootState, PresetChoice, SettingsView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { LanguagePicker } from './ocr-panel.js';

const STORE_WORDS: Record<string, string> = {
  keychain: 'in the OS keychain',
  'env-file': 'in the app data .env file',
  'config-file': 'in a settings file (no OS keychain was found)',
};

export function SettingsPanel({ boot, onSaved }: { boot: BootState; onSaved: (settings: SettingsView) => void }): ComponentChild {
  const [preset, setPreset] = useState<PresetChoice>(boot.settings.preset);
  const [engine, setEngine] = useState(boot.settings.ocrEngine);
  const [languages, setLanguages] = useState(boot.settings.ocrLanguages);
  const [folder, setFolder] = useState(boot.settings.exportFolder);
  const [key, setKey] = useState('');
  const [state, setState] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  const stored = boot.settings.remoteOcrKey;
  const engineLanguages =
    boot.ocrEngines.find((e) => e.name === (engine === 'auto' ? 'tesseract' : engine))?.languages ??
    boot.ocrEngines.find((e) => e.name === 'tesseract')?.languages ??
    [];

  const save = async (change: Record<string, unknown>): Promise<void> => {
    setState(null);
    try {
      const saved = await api<SettingsView>('PUT', '/api/settings', change);
      setKey('');
      onSaved(saved);
      setState({ tone: 'ok', text: 'Saved. New documents use these defaults.' });
    } catch (e) {
      setState({ tone: 'bad', text: messageOf(e) });
    }
  };

  const presetHelp =
    preset === 'auto'
      ? 'Each input gets the preset that fits it: book for scan bundles and camera photos, sheet for scans, flat for vector PDFs.'
      : boot.presets.find((p) => p.name === preset)?.description;

  return h(
    'form',
    {
      class: 'panel-content',
      onSubmit: (e: Event) => {
        e.preventDefault();
        void save({
          preset,
          ocrEngine: engine,
          ocrLanguages: languages === '' ? 'auto' : languages,
          exportFolder: folder,
          ...(key.trim() !== '' ? { remoteOcrKey: key } : {}),
        });
      },
    },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-preset' }, 'Pipeline preset'),
      h(
        'select',
        {
          id: 'set-preset',
          value: preset,
          'aria-describedby': 'set-preset-help',
          onChange: (e: Event) => setPreset((e.currentTarget as HTMLSelectElement).value as PresetChoice),
        },
        h('option', { value: 'auto' }, 'Automatic (by input)'),
        boot.presets.map((p) => h('option', { value: p.name }, p.name)),
      ),
      h('p', { class: 'muted small', id: 'set-preset-help' }, presetHelp),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-ocr' }, 'OCR when opening'),
      h(
        'select',
        { id: 'set-ocr', value: engine, 'aria-describedby': 'set-ocr-help', onChange: (e: Event) => setEngine((e.currentTarget as HTMLSelectElement).value) },
        h('option', { value: 'none' }, 'None (run it when needed)'),
        h('option', { value: 'auto' }, 'Automatic (best local engine)'),
        boot.ocrEngines.filter((e) => e.name !== 'none').map((e) => h('option', { value: e.name, disabled: !e.available }, e.display)),
      ),
    ),
    h(
      'p',
      { class: 'muted small', id: 'set-ocr-help' },
      engine === 'none'
        ? 'Opening makes the pages only; OCR runs from the OCR panel, or by itself when an export needs text.'
        : 'Opening recognises the text of every page too.',
    ),
    engine !== 'none' ? h(LanguagePicker, { languages: engineLanguages, value: languages, onChange: setLanguages, idPrefix: 'set-lang' }) : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-folder' }, 'Export folder'),
      h('input', {
        id: 'set-folder',
        type: 'text',
        value: folder,
        spellcheck: false,
        placeholder: boot.settings.exportFolder === '' ? boot.settings.exportFolderInUse : '',
        'aria-describedby': 'set-folder-help',
        onInput: (e: Event) => setFolder((e.currentTarget as HTMLInputElement).value),
      }),
      h(
        'p',
        { class: 'muted small', id: 'set-folder-help' },
        `Exports are written here, named after the document. Now: ${boot.settings.exportFolderInUse}. Leave it empty for the default.`,
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-key' }, 'Remote OCR key'),
      h('input', {
        id: 'set-key',
        type: 'password',
        autocomplete: 'off',
        value: key,
        placeholder: stored.set ? 'Stored — type a new one to replace it' : 'Not set',
        'aria-describedby': 'set-key-help',
        onInput: (e: Event) => setKey((e.currentTarget as HTMLInputElement).value),
      }),
      h(
        'p',
        { class: 'muted small', id: 'set-key-help' },
        stored.set
          ? `A key is stored ${STORE_WORDS[stored.store ?? ''] ?? ''}; it is never shown again.`
          : 'For the remote OCR engine (remoteocr) once it is installed; kept as a secret.',
      ),
      stored.set
        ? h('button', { type: 'button', class: 'link-button', onClick: () => void save({ forgetRemoteOcrKey: true }) }, 'Forget the stored key')
        : null,
    ),
    h(
      'div',
      { class: 'panel-actions' },
      h('button', { type: 'submit', class: 'button primary', disabled: engine !== 'none' && languages === '' }, 'Save settings'),
    ),
    state ? h('p', { class: `outcome ${state.tone}`, role: state.tone === 'bad' ? 'alert' : 'status' }, state.text) : null,
  );
}
