import { readHidden } from '../prompt.js';
import { printable, printableJson } from '../print.js';
import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import {
  checkDestination,
  defaultRegistry,
  describeIsolation,
  discoverDestinations,
  exportSettings,
  exportWarnings,
  findDestination,
  importSettings,
  findPagePlugin,
  installPlugin,
  installRecord,
  recordAcceptance,
  pluginIsolation,
  reachableHosts,
  readRegistry,
  removePlugin,
  resolveHostOptions,
  CHECK_KIND_LABELS,
  type PluginHostOptions,
  type ResolvedHostOptions,
  type UsableDestination,
} from '../../plugins/index.js';
import { applySettings, missingSettings, secretsOf, unreadableSecrets, viewSettings } from '../../settings/index.js';
import { ERROR_CODES, QuireError } from '../../errors.js';

/** What the plugin commands read and write; tests pass their own. */
export interface PluginsCliDeps {
  host?: PluginHostOptions;
  out?: (text: string) => void;
  /** Reads one secret value for `--set-secret`; default: standard input, without echo on a terminal. */
  readSecret?: (prompt: string) => Promise<string>;
}

interface Io {
  host: ResolvedHostOptions;
  out: (text: string) => void;
  readSecret: (prompt: string) => Promise<string>;
}

/**
 * Every command line command uses the plaintext secret store (`<APP_DATA>/.env`). With
 * `QUIRE_DEBUG`, the host prints what plugins log and the detail of each check and send.
 */
function io(deps: PluginsCliDeps): Io {
  return {
    host: resolveHostOptions({ ...deps.host, plaintextSecrets: true }),
    // Names, reasons and settings come from plugins and their users: printed with their control characters escaped.
    out: deps.out ?? ((text) => void process.stdout.write(text.split('\n').map(printable).join('\n'))),
    readSecret: deps.readSecret ?? readSecretFromStdin(),
  };
}

/**
 * Secrets from standard input: on a terminal, one prompt per secret with echo off; from a pipe,
 * one value per line, in the order the `--set-secret` options were given.
 */
