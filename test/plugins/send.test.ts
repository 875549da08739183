import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkSendTargets, describeSendOutcome, findDestination, parseSendTo, sendExports } from '../../src/plugins/index.js';
import { applySettings, PluginSecrets } from '../../src/settings/index.js';
import { isQuireError } from '../../src/errors.js';
import { cleanup, hostFor, makeAppData, placeFixture } from './helpers.js';

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
    expect(e.message).toBe('The destination echo-dest is not set up (missing: Shelf name, Access token); set it up with: quire plugins config echo-dest --set shelf=… --set-secret token');
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

  it('parses --send-to lists', () => {
    expect(parseSendTo('send-to-library+send-to-corpus+send-to-library')).toEqual(['send-to-library', 'send-to-corpus']);
    expect(() => parseSendTo('+')).toThrow(/at least one destination/);
  });
});
