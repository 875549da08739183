// The Plugins tab's routes for processors and OCR engines accept only what their dialog showed: an install or an
// accept with another sha256 than the plugin's files have now is refused with one sentence, and nothing changes.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginDigest } from '../../src/plugins/index.js';
import { createGuiApp, type GuiApp } from '../../src/web/index.js';

describe('installing and accepting processors and OCR engines from the web app', () => {
  let root: string;
  let gui: GuiApp;
  const home = (): string => join(root, 'home');
  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    gui.app.inject({ method, url, headers: { 'x-quire-token': gui.token }, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-page-routes-'));
    const ui = join(root, 'ui');
    mkdirSync(ui, { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Quire</title><div id="app"></div>');
    mkdirSync(join(root, 'session'));
    gui = await createGuiApp({
      token: 'a-test-token-that-is-long-enough',
      sessionDir: join(root, 'session'),
      uiDir: ui,
      host: { appData: home(), keychain: null },
    });
  });
  afterAll(async () => {
    await gui.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("lists the registry's processors and OCR engines with the sha256 installing them accepts", async () => {
    const listed = await call('GET', '/api/page-plugins');
    expect(listed.statusCode).toBe(200);
    const registry = listed.json().registry as Array<{ slug: string; kind: string; sha256: string; installed: boolean }>;
    expect(registry.map((e) => [e.slug, e.kind, e.installed])).toEqual([
      ['despeckle', 'processor', false],
      ['tesseract-own-model', 'ocr', false],
    ]);
    expect(registry[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses an install whose sha256 is not the registry's, installing nothing", async () => {
    const refused = await call('POST', '/api/page-plugins/despeckle/install', { sha256: 'a'.repeat(64) });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(
      /^The registry's despeckle changed since its dialog was shown \(its sha256 is now [0-9a-f]{12}…\); look at it again before installing\.$/,
    );
    expect(existsSync(join(home(), 'plugins', 'processors', 'despeckle'))).toBe(false);
  });

  it('installs with the shown sha256, and accepts a changed plugin only as it is now', async () => {
    const sha256 = ((await call('GET', '/api/page-plugins')).json().registry as Array<{ slug: string; sha256: string }>).find(
      (e) => e.slug === 'despeckle',
    )?.sha256;
    const installed = await call('POST', '/api/page-plugins/despeckle/install', { sha256 });
    expect(installed.statusCode, installed.body).toBe(200);
    expect(installed.json()).toMatchObject({ slug: 'despeckle', kind: 'processor', state: 'ready', sha256, after: 'binarize' });

    const dir = join(home(), 'plugins', 'processors', 'despeckle');
    appendFileSync(join(dir, 'plugin.mjs'), '\n// one change\n');
    const first = pluginDigest(dir);
    const listed = (await call('GET', '/api/page-plugins')).json().installed as Array<{ slug: string; state: string; sha256: string }>;
    expect(listed.find((p) => p.slug === 'despeckle')).toMatchObject({ state: 'changed', sha256: first });
    // A second change after the dialog showed the first: accepting what was shown is refused.
    appendFileSync(join(dir, 'plugin.mjs'), '// another\n');
    const stale = await call('POST', '/api/page-plugins/despeckle/accept', { sha256: first });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.message).toBe('The files of despeckle changed again since its dialog was shown; look at it again before accepting.');
    const record = JSON.parse(readFileSync(join(home(), 'plugins', 'data', 'despeckle', 'accepted.json'), 'utf8')) as { sha256: string };
    expect(record.sha256).toBe(sha256);

    const accepted = await call('POST', '/api/page-plugins/despeckle/accept', { sha256: pluginDigest(dir) });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ slug: 'despeckle', state: 'ready', sha256: pluginDigest(dir) });
  });

  it('refuses a request without a sha256 before doing anything', async () => {
    const bad = await call('POST', '/api/page-plugins/despeckle/accept', { sha256: 'not-a-digest' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/sha256/);
  });

  it('says which plugin is not installed when asked to accept it', async () => {
    const missing = await call('POST', '/api/page-plugins/no-such-step/accept', { sha256: 'b'.repeat(64) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('No processor or OCR engine called no-such-step is installed.');
  });
});
