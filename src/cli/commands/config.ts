import { readHidden } from '../prompt.js';
import { Command } from 'commander';
import { ERROR_CODES, QuireError } from '../../errors.js';
import { API_KEY_ENV, REMOTE_OCR_DESCRIPTOR, REMOTE_OCR_SETTINGS, REMOTE_OCR_SLUG, setRemoteOcrKey, setRemoteOcrSetting } from '../../convert/index.js';
import { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from '../../plugins/index.js';
import { secretsOf, viewSettings } from '../../settings/index.js';

/** What `quire config` reads and writes; tests pass their own. */
export interface ConfigCliDeps {
  host?: PluginHostOptions;
  out?: (text: string) => void;
  /** Reads the secret for `set-secret`; default: a prompt without echo on a terminal, else one line of standard input. */
  readSecret?: (prompt: string) => Promise<string>;
  env?: NodeJS.ProcessEnv;
}

const SECRET = `${REMOTE_OCR_SLUG}.api_key`;

/**
 * `quire config`: Quire's own settings, `remoteocr.*` for now. Ordinary settings live in the `remoteocr` settings
 * file, the API key in the plugins' secret store (`<APP_DATA>/.env`, mode 0600, from the command line — the web
 * app's settings page and the OS keychain share the same namespace).
 */
export function configCommand(deps: ConfigCliDeps = {}): Command {
  // Every command line command writes secrets to the plaintext store, as `quire plugins config` does.
  const host = (): ResolvedHostOptions => resolveHostOptions({ ...deps.host, plaintextSecrets: true });
  const out = deps.out ?? ((text: string) => void process.stdout.write(text));
  const env = deps.env ?? process.env;
  const cmd = new Command('config').description('show and change Quire settings: remoteocr.base_url, remoteocr.model, the remoteocr.api_key secret');
  cmd
    .command('show')
    .description('show the settings and whether the remote OCR key is set (never its value)')
    .action(() => out(showSettings(host(), env)));
  cmd
    .command('set')
    .description(`set a setting (${REMOTE_OCR_SETTINGS.map((k) => `${REMOTE_OCR_SLUG}.${k}`).join(', ')}); an empty value restores the default`)
    .argument('<key>')
    .argument('<value>')
    .action((key: string, value: string) => {
      const id = settingId(key);
      setRemoteOcrSetting(id, value, host());
      out(value.trim() === '' ? `${key} is back to its default.\n` : `${key} set.\n`);
    });
  cmd
    .command('set-secret')
    .description(`store a secret (${SECRET}), typed at a prompt without echo, or read from standard input`)
    .argument('<key>')
    .action(async (key: string) => {
      secretId(key);
      const value = (await (deps.readSecret ?? readSecretFromStdin)(`${key}: `)).trim();
      if (value === '') throw new QuireError(ERROR_CODES.USAGE, `No value was given for ${key}; nothing was stored.`);
      const h = host();
      const store = setRemoteOcrKey(value, h);
      const where = store === 'env-file' ? `${h.appData}/.env (mode 0600)` : store === 'keychain' ? 'the OS keychain' : 'the settings file';
      const shadowed = env[API_KEY_ENV] ? ` ${API_KEY_ENV} is set in this environment and wins over it.` : '';
      out(`${key} stored in ${where}.${shadowed}\n`);
    });
  cmd
    .command('unset-secret')
    .description(`remove a secret (${SECRET}) from every store`)
    .argument('<key>')
    .action((key: string) => {
      secretId(key);
      secretsOf(REMOTE_OCR_SLUG, host()).delete('api_key');
      out(`${key} removed.\n`);
    });
  // Usage errors come back to `main` as exceptions instead of ending the process.
  for (const sub of cmd.commands) sub.exitOverride();
  return cmd;
}

function settingId(key: string): string {
  const [slug, id] = splitKey(key);
  if (slug !== REMOTE_OCR_SLUG || !REMOTE_OCR_SETTINGS.includes(id)) {
    const hint = key === SECRET ? ` ${SECRET} is a secret: set it with quire config set-secret ${SECRET}.` : '';
    throw new QuireError(
      ERROR_CODES.USAGE,
      `There is no setting "${key}"; the settings are ${REMOTE_OCR_SETTINGS.map((k) => `${REMOTE_OCR_SLUG}.${k}`).join(', ')}.${hint}`,
    );
  }
  return id;
}

function secretId(key: string): void {
  if (key !== SECRET) throw new QuireError(ERROR_CODES.USAGE, `There is no secret "${key}"; the one secret is ${SECRET}.`);
}

function splitKey(key: string): [string, string] {
  const dot = key.indexOf('.');
  return dot < 0 ? [key, ''] : [key.slice(0, dot), key.slice(dot + 1)];
}

function showSettings(host: ResolvedHostOptions, env: NodeJS.ProcessEnv): string {
  const lines: string[] = [];
  const views = viewSettings(REMOTE_OCR_DESCRIPTOR, host);
  // One column for the values, however long the longest name.
  const width = Math.max(...views.map((v) => `${REMOTE_OCR_SLUG}.${v.id}`.length));
  for (const v of views) {
    const key = `${REMOTE_OCR_SLUG}.${v.id}`.padEnd(width);
    if (v.secret) {
      const where =
        v.secret.store === 'env-file' ? `${host.appData}/.env` : v.secret.store === 'keychain' ? 'the OS keychain' : v.secret.store ? 'the settings file' : '';
      const state = v.secret.set ? `set (in ${where})` : v.secret.unreachable ? `not readable: ${v.secret.unreachable}` : 'not set';
      lines.push(`${key} ${env[API_KEY_ENV] ? `set by ${API_KEY_ENV} (wins)` : state}`);
    } else {
      const invalid = v.invalid ? ` — the saved ${JSON.stringify(v.invalid.text)} is not used: ${v.invalid.expected}` : '';
      lines.push(`${key} ${String(v.value)}${v.isDefault ? ' (default)' : ''}${invalid}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One line of standard input: typed at a prompt without echo on a terminal, else the first line piped in. */
async function readSecretFromStdin(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  }
  return readHidden(prompt);
}
