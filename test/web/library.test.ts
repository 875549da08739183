/**
 * Documents kept between sessions of the web app, through `app.inject`: a document with a corrected word, a hidden
 * page and its preset is listed again, as it was, by an app started afresh on the same app data folder; Close
 * removes it for good; an opening a stop cut short comes back cancelled, and Rerun makes its pages; a folder the app
 * cannot read is left alone; the warning `quire gui` prints when stopped.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexportedWarning } from '../../src/cli/commands/gui.js';
import type { OpenedDocument, ProcessOptions } from '../../src/convert/index.js';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import { createGuiApp, type DocumentDetail, type DocumentSummary, type GuiApp, type PageWords } from '../../src/web/index.js';
import { formBody } from './form-body.js';
import { writeProofProject } from './proof-project.js';

const TOKEN = 'a-test-token-that-is-long-enough';
const auth = { 'x-quire-token': TOKEN };

describe('quire gui keeps documents between sessions', () => {
  let root: string;
  let slim: string;
  const apps: GuiApp[] = [];

  const start = async (): Promise<GuiApp> => {
    const gui = await createGuiApp({ token: TOKEN, uiDir: join(root, 'ui'), host: { appData: join(root, 'home'), keychain: null } });
    apps.push(gui);
    return gui;
  };
  const get = async <T>(gui: GuiApp, url: string): Promise<T> => (await gui.app.inject({ method: 'GET', url, headers: auth })).json() as T;
  const until = async (gui: GuiApp, id: string, done: (d: DocumentSummary) => boolean): Promise<DocumentSummary> => {
    let doc = await get<DocumentSummary>(gui, `/api/documents/${id}`);
    for (let i = 0; i < 600 && !done(doc); i++) {
      await new Promise((r) => setTimeout(r, 50));
      doc = await get<DocumentSummary>(gui, `/api/documents/${id}`);
    }
    return doc;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-library-'));
    mkdirSync(join(root, 'ui'));
    writeFileSync(join(root, 'ui', 'index.html'), '<!doctype html><title>Quire</title>');
    slim = join(root, 'proof.quire');
    await writeProofProject(slim);
  });
  afterAll(async () => {
    for (const gui of apps) await gui.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lists a document again after a restart with its correction and hidden page, until it is closed', async () => {
    const first = await start();
    const { payload, headers } = await formBody([{ name: 'proof.quire', data: readFileSync(slim) }]);
    const res = await first.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
    expect(res.statusCode, res.body).toBe(202);
    const id = (res.json() as DocumentSummary).id;
    expect((await until(first, id, (d) => d.status !== 'working')).status).toBe('ready');
    const words = await get<PageWords>(first, `/api/documents/${id}/pages/1/words`);
    const tbe = words.lines.flatMap((l) => l.words).find((w) => w.text === 'tbe');
    const edit = await first.app.inject({
      method: 'PUT',
      url: `/api/documents/${id}/pages/1/words/${tbe?.n}`,
      headers: auth,
      payload: { text: 'the', was: 'tbe' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const hide = await first.app.inject({ method: 'PATCH', url: `/api/documents/${id}/pages/2`, headers: auth, payload: { hidden: true } });
    expect(hide.statusCode, hide.body).toBe(200);
    expect(first.unexported().map((d) => d.name)).toEqual(['Proof sample']);
    const warning = unexportedWarning(first.unexported(), first.libraryDir);
    expect(warning).toBe(
      `Warning: 1 document has corrections not exported yet (1 word checked or corrected): "Proof sample". They are kept in ${first.libraryDir} and listed again the next time you run quire gui; export them there to have the files.\n`,
    );
    await first.close();
    // The session folder goes with the session; the document stays in the app data folder.
    expect(existsSync(first.sessionDir)).toBe(false);
    expect(first.libraryDir).toBe(join(root, 'home', 'documents'));

    const second = await start();
    const listed = await get<DocumentSummary[]>(second, '/api/documents');
    expect(listed.map((d) => [d.id, d.name, d.status, d.hiddenPages, d.unsaved])).toEqual([[id, 'Proof sample', 'ready', 1, true]]);
    const detail = await get<DocumentDetail>(second, `/api/documents/${id}`);
    // The hidden page is left out of the counts, as of the exports.
    expect(detail.proofreading).toEqual({ words: 20, doubtful: 2, checked: 1 });
    expect(detail.pageList.map((p) => p.hidden)).toEqual([false, true]);
    const again = await get<PageWords>(second, `/api/documents/${id}/pages/1/words`);
    expect(again.lines.flatMap((l) => l.words).find((w) => w.n === tbe?.n)).toMatchObject({ text: 'the', edit: { from: 'tbe' } });
    const image = await second.app.inject({ method: 'GET', url: `/api/documents/${id}/pages/1/image?size=thumb`, headers: auth });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');

    // Close removes it for good: the next start lists nothing.
    const closed = await second.app.inject({ method: 'DELETE', url: `/api/documents/${id}`, headers: auth });
    expect(closed.statusCode).toBe(204);
    await second.close();
    expect(readdirSync(second.libraryDir)).toEqual([]);
    const third = await start();
    expect(await get<DocumentSummary[]>(third, '/api/documents')).toEqual([]);
    await third.close();
  });

  it('lists a document whose opening a stop cut short as cancelled, and Rerun makes its pages', async () => {
    // The first session's pipeline never ends: quire gui is stopped while it runs.
    const hanging = (_project: OpenedDocument, options: ProcessOptions = {}): Promise<never> =>
      new Promise((_resolve, reject) =>
        options.signal?.addEventListener('abort', () => reject(new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.'))),
      );
    const first = await createGuiApp({
      token: TOKEN,
      uiDir: join(root, 'ui'),
      host: { appData: join(root, 'cut-home'), keychain: null },
      processPages: hanging,
    });
    apps.push(first);
    const png = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const { payload, headers } = await formBody([{ name: 'leaf.png', data: png }]);
    const res = await first.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
    expect(res.statusCode, res.body).toBe(202);
    const id = (res.json() as DocumentSummary).id;
    await first.close();

    const second = await createGuiApp({ token: TOKEN, uiDir: join(root, 'ui'), host: { appData: join(root, 'cut-home'), keychain: null } });
    apps.push(second);
    const [doc] = await get<DocumentSummary[]>(second, '/api/documents');
    expect(doc).toMatchObject({
      id,
      name: 'leaf',
      status: 'cancelled',
      pages: 0,
      hasCaptures: true,
      lastTask: { kind: 'open', outcome: 'cancelled', message: 'Quire was stopped before its pages were made.' },
    });
    const rerun = await second.app.inject({ method: 'POST', url: `/api/documents/${id}/rerun`, headers: auth, payload: { preset: 'flat' } });
    expect(rerun.statusCode, rerun.body).toBe(202);
    expect(await until(second, id, (d) => d.status !== 'working')).toMatchObject({ status: 'ready', pages: 1 });
    await second.close();
  });

  it('leaves a folder it cannot read where it is, and lists the others', async () => {
    const library = join(root, 'home', 'documents');
    const broken = join(library, 'abcdefabcdef');
    mkdirSync(join(broken, 'input'), { recursive: true });
    writeFileSync(join(broken, 'document.json'), '{"format": "something else"');
    const gui = await start();
    expect(await get<DocumentSummary[]>(gui, '/api/documents')).toEqual([]);
    await gui.close();
    expect(readdirSync(broken).sort()).toEqual(['document.json', 'input']);
  });
});
