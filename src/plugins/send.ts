/**
 * `--send-to`: after the exports, each named destination gets every written file whose format it
 * accepts, each from a fresh private staging directory under the name the export has, deleted
 * afterwards whether the send worked or not. And the check before any work: every named
 * destination installed, usable and set up.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CHECK_KIND_LABELS, CheckResult, SendResult, isCheckKind, normalizeBookMeta, type BookMeta } from '../plugin-api/index.js';
import { handedConfig, missingSettings, unreadableSecrets } from '../settings/index.js';
import { findDestination, outcomeReason, type UsableDestination } from './discovery.js';
import { PLUGIN_ERRORS, pluginError } from './errors.js';
import { describeHosts, networkPolicy } from './network.js';
import { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
import { pluginPaths } from './paths.js';
import { runInSandbox, type SandboxRequest, type SandboxResult } from './sandbox.js';

/** The command that sets up `descriptor`'s plugin: one `--set` per missing setting, one `--set-secret` per missing secret. */
export function setupCommand(destination: UsableDestination, missing: readonly string[]): string {
  const { configFields, secretFields, name } = destination.descriptor;
  const sets = configFields.filter((f) => missing.includes(f.label)).map((f) => `--set ${f.id}=…`);
  const secrets = secretFields.filter((f) => missing.includes(f.label)).map((f) => `--set-secret ${f.id}`);
  return [`quire plugins config ${name}`, ...sets, ...secrets].join(' ');
}

/** Split a `--send-to` value (`send-to-library+send-to-corpus`) into slugs, each once. */
export function parseSendTo(value: string): string[] {
  const slugs = value
    .split('+')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (slugs.length === 0) throw pluginError(PLUGIN_ERRORS.BAD_SETTING, '--send-to needs at least one destination, e.g. --send-to send-to-library.');
  return [...new Set(slugs)];
}

/**
 * Make sure every destination can take part before any work starts: installed, not refused, set
 * up, and accepting at least one of `formats` (the formats the run will write) when given.
 * Throws a usage error naming the destination and the command that fixes it; returns them ready.
 */
export async function checkSendTargets(slugs: readonly string[], formats?: readonly string[], options: PluginHostOptions = {}): Promise<UsableDestination[]> {
  const host = resolveHostOptions(options);
  const ready: UsableDestination[] = [];
  for (const slug of slugs) {
    const found = await findDestination(slug, host);
    if (!found) {
      throw pluginError(PLUGIN_ERRORS.NOT_READY, `The destination ${slug} is not installed; install it with: quire plugins install ${slug}`);
    }
    if (found.state === 'refused') {
      throw pluginError(
        PLUGIN_ERRORS.NOT_READY,
        `The destination ${slug} cannot be used: ${found.reason}; reinstall it with: quire plugins install ${slug}`,
        found.detail,
      );
    }
    const unreadable = unreadableSecrets(found.descriptor, host);
    if (unreadable.length > 0) {
      throw pluginError(
        PLUGIN_ERRORS.NOT_READY,
        `The destination ${slug} cannot read its ${unreadable.map((u) => u.label).join(', ')}: ${unreadable[0].reason}; open (unlock) the keychain and try again.`,
      );
    }
    const missing = missingSettings(found.descriptor, host);
    if (missing.length > 0) {
      throw pluginError(
        PLUGIN_ERRORS.NOT_READY,
        `The destination ${slug} is not set up (missing: ${missing.join(', ')}); set it up with: ${setupCommand(found, missing)}`,
      );
    }
    if (formats && !formats.some((f) => found.descriptor.accepts.includes(f))) {
      throw pluginError(
        PLUGIN_ERRORS.NOT_READY,
        `The destination ${slug} takes ${found.descriptor.accepts.join(', ')}, and this run writes only ${formats.join(', ')}; add one of its formats to --export.`,
      );
    }
    ready.push(found);
  }
  return ready;
}

/** One file given to one destination, and how it went. */
export interface SendOutcome {
  slug: string;
  /** The destination's menu label. */
  display: string;
  format: string;
  /** The file's name as the destination received it. */
  fileName: string;
  result: SendResult;
}

