/**
 * Pages set by hand through the web app's server (`app.inject`): a frame's page box kept and the frame made again,
 * its text read again when the document has text, kept across a restart and a Rerun, refused in one sentence when it
 * does not fit the capture, and set back to the automatic split.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuiApp, type DocumentDetail, type DocumentSummary, type GuiApp } from '../../src/web/index.js';
import { SAMPLE } from '../helpers.js';
import { formBody } from './form-body.js';

const TOKEN = 'a-test-token-that-is-long-enough';
const auth = { 'x-quire-token': TOKEN };

describe('quire gui server: pages set by hand', () => {
  let root: string;
  let gui: GuiApp;
  const env = { home: process.env.QUIRE_HOME };

  const start = async (): Promise<GuiApp> =>
    createGuiApp({
      token: TOKEN,
      sessionDir: join(root, 'session'),
      uiDir: join(root, 'ui'),
      host: { appData: join(root, 'home'), keychain: null },
      openFolder: async () => undefined,
    });
  const get = async <T>(url: string): Promise<T> => (await gui.app.inject({ method: 'GET', url, headers: auth })).json() as T;
  const until = async (id: string, done: (d: DocumentDetail) => boolean): Promise<DocumentDetail> => {
    let doc = await get<DocumentDetail>(`/api/documents/${id}`);
    for (let i = 0; i < 2400 && !done(doc); i++) {
      await new Promise((r) => setTimeout(r, 50));
      doc = await get<DocumentDetail>(`/api/documents/${id}`);
    }
    return doc;
  };
  const ready = (id: string, after: number): Promise<DocumentDetail> => until(id, (d) => d.status !== 'working' && d.revision > after);
  const pageImageSize = async (id: string, page: number): Promise<{ width: number; height: number }> => {
    const doc = await get<DocumentDetail>(`/api/documents/${id}`);
    const res = await gui.app.inject({ method: 'GET', url: doc.pageList[page - 1].image, headers: auth });
    const { width = 0, height = 0 } = await sharp(res.rawPayload).metadata();
    return { width, height };
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-page-box-'));
    process.env.QUIRE_HOME = join(root, 'home');
    mkdirSync(join(root, 'ui'));
    writeFileSync(join(root, 'ui', 'index.html'), '<!doctype html><title>Quire</title>');
    mkdirSync(join(root, 'session'));
    gui = await start();
  }, 30_000);
  afterAll(async () => {
    await gui?.close();
    if (env.home === undefined) delete process.env.QUIRE_HOME;
    else process.env.QUIRE_HOME = env.home;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('makes a frame again with the box set by hand, keeps it across a restart and a rerun, and reads the text again when set back', async () => {
    const { payload, headers } = await formBody([{ name: 'sample.aglbundle', data: readFileSync(SAMPLE) }]);
    const opened = await gui.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
    expect(opened.statusCode, opened.body).toBe(202);
    const id = (opened.json() as DocumentSummary).id;
    let doc = await until(id, (d) => d.status !== 'working');
    expect(doc.pageList.map((p) => `${p.source.frame}${p.source.side}`)).toEqual(['1left', '1right', '2left', '2right', '3left', '3right']);
    expect(doc.pageList[0].split?.handSet).toBeUndefined();
    const before = await pageImageSize(id, 1);

    // Out of the capture: one sentence, nothing changes.
    const outside = await gui.app.inject({
      method: 'PUT',
      url: `/api/documents/${id}/frames/1/pages`,
      headers: auth,
      payload: { boxes: [{ x: 1800, y: 0, width: 400, height: 400 }] },
    });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error.message).toBe(
      'The page box set by hand for frame 1 of images/0001.jpg (400×400 at (1800, 0)) reaches outside the capture (1920×1080).',
    );

    // The top half of the left page alone: frame 1 is one page, half as tall.
    const top = { x: 100, y: 60, width: 820, height: 480 };
    const set = await gui.app.inject({ method: 'PUT', url: `/api/documents/${id}/frames/1/pages`, headers: auth, payload: { boxes: [top] } });
    expect(set.statusCode, set.body).toBe(202);
    doc = await ready(id, doc.revision);
    expect(doc.lastTask).toMatchObject({ outcome: 'done' });
    expect(doc.pageList.map((p) => `${p.source.frame}${p.source.side}`)).toEqual(['1single', '2left', '2right', '3left', '3right']);
    expect(doc.pageList[0].split).toMatchObject({ box: top, handSet: true });
    const after = await pageImageSize(id, 1);
    expect(after.height).toBeLessThan(0.75 * before.height);

    // Quire stopped and started again: the box is still set, and a Rerun keeps it.
    await gui.close();
    gui = await start();
    doc = await get<DocumentDetail>(`/api/documents/${id}`);
    expect(doc.pageList[0].split).toMatchObject({ box: top, handSet: true });
    const rerun = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/rerun`, headers: auth, payload: { preset: 'book' } });
    expect(rerun.statusCode, rerun.body).toBe(202);
    doc = await ready(id, doc.revision);
    expect(doc.pageList).toHaveLength(5);
    expect(doc.pageList[0].split).toMatchObject({ box: top, handSet: true });

    // With text recognised, back to the automatic split: two pages again, their text read again.
    const ocr = await gui.app.inject({
      method: 'POST',
      url: `/api/documents/${id}/ocr`,
      headers: auth,
      payload: { engine: 'tesseract-cli', languages: 'eng' },
    });
    expect(ocr.statusCode, ocr.body).toBe(202);
    doc = await ready(id, doc.revision);
    expect(doc.pageList.every((p) => p.hasText)).toBe(true);
    const reset = await gui.app.inject({ method: 'DELETE', url: `/api/documents/${id}/frames/1/pages`, headers: auth });
    expect(reset.statusCode, reset.body).toBe(202);
    doc = await ready(id, doc.revision);
    expect(doc.pageList.map((p) => `${p.source.frame}${p.source.side}`)).toEqual(['1left', '1right', '2left', '2right', '3left', '3right']);
    expect(doc.pageList[0].split?.handSet).toBeUndefined();
    expect(doc.pageList.every((p) => p.hasText)).toBe(true);
    expect((await get<{ text: string }>(`/api/documents/${id}/pages/2/text`)).text.length).toBeGreaterThan(20);
  }, 300_000);
});
