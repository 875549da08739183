import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedDocument, ProcessOptions } from '../../src/convert/index.js';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import { cookieName, createGuiApp, type DocumentDetail, type GuiApp } from '../../src/web/index.js';
import { startCorpus } from '../registry/corpus-server.js';
import { formBody } from './form-body.js';

describe('quire gui server: the session token and the JSON API', () => {
  let root: string;
  let gui: GuiApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-api-'));
    const ui = join(root, 'ui');
    mkdirSync(join(ui, 'assets'), { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Quire</title><div id="app"></div>');
    writeFileSync(join(ui, 'assets', 'index-1.js'), 'console.log(1)');
    mkdirSync(join(root, 'session'));
    gui = await createGuiApp({
      token: 'a-test-token-that-is-long-enough',
      sessionDir: join(root, 'session'),
      uiDir: ui,
      host: { appData: join(root, 'home'), keychain: null },
    });
    auth = { 'x-quire-token': gui.token };
  });
  afterAll(async () => {
    await gui.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers 401 without the token on every route, the page and its assets included', async () => {
    for (const url of ['/', '/assets/index-1.js', '/api/health', '/api/state', '/api/events', '/api/documents', '/api/plugins', '/api/no-such-route']) {
      const res = await gui.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
    }
    const page = await gui.app.inject({ method: 'GET', url: '/' });
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('needs the address quire gui printed');
    expect(page.body).not.toContain('id="app"');
    const api = await gui.app.inject({ method: 'POST', url: '/api/documents' });
    expect(api.json()).toEqual({ error: { code: 'unauthorized', message: 'This Quire window needs the address quire gui printed, with its token.' } });
  });

  it('refuses a wrong token in the address, in the header and in the cookie', async () => {
    expect((await gui.app.inject({ method: 'GET', url: '/?token=wrong' })).statusCode).toBe(401);
    expect((await gui.app.inject({ method: 'GET', url: `/?token=${gui.token}x` })).statusCode).toBe(401);
    expect((await gui.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-quire-token': 'wrong' } })).statusCode).toBe(401);
    expect((await gui.app.inject({ method: 'GET', url: '/api/health', headers: { cookie: `${cookieName(gui.token)}=wrong` } })).statusCode).toBe(401);
  });

  it('takes the token from the address once, then from a cookie that scripts and other sites cannot use', async () => {
    const first = await gui.app.inject({ method: 'GET', url: `/?token=${gui.token}` });
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const pair = cookie.split(';')[0];
    const page = await gui.app.inject({ method: 'GET', url: '/', headers: { cookie: pair } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="app"');
    const health = await gui.app.inject({ method: 'GET', url: '/api/health', headers: { cookie: pair } });
    expect(health.json()).toMatchObject({ ok: true });
  });

  it('refuses an upload Quire cannot read with one sentence naming the file, and keeps nothing of it', async () => {
    const { payload, headers } = await formBody([{ name: 'notes.txt', data: 'shopping list: bread, ink' }]);
    const res = await gui.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('notes.txt is not a scan bundle, PDF or image that Quire can read.');
    expect(readdirSync(gui.libraryDir)).toEqual([]);

    const several = await formBody([
      { name: 'a.png', data: 'x' },
      { name: 'book.pdf', data: '%PDF-1.4' },
    ]);
    const mixed = await gui.app.inject({ method: 'POST', url: '/api/documents', payload: several.payload, headers: { ...several.headers, ...auth } });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().error.message).toMatch(/^Only image files can be opened together/);
  });

  it('checks the defaults like the CLI checks --ocr, and never sends the remote OCR key back', async () => {
    const bad = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { ocrEngine: 'tesseract', ocrLanguages: 'klingon' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^Unknown OCR language "klingon"/);
    const wrongPreset = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { preset: 'scroll' } });
    expect(wrongPreset.statusCode).toBe(400);

    const saved = await gui.app.inject({
      method: 'PUT',
      url: '/api/settings',
      headers: auth,
      payload: { preset: 'sheet', ocrEngine: 'tesseract', ocrLanguages: 'eng+fra', remoteOcrKey: 'sk-remote-123' },
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ preset: 'sheet', ocrEngine: 'tesseract', ocrLanguages: 'eng+fra', remoteOcrKey: { set: true } });
    const state = await gui.app.inject({ method: 'GET', url: '/api/state', headers: auth });
    expect(state.body).not.toContain('sk-remote-123');
    // The settings file and the key's (no keychain here: plain text in remoteocr's config.db) are 0600.
    expect(statSync(join(root, 'home', 'gui-settings.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'home', 'plugins', 'data', 'remoteocr', 'config.db')).mode & 0o777).toBe(0o600);
    expect(state.json().settings).toMatchObject({ preset: 'sheet', remoteOcrKey: { set: true } });
    const forgotten = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { forgetRemoteOcrKey: true } });
    expect(forgotten.json().remoteOcrKey).toEqual({ set: false });
  });

  it('validates what a route takes before it runs', async () => {
    const res = await gui.app.inject({ method: 'POST', url: '/api/documents/no-such/export', headers: auth, payload: { target: '../../etc' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_request');
    const missing = await gui.app.inject({ method: 'GET', url: '/api/documents/abc123', headers: auth });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('There is no such document.');
  });

  it('installs a destination from the registry; its secrets never come back; a settings export holds them only when asked', async () => {
    const detail = (await gui.app.inject({ method: 'GET', url: '/api/registry/send-to-corpus', headers: auth })).json();
    expect(detail).toMatchObject({ firstParty: true, shipped: true, size: expect.stringMatching(/^\d+\.\d KiB$/) });
    const install = await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/install', headers: auth });
    expect(install.statusCode, install.body).toBe(200);
    expect(install.json()).toMatchObject({ slug: 'send-to-corpus', firstParty: true, state: 'needs-settings' });

    const cards = (await gui.app.inject({ method: 'GET', url: '/api/exporters', headers: auth })).json() as Array<{
      key: string;
      title: string;
      kind: string;
      needsOcr?: boolean;
      formats?: string[];
      state?: string;
      missing?: string[];
    }>;
    expect(cards.filter((c) => c.kind === 'format').map((c) => c.title)).toEqual(['PDF', 'Markdown', 'EPUB', 'OCR textpack', 'Slim project']);
    expect(cards.find((c) => c.key === 'epub')).toMatchObject({ needsOcr: true });
    const corpus = cards.find((c) => c.key === 'send:send-to-corpus');
    // It takes pdf, md, txt, epub, html and textpack: only what Quire writes is offered, in its order.
    expect(corpus?.formats).toEqual(['pdf', 'md', 'epub', 'textpack']);
    expect(corpus?.state).toBe('needs-settings');

    // Saved through the same check as the command line: an address that is not one is refused, and nothing is stored.
    const badAddress = await gui.app.inject({
      method: 'PUT',
      url: '/api/plugins/send-to-corpus/settings',
      headers: auth,
      payload: { settings: { base_url: 'corpus.example.org' }, secrets: { api_key: 'corpus-secret-41' } },
    });
    expect(badAddress.statusCode).toBe(400);
    expect(badAddress.json().error.message).toBe('base_url must be an http or https URL such as https://example.org.');
    expect((await gui.app.inject({ method: 'GET', url: '/api/plugins/send-to-corpus/settings', headers: auth })).json().missing).toEqual([
      'Corpus address',
      'API key',
    ]);
    const put = await gui.app.inject({
      method: 'PUT',
      url: '/api/plugins/send-to-corpus/settings',
      headers: auth,
      payload: { settings: { base_url: 'http://127.0.0.1:9' }, secrets: { api_key: 'corpus-secret-42' } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.body).not.toContain('corpus-secret-42');
    expect(put.json().missing).toEqual([]);
    const view = await gui.app.inject({ method: 'GET', url: '/api/plugins/send-to-corpus/settings', headers: auth });
    expect(view.body).not.toContain('corpus-secret-42');
    // Set, never its value; and where it lives: no keychain here, so readable text in the plugin's settings file.
    expect(view.json().fields.find((f: { id: string }) => f.id === 'api_key').secret).toEqual({
      set: true,
      store: 'config-file',
      where: "the plugin's own settings file (mode 0600), since no OS keychain was found",
      plainText: true,
    });
    // Every file holding a setting or a secret is 0600 in a 0700 folder, after the web app wrote it.
    const data = join(root, 'home', 'plugins', 'data', 'send-to-corpus');
    expect(statSync(join(data, 'config.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, 'install.json')).mode & 0o777).toBe(0o600);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'home', 'plugins', 'data')).mode & 0o777).toBe(0o700);

    const plain = (
      await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/config/export', headers: auth, payload: { withSecrets: false } })
    ).json();
    expect(plain.secretsWritten).toEqual([]);
    const plainFile = await gui.app.inject({ method: 'GET', url: plain.download.url, headers: auth });
    expect(plainFile.headers['content-disposition']).toContain('send-to-corpus-settings.json');
    expect(plainFile.body).not.toContain('corpus-secret-42');

    const withSecrets = (
      await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/config/export', headers: auth, payload: { withSecrets: true } })
    ).json();
    expect(withSecrets.secretsWritten).toEqual(['api_key']);
    // The same warning as quire plugins config --export --with-secrets.
    expect(withSecrets.warnings).toEqual(['Warning: 1 secret is in that file as readable text (api_key); keep it private and delete it once imported.']);
    expect(plain.warnings).toEqual([]);
    const secretFile = await gui.app.inject({ method: 'GET', url: withSecrets.download.url, headers: auth });
    expect(JSON.parse(secretFile.body).secrets).toEqual({ api_key: 'corpus-secret-42' });
    const onDisk = join(gui.sessionDir, 'downloads', withSecrets.download.url.split('/').pop(), 'send-to-corpus-settings.json');
    expect(statSync(onDisk).mode & 0o777).toBe(0o600);

    // A bundle naming another plugin is refused.
    const other = JSON.parse(readFileSync(onDisk, 'utf8')) as Record<string, unknown>;
    const refused = await gui.app.inject({
      method: 'POST',
      url: '/api/plugins/send-to-corpus/config/import',
      headers: auth,
      payload: { content: JSON.stringify({ ...other, plugin: 'send-to-library' }) },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/holds the settings of send-to-library, not of send-to-corpus/);
    expect(refused.json().error.message).not.toContain(gui.sessionDir);

    const removed = await gui.app.inject({ method: 'DELETE', url: '/api/plugins/send-to-corpus', headers: auth });
    expect(removed.statusCode).toBe(204);
    const after = (await gui.app.inject({ method: 'GET', url: '/api/plugins', headers: auth })).json();
    expect(after.installed).toEqual([]);
  });

  it('checks the values in the settings form without storing them: only Save stores', async () => {
    const corpus = await startCorpus({ apiKey: 'the-right-key' });
    try {
      expect((await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/install', headers: auth, payload: {} })).statusCode).toBe(200);
      const saved = await gui.app.inject({
        method: 'PUT',
        url: '/api/plugins/send-to-corpus/settings',
        headers: auth,
        payload: { settings: { base_url: corpus.url }, secrets: { api_key: 'the-right-key' } },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const check = async (payload?: object): Promise<{ ok: boolean; label: string; message: string }> =>
        (await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/check', headers: auth, ...(payload ? { payload } : {}) })).json();

      // A wrong key typed into the form and checked: refused, and the stored key is untouched.
      expect(await check({ settings: { base_url: corpus.url }, secrets: { api_key: 'a-wrong-key' } })).toEqual({
        ok: false,
        label: 'Wrong credentials',
        kind: 'AUTH',
        message: 'The corpus refused the API key.',
      });
      expect(await check()).toMatchObject({ ok: true, label: 'OK' });
      // An address typed and not saved is checked, and not kept either; an empty secret field means the stored one.
      expect(await check({ settings: { base_url: 'http://127.0.0.1:9' }, secrets: { api_key: '' } })).toMatchObject({ ok: false, label: 'Cannot connect' });
      const view = (await gui.app.inject({ method: 'GET', url: '/api/plugins/send-to-corpus/settings', headers: auth })).json();
      expect(view.fields.find((f: { id: string }) => f.id === 'base_url').value).toBe(corpus.url);
      const listed = (await gui.app.inject({ method: 'GET', url: '/api/plugins', headers: auth })).json();
      expect(listed.installed[0]).toMatchObject({ slug: 'send-to-corpus', state: 'ready' });
      expect(await check()).toMatchObject({ ok: true });
      // A value that does not fit its field is refused before anything runs.
      const bad = await gui.app.inject({ method: 'POST', url: '/api/plugins/send-to-corpus/check', headers: auth, payload: { settings: { colour: 'red' } } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toBe('send-to-corpus has no setting "colour"; it has: base_url, headers.');
    } finally {
      await gui.app.inject({ method: 'DELETE', url: '/api/plugins/send-to-corpus', headers: auth });
      await corpus.stop();
    }
  });

  it('lists a plugin that signals its parent at load as refused, and keeps serving', async () => {
    const dir = join(root, 'home', 'plugins', 'destinations', 'kills-parent');
    cpSync(join(import.meta.dirname, '..', 'plugins', 'fixtures', 'kills-parent'), dir, { recursive: true });
    const listed = (await gui.app.inject({ method: 'GET', url: '/api/plugins', headers: auth })).json();
    expect(listed.installed).toMatchObject([
      { slug: 'kills-parent', state: 'refused', reason: 'it tried to reach something outside its sandbox while loading' },
    ]);
    expect((await gui.app.inject({ method: 'GET', url: '/api/health', headers: auth })).statusCode).toBe(200);
    expect((await gui.app.inject({ method: 'DELETE', url: '/api/plugins/kills-parent', headers: auth })).statusCode).toBe(204);
  });

  it('lists a plugin it cannot use as refused, with the reason, and offers no export through it', async () => {
    const dir = join(root, 'home', 'plugins', 'destinations', 'send-to-shelf');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'quire-plugin.toml'), 'slug = "send-to-attic"\nname = "Shelf"\nversion = "1.0.0"\nentry = "plugin.mjs"\n[requires]\napi = 1\n');
    writeFileSync(join(dir, 'plugin.mjs'), 'export {};\n');
    const listed = (await gui.app.inject({ method: 'GET', url: '/api/plugins', headers: auth })).json();
    expect(listed.installed).toHaveLength(1);
    expect(listed.installed[0]).toMatchObject({ slug: 'send-to-shelf', state: 'refused' });
    expect(listed.installed[0].reason).toMatch(/names the slug "send-to-attic" but it sits in the directory "send-to-shelf"/);
    const cards = (await gui.app.inject({ method: 'GET', url: '/api/exporters', headers: auth })).json() as Array<{ key: string; state?: string }>;
    expect(cards.find((c) => c.key === 'send:send-to-shelf')?.state).toBe('refused');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('quire gui server: a running task can be cancelled', () => {
  it('cancels opening a document: the task ends as cancelled and nothing is left half-made', async () => {
    const root = mkdtempSync(join(tmpdir(), 'quire-gui-cancel-'));
    const started: OpenedDocument[] = [];
    // The pipeline's place: reports the start, then waits until the page cancels.
    const processPages = (project: OpenedDocument, options: ProcessOptions = {}): Promise<never> =>
      new Promise((_resolve, reject) => {
        started.push(project);
        options.onProgress?.({ type: 'start', name: 'page', frames: 1 });
        options.signal?.addEventListener('abort', () => reject(new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.')));
      });
    const gui = await createGuiApp({ sessionDir: root, uiDir: join(root, 'no-ui'), host: { appData: join(root, 'home'), keychain: null }, processPages });
    const auth = { 'x-quire-token': gui.token };
    try {
      const png = await sharp({ create: { width: 40, height: 60, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer();
      const { payload, headers } = await formBody([{ name: 'page.png', data: png }]);
      const opened = await gui.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
      expect(opened.statusCode, opened.body).toBe(202);
      const id = opened.json().id as string;
      const working = (await gui.app.inject({ method: 'GET', url: `/api/documents/${id}`, headers: auth })).json() as DocumentDetail;
      expect(working.status).toBe('working');
      expect(working.task).toMatchObject({ kind: 'open', stage: 'pipeline', framesTotal: 1, frames: [{ index: 1, input: 'page.png', done: false }] });
      // The input is opened first (its own await), then the pages are made: wait for the pipeline's start.
      for (let i = 0; i < 100 && started.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(started[0].dir).toContain(gui.libraryDir);

      // One task at a time per document.
      const busy = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/rerun`, headers: auth, payload: { preset: 'flat' } });
      expect(busy.statusCode).toBe(409);
      expect(busy.json().error).toEqual({ code: 'document_busy', message: 'This document is still busy; wait for it to finish or cancel it.' });

      await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/cancel`, headers: auth });
      let doc = working;
      for (let i = 0; i < 50 && doc.status === 'working'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        doc = (await gui.app.inject({ method: 'GET', url: `/api/documents/${id}`, headers: auth })).json() as DocumentDetail;
      }
      expect(doc.status).toBe('cancelled');
      expect(doc.lastTask).toEqual({ kind: 'open', outcome: 'cancelled', message: 'The conversion was cancelled.' });
      expect(doc.pageList).toEqual([]);
      expect(readdirSync(join(gui.libraryDir, id)).filter((f) => f.startsWith('project'))).toEqual([]);
    } finally {
      await gui.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('quire gui server: where plugins cannot be isolated (bubblewrap pretended missing)', () => {
  it('says so, and installs a plugin that is not first-party only when the dialog asked the user first', async () => {
    const root = mkdtempSync(join(tmpdir(), 'quire-gui-partial-'));
    const registry = join(root, 'registry');
    cpSync(join(import.meta.dirname, '..', 'plugins', 'fixtures', 'echo-dest'), join(registry, 'destinations', 'echo-dest'), { recursive: true });
    execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'build-registry-index.mjs'), registry]);
    const gui = await createGuiApp({
      sessionDir: root,
      uiDir: join(root, 'no-ui'),
      registry,
      host: { appData: join(root, 'home'), keychain: null, bwrap: null },
    });
    const auth = { 'x-quire-token': gui.token };
    try {
      const listed = (await gui.app.inject({ method: 'GET', url: '/api/plugins', headers: auth })).json();
      expect(listed.isolation).toMatchObject({ level: 'partial', summary: expect.stringMatching(/^bubblewrap \(bwrap\) is not installed/) });
      expect((await gui.app.inject({ method: 'GET', url: '/api/registry/echo-dest', headers: auth })).json()).toMatchObject({
        firstParty: true,
        shipped: false,
        isolation: { level: 'partial' },
      });
      // Its registry calls it first-party, but it is not the code shipped with Quire.
      const refused = await gui.app.inject({ method: 'POST', url: '/api/plugins/echo-dest/install', headers: auth, payload: {} });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.message).toBe(
        'The plugin echo-dest was not installed: it cannot be isolated on this system, and only first-party plugins run without isolation; to run it anyway, tick “I trust this plugin” in its install dialog.',
      );
      const allowed = await gui.app.inject({ method: 'POST', url: '/api/plugins/echo-dest/install', headers: auth, payload: { allowUnisolated: true } });
      expect(allowed.statusCode, allowed.body).toBe(200);
      expect(allowed.json()).toMatchObject({ slug: 'echo-dest', state: 'needs-settings' });
    } finally {
      await gui.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
