/// <reference lib="dom" />
/**
 * A destination's settings dialog, rendered from its Fields: secrets masked and never sent back
 * once stored, each saying where it lives (a warning when that is plain text). Check tests the
 * values in the form without storing them and shows the CheckResult's kind and message; only Save
 * stores, and the dialog's (and the card's) state follows what is stored. Export… and Import… do
 * what `quire plugins config --export/--import` do; exporting secrets asks first, naming them, and
 * warns as the CLI does.
 */
import { Fragment, h, type ComponentChild, type Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CheckView, ConfigExportView, ConfigImportView, FieldView, PluginSettingsView, UnsavedSettings } from '../api-types.js';
import { api, ApiFailure, messageOf, startDownload } from './api.js';
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
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', id, checked: value === true, onChange: (e: Event) => onValue((e.currentTarget as HTMLInputElement).checked) }),
          field.label,
        ),
        help ? h('p', { class: 'muted small', id: described }, help) : null,
      );
    case 'choice':
      input = h(
        'select',
        { id, value: String(value), onChange: text, 'aria-describedby': described },
        field.choices.map((c) => h('option', { value: c }, c)),
      );
      break;
    case 'int':
    case 'port':
    case 'duration':
      input = h('input', {
        id,
        type: 'number',
        step: 1,
        min: field.kind === 'int' ? undefined : 1,
        inputMode: 'numeric',
        value: String(value),
        onInput: text,
        required: field.required,
        'aria-describedby': described,
      });
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
  return h(
    'div',
    { class: 'field' },
    label,
    input,
    help || field.secret ? h('p', { class: 'muted small', id: described }, help, field.secret ? h(SecretState, { secret: field.secret }) : null) : null,
  );
}