/** What the sandbox stopped, as the one sentence of a `PERMISSION` result; `undefined` when nothing. */
function refusalOf(outcome: SandboxResult): { message: string; detail: string } | undefined {
  if (outcome.refused.length === 0) return undefined;
  const thrown = outcome.type === 'failed' ? `; ${outcome.detail}` : '';
  return { message: `${outcome.refused[0]}, and was stopped.`, detail: `${outcome.refused.join('; ')}${thrown}` };
}

/** A SendResult from whatever the child answered; a plugin's own faults become failed sends. */
function sendResultOf(outcome: SandboxResult, display: string): SendResult {
  // Something refused counts whatever the plugin then said: it may have caught the error and answered "sent".
  const refused = refusalOf(outcome);
  if (refused) return SendResult.failed('PERMISSION', `${refused.message.slice(0, -1)}, so the file was not sent.`, refused.detail);
  if (outcome.type === 'sent') {
    const r = outcome.result as Partial<SendResult> | null;
    if (r && typeof r.ok === 'boolean' && typeof r.message === 'string') {
      const detail = typeof r.detail === 'string' ? r.detail : '';
      if (r.ok) return r.alreadyThere === true ? SendResult.alreadyThere(r.message, detail) : SendResult.sent(r.message, detail);
      return SendResult.failed(isCheckKind(r.kind) ? r.kind : 'UNKNOWN', r.message, detail);
    }
    return SendResult.failed('UNKNOWN', `${display} answered something Quire does not understand.`, JSON.stringify(r).slice(0, 500));
  }
  if (outcome.type === 'failed' && outcome.sandbox) {
    return SendResult.failed(
      'PERMISSION',
      `${display} tried to reach something outside its sandbox and was stopped, so the file was not sent.`,
      outcome.detail,
    );
  }
  const { reason, detail } = outcomeReason(outcome);
  return SendResult.failed('UNKNOWN', `${display} failed: ${reason}.`, detail);
}

/** Same for a check. */
function checkResultOf(outcome: SandboxResult, display: string): CheckResult {
  const refused = refusalOf(outcome);
  if (refused) return CheckResult.failed('PERMISSION', refused.message, refused.detail);
  if (outcome.type === 'checked') {
    const r = outcome.result as Partial<CheckResult> | null;
    if (r && typeof r.ok === 'boolean' && typeof r.message === 'string') {
      const detail = typeof r.detail === 'string' ? r.detail : '';
      return r.ok ? CheckResult.passed(r.message, detail) : CheckResult.failed(isCheckKind(r.kind) ? r.kind : 'UNKNOWN', r.message, detail);
    }
    return CheckResult.failed('UNKNOWN', `${display} answered something Quire does not understand.`, JSON.stringify(r).slice(0, 500));
  }
  if (outcome.type === 'failed' && outcome.sandbox) {
    return CheckResult.failed('PERMISSION', `${display} tried to reach something outside its sandbox and was stopped.`, outcome.detail);
  }
  const { reason, detail } = outcomeReason(outcome);
  return CheckResult.failed('UNKNOWN', `${display} failed: ${reason}.`, detail);
}

/** Values typed into a settings form and not saved: a check tests them without storing anything. */
export interface UnsavedValues {
  settings?: Readonly<Record<string, string | number | boolean>>;
  /** Non-empty ones replace the stored secrets for this check only. */
  secrets?: Readonly<Record<string, string>>;
}

/**
 * What `destination` may reach through the host with its stored settings: `null` when its
 * manifest declares no network use, else the hosts its settings name (`[]`: none yet).
 */
export function reachableHosts(destination: UsableDestination, options: PluginHostOptions = {}): string[] | null {
  if (!destination.manifest.capabilities.network) return null;
  const config = handedConfig(destination.descriptor, resolveHostOptions(options));
  return describeHosts(networkPolicy(true, destination.descriptor.configFields, config.settings));
}

