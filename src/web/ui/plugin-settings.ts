/// <reference lib="dom" />
/**
 * A destination's settings dialog, rendered from its Fields: secrets masked and never sent back
 * once stored; Check shows the CheckResult's kind and message; Export… and Import… do what
 * `quire plugins config --export/--import` do, and exporting secrets asks first, naming them.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CheckView, ConfigExportView, ConfigImportView, FieldView, PluginSettingsView } from '../api-types.js';
import { api, messageOf, startDownload } from './api.js';
import { Modal } from './dialog.js';
import { Icon } from './icons.js';

type Values = Record<string, string | boolean>;

function initialValues(view: PluginSettingsView): Values {
  const values: Values = {};
  for (const f of view.fields) {
    if (f.kind === 'secret') values[f.id] = '';
    else if (f.kind === 'bool') values[f.id] = f.value === true;
    else values[f.id] = f.value === undefined ? '' : String(f.value);
  }
  return values;
}

function FieldInput({ field, value, onValue }: { field: FieldView; value: string | boolean; onValue: (v: string | boolean) => void }): ComponentChild {
  const id = `field-${field.id}`;
  const help = field.help;
  const described = help || field.secret ? `${id}-help` : undefined;
  const label = h('label', { for: id }, field.label, field.required ? h('span', { class: 'required' }, ' (required)') : null);
  const text = (e: Event): void => onValue((e.currentTarget as HTMLInputElement).value);
  let input: ComponentChild;
  switch (field.kind) {
    case 'bool':
      return h(
        'div',
        { class: 'field' },
        h('label', { class: 'check' }, h('input', { type: 'checkbox', id, checked: value === true, onChange: (e: Event) => onValue((e.currentTarget as HTMLInputElement).checked) }), field.label),
        help ? h('p', { class: 'muted small', id: described }, help) : null,
      );
    case 'choice':
      input = h('select', { id, value: String(value), onChange: text, 'aria-describedby': described }, field.choices.map((c) => h('option', { value: c }, c)));
      break;
    case 'int':
      input = h('input', { id, type: 'number', step: 1, inputMode: 'numeric', value: String(value), onInput: text, required: field.required, 'aria-describedby': described });
      break;
    case 'secret':
      input = h('input', {
        id,
        type: 'password',
        autocomplete: 'off',
        value: String(value),
        onInput: text,
        placeholder: field.secret?.set ? 'Stored — type a new one to replace it' : '',
        'aria-describedby': described,
      });
      break;
    default:
      input = field.multiline
        ? h('textarea', { id, rows: 3, value: String(value), onInput: text, 'aria-describedby': described })
        : h('input', { id, type: 'text', value: String(value), onInput: text, required: field.required, 'aria-describedby': described, spellcheck: false });
  }
  const secretState = field.secret ? (field.secret.unreachable ? `Stored, but it cannot be read now: ${field.secret.unreachable}.` : field.secret.set ? 'A value is stored; it is never shown.' : 'Not set.') : '';
  return h('div', { class: 'field' }, label, input, help || secretState ? h('p', { class: 'muted small', id: described }, [help, secretState].filter((s) => s !== '').join(' ')) : null);
}

/** Export… : settings only, or with secrets after a confirmation that names them. */
function ExportSettingsDialog({ view, onClose }: { view: PluginSettingsView; onClose: () => void }): ComponentChild {
  const [withSecrets, setWithSecrets] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<ConfigExportView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const secrets = view.fields.filter((f) => f.kind === 'secret');
  const readable = secrets.filter((f) => f.secret?.set);
  const unreachable = secrets.filter((f) => f.secret?.unreachable);
  const notSet = secrets.filter((f) => !f.secret?.set && !f.secret?.unreachable);

  const exportNow = async (secretsToo: boolean): Promise<void> => {
    setError(null);
    try {
      const r = await api<ConfigExportView>('POST', `/api/plugins/${view.slug}/config/export`, { withSecrets: secretsToo });
      startDownload(r.download.url, r.download.fileName);
      setResult(r);
      setConfirming(false);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  if (confirming) {
    return h(
      Modal,
      { title: 'Write secrets as readable text?', onClose: () => setConfirming(false), role: 'alertdialog' },
      h('p', null, `The file will hold ${readable.length === 1 ? 'this secret' : 'these secrets'} of ${view.display} as readable text:`),
      h('ul', { class: 'secret-names' }, readable.map((f) => h('li', null, h('strong', null, f.label), ` (${f.id})`))),
      unreachable.length > 0 ? h('p', { class: 'card-state bad' }, `Cannot be read now, so NOT in the file: ${unreachable.map((f) => f.label).join(', ')}.`) : null,
      notSet.length > 0 ? h('p', { class: 'muted small' }, `Not set, so not in the file: ${notSet.map((f) => f.label).join(', ')}.`) : null,
      h('p', null, 'Anyone who can read the file can use them. Keep it private and delete it once imported.'),
      error ? h('p', { class: 'error', role: 'alert' }, error) : null,
      h(
        'div',
        { class: 'modal-actions' },
        h('button', { type: 'button', class: 'button', onClick: () => setConfirming(false) }, 'Back'),
        h('button', { type: 'button', class: 'button danger', onClick: () => void exportNow(true) }, 'Export with secrets'),
      ),
    );
  }

  return h(
    Modal,
    { title: `Export settings of ${view.display}`, onClose },
    h('p', null, 'Writes the settings to a JSON file you can import on another machine, with Import… or quire plugins config --import.'),
    secrets.length > 0
      ? h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', checked: withSecrets, onChange: (e: Event) => setWithSecrets((e.currentTarget as HTMLInputElement).checked) }),
          `Include the secrets (${secrets.map((f) => f.label).join(', ')}) as readable text`,
        )
      : h('p', { class: 'muted small' }, 'This destination has no secrets.'),
    result
      ? h(
          'div',
          { class: 'outcome ok', role: 'status' },
          h('p', null, `Wrote ${result.settings} setting${result.settings === 1 ? '' : 's'} to ${result.download.fileName}; your browser saves it.`),
          result.secretsWritten.length > 0 ? h('p', null, `Warning: ${result.secretsWritten.length} secret${result.secretsWritten.length === 1 ? ' is' : 's are'} in it as readable text (${result.secretsWritten.join(', ')}).`) : null,
          result.secretsUnreadable.map((u) => h('p', null, `The secret ${u.id} could not be read and is NOT in the file: ${u.reason}.`)),
        )
      : null,
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    h(
      'div',
      { class: 'modal-actions' },
      h('button', { type: 'button', class: 'button', onClick: onClose }, result ? 'Done' : 'Cancel'),
      h(
        'button',
        {
          type: 'button',
          class: 'button primary',
          onClick: () => {
            if (withSecrets && readable.length + unreachable.length > 0) setConfirming(true);
            else void exportNow(withSecrets);
          },
        },
        withSecrets ? 'Export with secrets…' : 'Export',
      ),
    ),
  );
}

export function PluginSettingsDialog({ slug, onClose, onChanged }: { slug: string; onClose: () => void; onChanged: () => void }): ComponentChild {
  const [view, setView] = useState<PluginSettingsView | null>(null);
  const [values, setValues] = useState<Values>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [check, setCheck] = useState<CheckView | 'running' | null>(null);
  const [exporting, setExporting] = useState(false);
  const [imported, setImported] = useState<string | null>(null);
  const importInput = useRef<HTMLInputElement>(null);

  const load = (v: PluginSettingsView): void => {
    setView(v);
    setValues(initialValues(v));
  };
  useEffect(() => {
    api<PluginSettingsView>('GET', `/api/plugins/${slug}/settings`).then(load, (e: unknown) => setError(messageOf(e)));
  }, [slug]);

  const save = async (): Promise<boolean> => {
    if (!view) return false;
    setError(null);
    setSaved(null);
    const settings: Record<string, string | boolean> = {};
    const secrets: Record<string, string> = {};
    for (const f of view.fields) {
      const value = values[f.id];
      if (f.kind === 'secret') {
        if (typeof value === 'string' && value !== '') secrets[f.id] = value;
      } else settings[f.id] = value;
    }
    try {
      const next = await api<PluginSettingsView>('PUT', `/api/plugins/${slug}/settings`, { settings, secrets });
      load(next);
      setSaved(next.missing.length === 0 ? 'Saved. Ready.' : `Saved. Still needs ${next.missing.join(', ')}.`);
      onChanged();
      return true;
    } catch (e) {
      setError(messageOf(e));
      return false;
    }
  };

  /** Check what the form says: unsaved changes are saved first, since the check reads the stored settings. */
  const runCheck = async (): Promise<void> => {
    if (!(await save())) return;
    setCheck('running');
    try {
      setCheck(await api<CheckView>('POST', `/api/plugins/${slug}/check`));
    } catch (e) {
      setCheck({ ok: false, label: 'Failed', kind: 'UNKNOWN', message: messageOf(e) });
    }
  };

  const importFile = async (file: File): Promise<void> => {
    setError(null);
    setImported(null);
    try {
      const r = await api<ConfigImportView>('POST', `/api/plugins/${slug}/config/import`, { content: await file.text() });
      setImported(`Imported ${r.settings.length} setting${r.settings.length === 1 ? '' : 's'}${r.secrets.length > 0 ? ` and ${r.secrets.length} secret${r.secrets.length === 1 ? '' : 's'} (${r.secrets.join(', ')})` : ''} from ${file.name}.`);
      load(await api<PluginSettingsView>('GET', `/api/plugins/${slug}/settings`));
      onChanged();
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return h(
    Modal,
    { title: `${view?.display ?? slug} settings`, onClose, wide: true },
    view
      ? h(
          'form',
          {
            class: 'settings-form',
            onSubmit: (e: Event) => {
              e.preventDefault();
              void save();
            },
          },
          h('p', { class: 'muted' }, view.description),
          view.missing.length > 0 ? h('p', { class: 'card-state warn' }, `Not set up yet — needs ${view.missing.join(', ')}`) : h('p', { class: 'card-state ok' }, h(Icon, { name: 'check', size: 16 }), 'Set up'),
          view.fields.map((f) => h(FieldInput, { field: f, value: values[f.id] ?? '', onValue: (v) => setValues((old) => ({ ...old, [f.id]: v })) })),
          h('p', { class: 'muted small' }, `Secrets are kept in ${view.secretStore}.`),
          saved ? h('p', { class: 'outcome ok', role: 'status' }, saved) : null,
          error ? h('p', { class: 'error', role: 'alert' }, error) : null,
          check && check !== 'running'
            ? h(
                'div',
                { class: `outcome ${check.ok ? 'ok' : 'bad'}`, role: 'status', 'aria-label': 'Check result' },
                h('p', null, h('strong', null, check.label), ` — ${check.message}`),
              )
            : check === 'running'
              ? h('p', { class: 'muted', role: 'status' }, 'Checking…')
              : null,
          imported ? h('p', { class: 'outcome ok', role: 'status' }, imported) : null,
          h(
            'div',
            { class: 'modal-actions spread' },
            h(
              'div',
              { class: 'row' },
              h('button', { type: 'button', class: 'button', onClick: () => setExporting(true) }, 'Export…'),
              h('button', { type: 'button', class: 'button', onClick: () => importInput.current?.click() }, 'Import…'),
              h('input', {
                ref: importInput,
                type: 'file',
                accept: '.json,application/json',
                class: 'visually-hidden',
                tabIndex: -1,
                'aria-label': 'Settings file to import',
                onChange: (e: Event) => {
                  const target = e.currentTarget as HTMLInputElement;
                  const file = target.files?.[0];
                  target.value = '';
                  if (file) void importFile(file);
                },
              }),
            ),
            h(
              'div',
              { class: 'row' },
              h('button', { type: 'button', class: 'button', disabled: check === 'running', onClick: () => void runCheck() }, 'Check'),
              h('button', { type: 'submit', class: 'button primary' }, 'Save'),
              h('button', { type: 'button', class: 'button', onClick: onClose }, 'Close'),
            ),
          ),
        )
      : error
        ? h('p', { class: 'error', role: 'alert' }, error)
        : h('p', { role: 'status' }, 'Loading the settings…'),
    exporting && view ? h(ExportSettingsDialog, { view, onClose: () => setExporting(false) }) : null,
  );
}
