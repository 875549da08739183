import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { listDestinations } from '../../src/cli/commands/plugins.js';
import { checkDestination, checkSendTargets, describeSendOutcome, findDestination, parseSendTo, sendExports } from '../../src/plugins/index.js';
import { applySettings, missingSettings, PluginSecrets } from '../../src/settings/index.js';
import { isQuireError } from '../../src/errors.js';
import { cleanup, hostFor, makeAppData, memoryKeychain, placeFixture } from './helpers.js';

async function setUpEcho(appData: string): Promise<void> {
  placeFixture(appData, 'echo-dest');
  const echo = await findDestination('echo-dest', hostFor(appData));
  if (echo?.state !== 'usable') throw new Error('echo-dest should load');
  applySettings(echo.descriptor, [['shelf', 'A']], hostFor(appData));
  new PluginSecrets('echo-dest', { appData, plaintext: true, keychain: null }).set('token', 't0ken');
}

async function failure(p: Promise<unknown>): Promise<{ message: string; code: string }> {
  try {
    await p;
  } catch (e) {
    if (isQuireError(e)) return { message: e.message, code: e.code };
    throw e;
  }
  throw new Error('expected a failure');
}

describe('--send-to', () => {
  let appData: string;
  let out: string;
  beforeEach(() => {
    appData = makeAppData();
    out = join(appData, 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'My Book.pdf'), '%PDF-1.4 book');
    writeFileSync(join(out, 'My Book.md'), '# My Book');
    writeFileSync(join(out, 'My Book.quire'), 'slim');
  });
  afterEach(() => cleanup(appData));

  const files = (): Array<{ format: string; path: string }> => [
    { format: 'pdf', path: join(out, 'My Book.pdf') },
    { format: 'md', path: join(out, 'My Book.md') },
    { format: 'slim', path: join(out, 'My Book.quire') },
  ];

  it('hands each destination every file it accepts, under the export name, from a private copy deleted afterwards', async () => {
    await setUpEcho(appData);
    const outcomes = await sendExports(files(), ['echo-dest'], { title: 'My Book', authors: ['A. Writer'], publisher: '' }, hostFor(appData));
    expect(outcomes.map((o) => [o.format, o.fileName, o.result.ok])).toEqual([
      ['pdf', 'My Book.pdf', true],
      ['md', 'My Book.md', true],
    ]);
    expect(outcomes[0].result.message).toBe('"My Book" is on shelf A.');
    const kept = join(appData, 'plugins', 'data', 'echo-dest', 'files');
    expect(readFileSync(join(kept, 'My Book.pdf'), 'utf8')).toBe('%PDF-1.4 book');
    expect(JSON.parse(readFileSync(join(kept, 'My Book.pdf.json'), 'utf8'))).toEqual({ title: 'My Book', authors: ['A. Writer'] });
    for (const o of outcomes) {
      const staged = /path=(.*)$/.exec(o.result.detail)?.[1] ?? '';
      expect(staged).not.toBe(join(out, o.fileName)); // never the export itself
      expect(existsSync(dirname(staged))).toBe(false); // its staging folder is gone
    }
    expect(existsSync(join(out, 'My Book.pdf'))).toBe(true); // the export is kept
    expect(describeSendOutcome(outcomes[0])).toBe('echo-dest [My Book.pdf] sent: "My Book" is on shelf A.');
  });

  it('reports a destination that already has the book as a success', async () => {
    await setUpEcho(appData);
    const [first] = await sendExports(files().slice(0, 1), ['echo-dest'], { title: 'Already' }, hostFor(appData));
    expect(first.result).toMatchObject({ ok: true, alreadyThere: true });
  });

  it('fails before any work when a destination is not installed, naming it and the fixing command', async () => {
    const e = await failure(checkSendTargets(['send-to-library'], ['pdf'], hostFor(appData)));
    expect(e.message).toBe('The destination send-to-library is not installed; install it with: quire plugins install send-to-library');
  });

  it('fails before any work when a destination is not set up, with the command that sets it up', async () => {
    placeFixture(appData, 'echo-dest');
    const e = await failure(checkSendTargets(['echo-dest'], ['pdf'], hostFor(appData)));
    expect(e.message).toBe(
      'The destination echo-dest is not set up (missing: Shelf name, Access token); set it up with: quire plugins config echo-dest --set shelf=… --set-secret token',
    );
  });

  it('fails before any work when a destination is refused, or takes none of the formats written', async () => {
    placeFixture(appData, 'api-mismatch');
    expect((await failure(checkSendTargets(['api-mismatch'], ['pdf'], hostFor(appData)))).message).toMatch(
      /^The destination api-mismatch cannot be used: it needs plugin API 99, and this Quire provides plugin API 1/,
    );
    await setUpEcho(appData);
    expect((await failure(checkSendTargets(['echo-dest'], ['slim'], hostFor(appData)))).message).toBe(
      'The destination echo-dest takes pdf, md, and this run writes only slim; add one of its formats to --export.',
    );
  });

  it('with QUIRE_DEBUG, writes what each plugin logs and the detail of each send to standard error (every command sends this way)', async () => {
    await setUpEcho(appData);
    placeFixture(appData, 'sandbox-escape');
    const escape = await findDestination('sandbox-escape', hostFor(appData));
    if (escape?.state !== 'usable') throw new Error('sandbox-escape should load');
    applySettings(
      escape.descriptor,
      [
        ['attack', 'read'],
        ['target', '/etc/hostname'],
      ],
      hostFor(appData),
    );
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.env.QUIRE_DEBUG = '1';
    process.stderr.write = ((chunk: string | Uint8Array): boolean => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await sendExports(files().slice(0, 1), ['echo-dest', 'sandbox-escape'], { title: 'My Book' }, hostFor(appData));
    } finally {
      process.stderr.write = write;
      delete process.env.QUIRE_DEBUG;
    }
    const text = written.join('');
    expect(text).toContain('  [echo-dest] copying 13 bytes\n');
    expect(text).toMatch(/^ {2}\[echo-dest\] send My Book\.pdf: sent — "My Book" is on shelf A\. \[bytes=13 path=\S+My Book\.pdf\]$/m);
    expect(text).toMatch(
      /^ {2}\[sandbox-escape\] send My Book\.pdf: FAILED — Sandbox escape tried to reach something outside its sandbox and was stopped, so the file was not sent\. \[.*ERR_ACCESS_DENIED.*\]$/m,
    );
    // Without it, nothing.
    written.length = 0;
    await sendExports(files().slice(0, 1), ['echo-dest'], { title: 'My Book' }, hostFor(appData));
    expect(written).toEqual([]);
  });

  it('says a keychain that cannot be opened is the problem, never a missing secret', async () => {
    const keychain = memoryKeychain();
    const host = hostFor(appData, { keychain });
    placeFixture(appData, 'echo-dest');
    const echo = await findDestination('echo-dest', host);
    if (echo?.state !== 'usable') throw new Error('echo-dest should load');
    applySettings(echo.descriptor, [['shelf', 'A']], host);
    new PluginSecrets('echo-dest', { appData, keychain }).set('token', 'in-the-keychain');
    keychain.reachable = false;

    const e = await failure(checkSendTargets(['echo-dest'], ['pdf'], host));
    expect(e.message).toBe(
      'The destination echo-dest cannot read its Access token: the keychain could not be opened: Secret Service: the collection is locked; open (unlock) the keychain and try again.',
    );
    expect(missingSettings(echo.descriptor, host)).toEqual([]);
    expect(await checkDestination(echo, host)).toMatchObject({
      ok: false,
      kind: 'CONFIG',
      message: 'Echo cannot read its Access token: the keychain could not be opened: Secret Service: the collection is locked.',
    });
    let listing = '';
    await listDestinations({ host, out: (t) => (listing += t) });
    expect(listing).toMatch(
      /^echo-dest\s+Echo — accepts pdf, md — cannot read Access token: the keychain could not be opened: Secret Service: the collection is locked$/m,
    );
    // A new value is not written as plain text beside the one the keychain still holds.
    expect(() => new PluginSecrets('echo-dest', { appData, keychain }).set('token', 'new')).toThrow(
      'The new token of echo-dest was not stored: the keychain could not be opened: Secret Service: the collection is locked; open (unlock) the keychain and try again.',
    );
    keychain.reachable = true;
    expect((await checkSendTargets(['echo-dest'], ['pdf'], host)).map((d) => d.slug)).toEqual(['echo-dest']);
  });

  it('parses --send-to lists', () => {
    expect(parseSendTo('send-to-library+send-to-corpus+send-to-library')).toEqual(['send-to-library', 'send-to-corpus']);
    expect(() => parseSendTo('+')).toThrow(/at least one destination/);
  });
});
