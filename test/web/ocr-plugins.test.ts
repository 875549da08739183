// The web app offers the OCR engine plugins the user installed and accepted beside the built-in engines, with their
// languages.
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry, installPlugin } from '../../src/plugins/index.js';
import { createGuiApp, type GuiApp } from '../../src/web/index.js';

describe("the web app's OCR engines", () => {
  let root: string;
  let gui: GuiApp;
  // Each sandboxed process started to read what a plugin says about itself.
  const starts: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-ocr-'));
    const ui = join(root, 'ui');
    mkdirSync(ui, { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Quire</title><div id="app"></div>');
    mkdirSync(join(root, 'session'));
    const host = { appData: join(root, 'home'), keychain: null };
    await installPlugin('tesseract-own-model', { ...host, fromFolder: false, registry: defaultRegistry() });
    copyFileSync(
      '/usr/share/tesseract-ocr/5/tessdata/eng.traineddata',
      join(root, 'home', 'plugins', 'data', 'tesseract-own-model', 'files', 'mine.traineddata'),
    );
    gui = await createGuiApp({
      token: 'a-test-token-that-is-long-enough',
      sessionDir: join(root, 'session'),
      uiDir: ui,
      host: { ...host, onDescribeStart: (slug) => starts.push(slug) },
    });
  });
  afterAll(async () => {
    await gui.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists an installed, accepted OCR engine plugin with its languages, marked as a plugin', async () => {
    const state = await gui.app.inject({ method: 'GET', url: '/api/state', headers: { 'x-quire-token': gui.token } });
    expect(state.statusCode).toBe(200);
    const engines = state.json().ocrEngines as Array<{ name: string; description: string; available: boolean; languages: Array<{ code: string }> }>;
    expect(engines.map((e) => e.name)).toContain('tesseract');
    expect(engines.find((e) => e.name === 'tesseract-own-model')).toMatchObject({
      description: 'tesseract reading with a .traineddata file you put in its files folder (plugin)',
      available: true,
      languages: [{ code: 'mine' }],
    });
  });

  type Engine = { name: string; available: boolean; reason?: string; languages: Array<{ code: string }> };
  const ownModel = async (): Promise<Engine | undefined> => {
    const state = await gui.app.inject({ method: 'GET', url: '/api/state', headers: { 'x-quire-token': gui.token } });
    expect(state.statusCode).toBe(200);
    return (state.json().ocrEngines as Engine[]).find((e) => e.name === 'tesseract-own-model');
  };

  it('starts the plugin once for two looks, again when its files folder or its files change', async () => {
    await ownModel();
    await ownModel();
    expect(starts).toEqual(['tesseract-own-model']);
    expect(await ownModel()).toMatchObject({ available: true, languages: [{ code: 'mine' }] });
    expect(starts).toHaveLength(1);

    // A second model in its files folder: the plugin is described again, and reads both.
    copyFileSync(
      '/usr/share/tesseract-ocr/5/tessdata/eng.traineddata',
      join(root, 'home', 'plugins', 'data', 'tesseract-own-model', 'files', 'other.traineddata'),
    );
    expect((await ownModel())?.languages.map((l) => l.code).sort()).toEqual(['mine', 'other']);
    expect(starts).toHaveLength(2);
    await ownModel();
    expect(starts).toHaveLength(2);

    // Its code changed since it was accepted: not run, and offered no more until accepted again.
    appendFileSync(join(root, 'home', 'plugins', 'ocr', 'tesseract-own-model', 'plugin.mjs'), '\n// changed\n');
    const changed = await ownModel();
    expect(changed?.available).toBe(false);
    expect(changed?.reason).toMatch(/changed since it was accepted/);
    expect(starts).toHaveLength(2);
  });
});