function readSecretFromStdin(): (prompt: string) => Promise<string> {
  let piped: string[] | undefined;
  return async (prompt) => {
    const stdin = process.stdin;
    if (stdin.isTTY) return readHidden(prompt);
    if (!piped) {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(chunk as Buffer);
      piped = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
    }
    return piped.shift() ?? '';
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePair(text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new QuireError(ERROR_CODES.USAGE, `--set takes key=value (e.g. --set base_url=http://localhost:8080), not "${text}".`);
  return [text.slice(0, eq).trim(), text.slice(eq + 1)];
}

/** The installed, usable destination `slug`, or a usage error saying what to do. */
async function usable(slug: string, host: ResolvedHostOptions): Promise<UsableDestination> {
  const found = await findDestination(slug, host);
  if (!found) throw new QuireError(ERROR_CODES.USAGE, `The destination ${slug} is not installed; install it with: quire plugins install ${slug}`);
  if (found.state === 'refused') throw new QuireError(ERROR_CODES.USAGE, `The destination ${slug} cannot be used: ${found.reason}.`, found.detail);
  return found;
}

/** Where a secret store is, in the user's words. */
function storeName(store: string | undefined, host: ResolvedHostOptions): string {
  if (store === 'env-file') return `${host.appData}/.env`;
  if (store === 'keychain') return 'the OS keychain';
  return "the plugin's config file";
}

/** What a destination may reach, in the user's words. */
function networkLine(hosts: string[] | null): string {
  if (hosts === null) return 'Network: none (its manifest declares no network use).';
  if (hosts.length === 0) return 'Network: only the servers its settings name, through Quire; none is set yet.';
  return `Network: only ${hosts.join(', ')}, named by its settings, through Quire.`;
}

function secretStoreLine(host: ResolvedHostOptions): string {
  const keychain = secretsOf('probe', host).keychainAvailable
    ? 'the OS keychain is available'
    : "no OS keychain was found, so secrets set elsewhere fall back to each plugin's own config file";
  return `Secrets set from the command line go to ${host.appData}/.env (mode 0600); ${keychain}.\n`;
}

/** `quire list destinations`: each destination, what it accepts, and ready or what is missing. */
export async function listDestinations(deps: PluginsCliDeps = {}, options: { json?: boolean } = {}): Promise<void> {
  const { host, out } = io(deps);
  const found = await discoverDestinations(host);
  if (options.json) {
    const list = found.map((d) => {
      if (d.state === 'refused') return { slug: d.slug, state: 'refused', reason: d.reason };
      const missing = missingSettings(d.descriptor, host);
      return { slug: d.slug, display: d.descriptor.display, accepts: d.descriptor.accepts, state: missing.length === 0 ? 'ready' : 'missing', missing };
    });
    process.stdout.write(printableJson(list) + '\n');
    return;
  }
  if (found.length === 0) {
    out('No destination is installed; see quire plugins available.\n');
    return;
  }
  for (const d of found) {
    if (d.state === 'refused') {
      out(`${d.slug.padEnd(18)} refused: ${d.reason}\n`);
      continue;
    }
    const unreadable = unreadableSecrets(d.descriptor, host);
    const missing = missingSettings(d.descriptor, host);
    const state =
      unreadable.length > 0
        ? `cannot read ${unreadable.map((u) => u.label).join(', ')}: ${unreadable[0].reason}`
        : missing.length === 0
          ? 'ready'
          : `missing: ${missing.join(', ')}`;
    out(`${d.slug.padEnd(18)} ${d.descriptor.display} — accepts ${d.descriptor.accepts.join(', ')} — ${state}\n`);
  }
  const isolation = await pluginIsolation(host);
  if (isolation.level === 'partial') out(`${describeIsolation(isolation)}\n`);
}

function formatValue(value: unknown): string {
  if (value === '') return '(empty)';
  return typeof value === 'string' && value.includes('\n') ? JSON.stringify(value) : String(value);
}

async function configAction(slug: string, flags: ConfigFlags, deps: PluginsCliDeps): Promise<void> {
  const { host, out, readSecret } = io(deps);
  if (flags.withSecrets && !flags.export) throw new QuireError(ERROR_CODES.USAGE, '--with-secrets goes with --export.');
  if (flags.export && flags.import) throw new QuireError(ERROR_CODES.USAGE, 'Give --export or --import, not both.');
  const destination = await usable(slug, host);
  const { descriptor } = destination;
  if (flags.import) {
    const report = importSettings(descriptor, flags.import, host);
    out(
      `Imported ${report.settings.length} setting${report.settings.length === 1 ? '' : 's'}${report.secrets.length > 0 ? ` and ${report.secrets.length} secret${report.secrets.length === 1 ? '' : 's'} (${report.secrets.join(', ')}, into ${storeName(report.secretStore, host)})` : ''} for ${slug}.\n`,
    );
  }
  if (flags.set.length > 0) {
    applySettings(descriptor, flags.set.map(parsePair), host);
    out(`Saved ${flags.set.length} setting${flags.set.length === 1 ? '' : 's'} for ${slug}.\n`);
  }
  for (const key of flags.setSecret) {
    const field = descriptor.secretFields.find((f) => f.id === key);
    if (!field)
      throw new QuireError(ERROR_CODES.USAGE, `${slug} has no secret "${key}"; it has: ${descriptor.secretFields.map((f) => f.id).join(', ') || 'none'}.`);
    const value = await readSecret(`${field.label}${field.help ? ` (${field.help})` : ''}: `);
    if (value === '') throw new QuireError(ERROR_CODES.USAGE, `No value was given for ${key}; nothing was stored.`);
    const store = secretsOf(slug, host).set(key, value);
    out(`Stored ${key} for ${slug} in ${storeName(store, host)}.\n`);
  }
  if (flags.export) {
    const report = exportSettings(descriptor, flags.export, flags.withSecrets === true, host);
    out(`Wrote ${report.settings} setting${report.settings === 1 ? '' : 's'} of ${slug} to ${report.path} (mode 0600).\n`);
    if (flags.withSecrets) for (const line of exportWarnings(report)) out(`${line}\n`);
  }
  const changed = flags.import || flags.set.length > 0 || flags.setSecret.length > 0 || flags.export;
  if (!changed) {
    out(`${slug} — ${descriptor.display}: ${descriptor.description}\n`);
    for (const v of viewSettings(descriptor, host)) {
      const what = v.secret
        ? v.secret.set
          ? `set (in ${storeName(v.secret.store, host)})`
          : v.secret.unreachable
            ? `unreadable: ${v.secret.unreachable}`
            : 'not set'
        : v.invalid
          ? `${formatValue(v.invalid.text)} (not used: ${v.invalid.expected})`
          : `${formatValue(v.value)}${v.isDefault ? ' (default)' : ''}`;
      out(`  ${v.id.padEnd(16)} ${what}   ${v.label}${v.required ? ' [required]' : ''}\n`);
    }
    const missing = missingSettings(descriptor, host);
    out(missing.length === 0 ? 'Ready.\n' : `Not set up yet; missing: ${missing.join(', ')}.\n`);
    out(`${networkLine(reachableHosts(destination, host))}\n`);
    out(secretStoreLine(host));
  }
}

interface ConfigFlags {
  set: string[];
  setSecret: string[];
  export?: string;
  import?: string;
  withSecrets?: boolean;
}

/** `ready`, or what the destination needs first (an empty required setting, a saved value that does not fit). */
function readiness(d: UsableDestination, host: ResolvedHostOptions): string {
  const missing = missingSettings(d.descriptor, host);
  return missing.length === 0 ? 'ready' : `needs ${missing.join(', ')}`;
}

/** `quire plugins list`: the installed destinations, ready or refused (and why), or as JSON. */
async function listAction(flags: { json?: boolean }, deps: PluginsCliDeps): Promise<void> {
  const { host, out } = io(deps);
  const found = await discoverDestinations(host);
  if (flags.json) {
    const list = found.map((d) => ({
      slug: d.slug,
      version: d.manifest?.version ?? null,
      display: d.state === 'usable' ? d.descriptor.display : null,
      accepts: d.state === 'usable' ? d.descriptor.accepts : [],
      first_party: installRecord(d.slug, host.appData)?.first_party === true,
      state: d.state,
      reason: d.state === 'refused' ? d.reason : null,
    }));
    out(printableJson(list) + '\n');
    return;
  }
  out(`${describeIsolation(await pluginIsolation(host))}\n`);
  if (found.length === 0) out('No destination is installed; see quire plugins available.\n');
  for (const d of found) {
    const record = installRecord(d.slug, host.appData);
    const origin = record?.first_party ? ' (first-party)' : '';
    if (d.state === 'usable') out(`${d.slug.padEnd(18)} ${d.manifest.version.padEnd(8)} ${d.descriptor.display}${origin} — ${readiness(d, host)}\n`);
    else out(`${d.slug.padEnd(18)} refused: ${d.reason}\n`);
  }
}

/** `quire plugins available`: what a registry offers, of each kind, and which are installed here. */
async function availableAction(flags: { registry?: string; json?: boolean }, deps: PluginsCliDeps): Promise<void> {
  const { host, out } = io(deps);
  const location = flags.registry ?? process.env.QUIRE_REGISTRY ?? defaultRegistry();
  const index = await readRegistry(location);
  const folders = { destination: 'destinations', processor: 'processors', ocr: 'ocr' } as const;
  const offered = [
    ...index.destinations.map((e) => ({ ...e, kind: 'destination' as const })),
    ...index.processors.map((e) => ({ ...e, kind: 'processor' as const })),
    ...index.ocr.map((e) => ({ ...e, kind: 'ocr' as const })),
  ];
  const isInstalled = (e: (typeof offered)[number]): boolean => existsSync(`${host.appData}/plugins/${folders[e.kind]}/${e.slug}`);
  if (flags.json) {
    const list = offered.map((e) => ({
      slug: e.slug,
      kind: e.kind,
      version: e.version,
      first_party: e.first_party === true,
      description: e.description,
      installed: isInstalled(e),
    }));
    out(printableJson(list) + '\n');
    return;
  }
  if (offered.length === 0) out(`The registry at ${location} offers no plugin.\n`);
  for (const entry of offered) {
    const installed = isInstalled(entry) ? ' [installed]' : '';
    const kind = entry.kind === 'destination' ? '' : entry.kind === 'ocr' ? '(OCR engine) ' : '(pipeline step) ';
    out(
      `${entry.slug.padEnd(18)} ${entry.version.padEnd(8)} ${entry.first_party ? 'first-party  ' : 'third-party  '}${kind}${entry.description}${installed}\n`,
    );
  }
  out(secretStoreLine(host));
}

/** `quire plugins …`: list, available, install, remove, check, config. */
export function pluginsCommand(deps: PluginsCliDeps = {}): Command {
  const plugins = new Command('plugins').description('install, configure and remove destination plugins');

  plugins
    .command('list')
    .description('list installed destinations, and why any is refused')
    .option('--json', 'print a JSON array, one object per installed destination (slug, version, display, accepts, first_party, state, reason)')
    .action((flags: { json?: boolean }) => listAction(flags, deps));

  plugins
    .command('available')
    .description('list the plugins a registry offers: destinations, pipeline steps, OCR engines')
    .option('--registry <dir|url>', 'registry folder or URL (default: the one shipped with Quire, or QUIRE_REGISTRY)')
    .option('--json', 'print a JSON array, one object per plugin offered (slug, kind, version, first_party, description, installed)')
    .action((flags: { registry?: string; json?: boolean }) => availableAction(flags, deps));

  plugins
    .command('install')
    .description('install a destination, a pipeline step or an OCR engine from the registry (by slug) or from a plugin folder (by path)')
    .argument('<slug-or-folder>', 'a registry slug, or a folder named by its slug holding quire-plugin.toml')
    .option('--registry <dir|url>', 'registry folder or URL')
    .option('--allow-unisolated', 'where plugins cannot be isolated (no bubblewrap), install and run this plugin anyway')
    .action(async (what: string, flags: { registry?: string; allowUnisolated?: boolean }) => {
      const { host: base, out } = io(deps);
      const host = { ...base, allowUnisolated: flags.allowUnisolated === true };
      const isolation = await pluginIsolation(host);
      if (isolation.level === 'partial') out(`${describeIsolation(isolation)}\n`);
      const isFolder = /[\\/]/.test(what) && existsSync(what) && statSync(what).isDirectory();
      const result = await installPlugin(what, { ...host, fromFolder: isFolder, registry: flags.registry ?? process.env.QUIRE_REGISTRY ?? defaultRegistry() });
      if (result.kind !== 'destination') {
        const { entry } = result;
        const what =
          result.kind === 'ocr'
            ? `an OCR engine (--ocr ${entry.slug})`
            : `a pipeline step after ${entry.descriptor?.after ?? 'binarize'} (--steps +${entry.slug})`;
        out(`Installed ${entry.slug} ${entry.manifest?.version ?? ''} (${entry.descriptor?.display ?? entry.slug}; ${what}).\n`);
        out(
          `Accepted as installed: sha256 ${result.sha256}; if its files change, it is not run until you accept it again (quire plugins accept ${entry.slug}).\n`,
        );
        if (isolation.level === 'partial' && flags.allowUnisolated) out(`${entry.slug} will run without isolation, as --allow-unisolated asked.\n`);
        return;
      }
      const installed = result.destination;
      const missing = missingSettings(installed.descriptor, host);
      out(`Installed ${installed.slug} ${installed.manifest.version} (${installed.descriptor.display}; accepts ${installed.descriptor.accepts.join(', ')}).\n`);
      if (isolation.level === 'partial' && flags.allowUnisolated) out(`${installed.slug} will run without isolation, as --allow-unisolated asked.\n`);
      if (missing.length > 0)
        out(`Set it up next: quire plugins config ${installed.slug} --set key=value … --set-secret key (missing: ${missing.join(', ')}).\n`);
    });

  plugins
    .command('accept')
    .description('accept a processor or OCR engine plugin as its files are now (their sha256 is recorded; a later change must be accepted again)')
    .argument('<slug>')
    .action(async (slug: string) => {
      const { host, out } = io(deps);
      const entry = (await findPagePlugin('processor', slug, host)) ?? (await findPagePlugin('ocr', slug, host));
      if (!entry)
        throw new QuireError(ERROR_CODES.USAGE, `No processor or OCR engine plugin called ${slug} is installed; see quire list pipelines and quire list ocr.`);
      if (entry.state === 'refused')
        throw new QuireError(ERROR_CODES.USAGE, `The plugin ${slug} cannot be used: ${entry.reason ?? 'it is refused'}.`, entry.detail);
      const sha256 = recordAcceptance(slug, entry.dir, host.appData);
      out(`Accepted ${slug} as it is now (sha256 ${sha256}); it runs in its sandbox from now on.\n`);
    });

  plugins
    .command('remove')
    .description('remove a plugin: its code, its settings and files, and its secrets')
    .argument('<slug>')
    .action(async (slug: string) => {
      const { host, out } = io(deps);
      await removePlugin(slug, host);
      out(`Removed ${slug}, its settings and its secrets.\n`);
    });

  plugins
    .command('check')
    .description("prove a destination's settings work, without sending a document")
    .argument('<slug>')
    .action(async (slug: string) => {
      const { host, out } = io(deps);
      const result = await checkDestination(await usable(slug, host), host);
      if (result.ok) {
        out(`${slug}: OK — ${result.message}\n`);
        return;
      }
      throw new QuireError(ERROR_CODES.OUTPUT, `${slug}: ${CHECK_KIND_LABELS[result.kind ?? 'UNKNOWN']} — ${result.message}`, result.detail);
    });

  plugins
    .command('config')
    .description("show or change a destination's settings; move them between machines")
    .argument('<slug>')
    .option('--set <key=value>', 'store a setting (repeatable; an empty value restores the default)', collect, [])
    .option('--set-secret <key>', 'store a secret read from standard input, not echoed (repeatable)', collect, [])
    .option('--export <file.json>', 'write the settings to a file (mode 0600)')
    .option('--with-secrets', 'with --export: include the secrets, as readable text')
    .option('--import <file.json>', 'read settings (and any secrets) from a file written by --export')
    .action((slug: string, flags: ConfigFlags) => configAction(slug, flags, deps));

  // Usage errors of the subcommands reach the caller as CommanderError, as the top-level ones do.
  for (const sub of plugins.commands) sub.exitOverride();
  return plugins;
}