/** Where a stored secret lives; a warning when that is plain text, or when it cannot be read. */
function SecretState({ secret }: { secret: NonNullable<FieldView['secret']> }): ComponentChild {
  const gap = ' ';
  if (secret.unreachable) return h('span', { class: 'warn-text' }, gap, `Stored, but it cannot be read now: ${secret.unreachable}.`);
  if (!secret.set) return h('span', null, gap, 'Not set.');
  if (secret.plainText) return h('span', { class: 'warn-text' }, gap, `Stored as plain text in ${secret.where ?? 'a file'}; it is never shown here.`);
  return h('span', null, gap, `Stored in ${secret.where ?? 'the OS keychain'}; it is never shown.`);
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
      h(
        'ul',
        { class: 'secret-names' },
        readable.map((f) => h('li', null, h('strong', null, f.label), ` (${f.id})`)),
      ),
      unreachable.length > 0
        ? h('p', { class: 'card-state bad' }, `Cannot be read now, so NOT in the file: ${unreachable.map((f) => f.label).join(', ')}.`)
        : null,
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
          { class: `outcome ${result.secretsWritten.length > 0 || result.secretsUnreadable.length > 0 ? 'warn' : 'ok'}`, role: 'status' },
          h('p', null, `Wrote ${result.settings} setting${result.settings === 1 ? '' : 's'} to ${result.download.fileName}; your browser saves it.`),
          result.warnings.map((w) => h('p', null, w)),
          result.secretsWritten.length > 0
            ? h(
                'p',
                null,
                `Your browser saves it with its usual permissions: make it readable by you alone (on Linux or macOS: chmod 600 ${result.download.fileName}).`,
              )
            : null,
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

/** What the plugin may reach on the network, and where a secret saved here is kept. */
function PluginFacts({ view }: { view: PluginSettingsView }): ComponentChild {
  return h(
    Fragment,
    null,
    h(
      'p',
      { class: 'muted small' },
      view.hosts === null
        ? 'Network: none (it declares no network use).'
        : view.hosts.length === 0
          ? 'Network: only the servers its settings name, through Quire; none is saved yet.'
          : `Network: only ${view.hosts.join(', ')} (named by its saved settings), through Quire.`,
    ),
    view.secretStore.plainText
      ? h('p', { class: 'notice small' }, `A secret you save here is stored as plain text in ${view.secretStore.text}.`)
      : h('p', { class: 'muted small' }, `A secret you save here is kept in ${view.secretStore.text}.`),
  );
}

/** The outcome of Check, or that it runs. */
function CheckOutcome({ check, checkedUnsaved }: { check: CheckView | 'running' | null; checkedUnsaved: boolean }): ComponentChild {
  return check && check !== 'running'
    ? h(
        'div',
        { class: `outcome ${check.ok ? 'ok' : 'bad'}`, role: 'status', 'aria-label': 'Check result' },
        h('p', null, h('strong', null, check.label), ` — ${check.message}`),
        checkedUnsaved ? h('p', { class: 'small' }, 'These are the values in the form; they are not saved until you press Save.') : null,
      )
    : check === 'running'
      ? h('p', { class: 'muted', role: 'status' }, 'Checking…')
      : null;
}

/** The hidden file picker behind Import…. */
function ImportFileInput({ inputRef, onFile }: { inputRef: Ref<HTMLInputElement>; onFile: (file: File) => void }): ComponentChild {
  return h('input', {
    ref: inputRef,
    type: 'file',
    accept: '.json,application/json',
    class: 'visually-hidden',
    tabIndex: -1,
    'aria-label': 'Settings file to import',
    onChange: (e: Event) => {
      const target = e.currentTarget as HTMLInputElement;
      const file = target.files?.[0];
      target.value = '';
      if (file) onFile(file);
    },
  });
}

export function PluginSettingsDialog({ slug, onClose, onChanged }: { slug: string; onClose: () => void; onChanged: () => void }): ComponentChild {
  const [view, setView] = useState<PluginSettingsView | null>(null);
  const [values, setValues] = useState<Values>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [check, setCheck] = useState<CheckView | 'running' | null>(null);
  const [exporting, setExporting] = useState(false);
  const [imported, setImported] = useState<string | null>(null);
  const [checkedUnsaved, setCheckedUnsaved] = useState(false);
  const importInput = useRef<HTMLInputElement>(null);

  const load = (v: PluginSettingsView): void => {
    setView(v);
    setValues(initialValues(v));
  };

  /** What the form holds: settings as typed, and the secrets typed (an empty field keeps the stored one). */
  const formValues = (): UnsavedSettings & { settings: Record<string, string | boolean>; secrets: Record<string, string> } => {
    const settings: Record<string, string | boolean> = {};
    const secrets: Record<string, string> = {};
    for (const f of view?.fields ?? []) {
      const value = values[f.id];
      if (f.kind === 'secret') {
        if (typeof value === 'string' && value !== '') secrets[f.id] = value;
      } else settings[f.id] = value;
    }
    return { settings, secrets };
  };
  /** True when the form differs from what is stored. */
  const unsaved = (): boolean => {
    if (!view) return false;
    const stored = initialValues(view);
    return view.fields.some((f) => values[f.id] !== stored[f.id]);
  };
  useEffect(() => {
    api<PluginSettingsView>('GET', `/api/plugins/${slug}/settings`).then(load, (e: unknown) => setError(messageOf(e)));
  }, [slug]);

  const save = async (): Promise<boolean> => {
    if (!view) return false;
    setError(null);
    setSaved(null);
    setCheck(null);
    try {
      const next = await api<PluginSettingsView>('PUT', `/api/plugins/${slug}/settings`, formValues());
      load(next);
      setSaved(next.missing.length === 0 ? 'Saved.' : `Saved. Still needs ${next.missing.join(', ')}.`);
      setCheckedUnsaved(false);
      onChanged();
      return true;
    } catch (e) {
      setError(messageOf(e));
      return false;
    }
  };

  /** Check the values in the form as they are, stored or not; nothing is saved (Save does that). */
  const runCheck = async (): Promise<void> => {
    setError(null);
    setSaved(null);
    setCheck('running');
    setCheckedUnsaved(unsaved());
    try {
      setCheck(await api<CheckView>('POST', `/api/plugins/${slug}/check`, formValues()));
    } catch (e) {
      // A value the form holds refused before any check ran (a URL that is not one): invalid, not missing.
      const invalid = e instanceof ApiFailure && e.status === 400;
      setCheck({ ok: false, label: invalid ? 'Invalid setting' : 'Failed', kind: invalid ? 'CONFIG' : 'UNKNOWN', message: messageOf(e) });
    }
  };

  const importFile = async (file: File): Promise<void> => {
    setError(null);
    setImported(null);
    try {
      const r = await api<ConfigImportView>('POST', `/api/plugins/${slug}/config/import`, { content: await file.text() });
      setImported(
        `Imported ${r.settings.length} setting${r.settings.length === 1 ? '' : 's'}${r.secrets.length > 0 ? ` and ${r.secrets.length} secret${r.secrets.length === 1 ? '' : 's'} (${r.secrets.join(', ')})` : ''} from ${file.name}.`,
      );
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
          view.missing.length > 0
            ? h('p', { class: 'card-state warn' }, `Not set up yet — needs ${view.missing.join(', ')}`)
            : h('p', { class: 'card-state ok' }, h(Icon, { name: 'check', size: 16 }), 'Set up'),
          view.fields.map((f) => h(FieldInput, { field: f, value: values[f.id] ?? '', onValue: (v) => setValues((old) => ({ ...old, [f.id]: v })) })),
          h(PluginFacts, { view }),
          saved ? h('p', { class: 'outcome ok', role: 'status' }, saved) : null,
          error ? h('p', { class: 'error', role: 'alert' }, error) : null,
          h(CheckOutcome, { check, checkedUnsaved }),
          imported ? h('p', { class: 'outcome ok', role: 'status' }, imported) : null,
          h(
            'div',
            { class: 'modal-actions spread' },
            h(
              'div',
              { class: 'row' },
              h('button', { type: 'button', class: 'button', onClick: () => setExporting(true) }, 'Export…'),
              h('button', { type: 'button', class: 'button', onClick: () => importInput.current?.click() }, 'Import…'),
              h(ImportFileInput, { inputRef: importInput, onFile: (file) => void importFile(file) }),
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