/** What a run of `destination` in the sandbox gets: its config, its isolation, and the hosts its settings name. */
function runFor(destination: UsableDestination, host: ResolvedHostOptions, form: UnsavedValues = {}): Omit<SandboxRequest, 'op' | 'timeoutMs'> {
  const config = handedConfig(destination.descriptor, host, form);
  return {
    plugin: destination.plugin,
    filesDir: pluginPaths(destination.slug, host.appData).filesDir,
    isolation: destination.isolation,
    network: networkPolicy(destination.manifest.capabilities.network, destination.descriptor.configFields, config.settings),
    display: destination.descriptor.display,
    settings: config.settings,
    secrets: config.secrets,
    secretStore: config.store,
    onLog: (line) => host.onLog(destination.slug, line),
  };
}

/**
 * Run a destination's check in the sandbox with its stored settings and secrets, or with `form`'s
 * values over them (never stored: a check does not save).
 */
export async function checkDestination(destination: UsableDestination, options: PluginHostOptions = {}, form: UnsavedValues = {}): Promise<CheckResult> {
  const host = resolveHostOptions(options);
  const unreadable = unreadableSecrets(destination.descriptor, host).filter((u) => !form.secrets?.[u.id]?.trim());
  if (unreadable.length > 0) {
    return CheckResult.failed(
      'CONFIG',
      `${destination.descriptor.display} cannot read its ${unreadable.map((u) => u.label).join(', ')}: ${unreadable[0].reason}.`,
      unreadable.map((u) => `${u.id}: ${u.reason}`).join('; '),
    );
  }
  const outcome = await runInSandbox({ op: 'check', timeoutMs: host.timeouts.check, ...runFor(destination, host, form) });
  const result = checkResultOf(outcome, destination.descriptor.display);
  host.onLog(
    destination.slug,
    `check: ${result.ok ? 'OK' : CHECK_KIND_LABELS[result.kind ?? 'UNKNOWN']} — ${result.message}${result.detail ? ` [${result.detail}]` : ''}`,
  );
  return result;
}

/** Send one file from a private staging copy, removed afterwards whatever happens. */
async function sendOne(
  destination: UsableDestination,
  file: { format: string; path: string },
  meta: BookMeta,
  host: ResolvedHostOptions,
): Promise<SendOutcome> {
  const fileName = basename(file.path);
  const staging = mkdtempSync(join(tmpdir(), 'quire-send-'));
  try {
    const staged = join(staging, fileName);
    copyFileSync(file.path, staged);
    const outcome = await runInSandbox({ op: 'send', file: staged, meta, timeoutMs: host.timeouts.send, ...runFor(destination, host) });
    const sent: SendOutcome = {
      slug: destination.slug,
      display: destination.descriptor.display,
      format: file.format,
      fileName,
      result: sendResultOf(outcome, destination.descriptor.display),
    };
    host.onLog(
      destination.slug,
      `send ${fileName}: ${describeState(sent.result)} — ${sent.result.message}${sent.result.detail ? ` [${sent.result.detail}]` : ''}`,
    );
    return sent;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Hand each destination every file whose format it accepts, one at a time, in the order given.
 * Checks the destinations first (see {@link checkSendTargets}); a failed send does not stop the
 * others. Resolves with one outcome per file sent; `onOutcome` hears each as it happens.
 */
export async function sendExports(
  files: ReadonlyArray<{ format: string; path: string }>,
  slugs: readonly string[],
  meta: BookMeta,
  options: PluginHostOptions & { onOutcome?: (outcome: SendOutcome) => void } = {},
): Promise<SendOutcome[]> {
  const host = resolveHostOptions(options);
  const book = normalizeBookMeta(meta);
  const destinations = await checkSendTargets(
    slugs,
    files.map((f) => f.format),
    host,
  );
  const outcomes: SendOutcome[] = [];
  for (const destination of destinations) {
    for (const file of files.filter((f) => destination.descriptor.accepts.includes(f.format))) {
      const outcome = await sendOne(destination, file, book, host);
      options.onOutcome?.(outcome);
      outcomes.push(outcome);
    }
  }
  return outcomes;
}

function describeState(result: SendResult): string {
  return result.ok ? (result.alreadyThere ? 'already there' : 'sent') : 'FAILED';
}

/** One line for a person: `send-to-library [My Book.pdf] sent: "My Book" was added to the calibre library.` */
export function describeSendOutcome(outcome: SendOutcome): string {
  return `${outcome.slug} [${outcome.fileName}] ${describeState(outcome.result)}: ${outcome.result.message}`;
}
