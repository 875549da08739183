/**
 * Shared by the first-party destination tests: install a destination from the repository's
 * registry into a fresh `<APP_DATA>` (the path a third-party plugin takes), configure it as the
 * CLI would, and send or check through the host, so every call runs in the sandbox.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import {
  checkDestination,
  installFromRegistry,
  sendExports,
  type BookMeta,
  type CheckResult,
  type PluginHostOptions,
  type SendResult,
} from '../../src/plugins/index.js';
import { applySettings, PluginSecrets } from '../../src/settings/index.js';

type Installed = Awaited<ReturnType<typeof installFromRegistry>>;

/** One installed first-party destination in its own `<APP_DATA>`. */
export interface Installation {
  slug: string;
  appData: string;
  host: PluginHostOptions;
  destination: Installed;
  /** Where the test writes its "exports". */
  out: string;
  remove(): void;
}

/** A fresh folder in /tmp. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Install `slug` from this repository's `registry/` (checksums verified) into a fresh app data folder. */
export async function install(slug: string): Promise<Installation> {
  const appData = tempDir('quire-registry-');
  const host: PluginHostOptions = { appData, keychain: null, plaintextSecrets: true };
  const destination = await installFromRegistry(slug, host);
  const out = join(appData, 'exports');
  mkdirSync(out);
  return { slug, appData, host, destination, out, remove: () => rmSync(appData, { recursive: true, force: true }) };
}

/**
 * Replace the destination's settings and secrets with exactly these, as
 * `quire plugins config <slug> --set k=v --set-secret k` would store them (settings not named
 * fall back to their defaults; secrets not named are removed).
 */
export function configure(inst: Installation, settings: Record<string, string>, secrets: Record<string, string> = {}): void {
  const { descriptor } = inst.destination;
  const pairs = descriptor.configFields.map((f) => [f.id, settings[f.id] ?? ''] as const);
  for (const key of Object.keys(settings)) if (!descriptor.configFields.some((f) => f.id === key)) throw new Error(`${inst.slug} has no setting ${key}`);
  applySettings(descriptor, pairs, inst.host);
  const store = new PluginSecrets(inst.slug, { appData: inst.appData, plaintext: true, keychain: null });
  for (const f of descriptor.secretFields) {
    const value = secrets[f.id];
    if (value === undefined) store.delete(f.id);
    else store.set(f.id, value);
  }
}

/** Write an "export" file and return it as `sendExports` takes it. */
export function exportFile(inst: Installation, name: string, bytes: Uint8Array | string, format = name.slice(name.lastIndexOf('.') + 1)): { format: string; path: string } {
  const path = join(inst.out, name);
  writeFileSync(path, bytes);
  return { format, path };
}

/** Send one file through the host (`--send-to`) and return how it went. */
export async function sendOne(inst: Installation, file: { format: string; path: string }, meta: BookMeta): Promise<SendResult> {
  const outcomes = await sendExports([file], [inst.slug], meta, inst.host);
  if (outcomes.length !== 1) throw new Error(`expected one send, got ${outcomes.length}`);
  return outcomes[0].result;
}

/** Run the destination's check through the host. */
export function check(inst: Installation): Promise<CheckResult> {
  return checkDestination(inst.destination, inst.host);
}

/**
 * Wait for peers started side by side. Unlike `Promise.all`, it waits for every one to settle
 * before failing, so a peer that did start has been handed to the test (whose `afterAll` stops
 * it) and no server is left running.
 */
export async function startedTogether(starts: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const failed = (await Promise.allSettled(starts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A port nobody listens on right now (for a server the test starts, or one that is down). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A one-page PDF with `text` on it and no title in its metadata (so calibre names the book from the file name). */
export async function onePagePdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 400]);
  page.drawText(text, { x: 40, y: 300, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

/**
 * A real peer the tests need (calibre-server). On CI (`CI=true`) its absence is a failure; on
 * a developer's machine the tests are skipped with a message saying what to install.
 */
export function peerMissing(name: string, found: boolean, install: string): boolean {
  if (found) return false;
  if (process.env.CI === 'true') return false; // run, and let the harness fail loudly
  console.warn(`skipping the ${name} tests: ${name} is not installed (${install})`);
  return true;
}

/** What a user-facing message must never carry: a status code or the server's own words. */
export function expectPlainMessage(result: { message: string }, ...serverWords: string[]): void {
  if (/\bHTTP\b/.test(result.message)) throw new Error(`message carries a status: ${result.message}`);
  for (const w of serverWords) if (result.message.includes(w)) throw new Error(`message carries "${w}": ${result.message}`);
}
