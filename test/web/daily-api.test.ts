/**
 * The web app's server as a daily tool, through `app.inject`: a slim project opened again, proofreading words
 * saved into the project and carried by every export, exports written into the export folder with their stages
 * and listed for Open folder and Download, progress by stages with the time left, and refusals in the app's words.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedDocument, ProcessOptions } from '../../src/convert/index.js';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import type { OcrPage } from '../../src/project/index.js';
import { createGuiApp, type DocumentDetail, type DocumentSummary, type GuiApp, type PageWords, type WordEditResult } from '../../src/web/index.js';
import { epubTextBlocks, openEpub } from '../export/epub-read.js';
import { readZip } from '../helpers.js';
import { formBody } from './form-body.js';
import { writeProofProject } from './proof-project.js';

const TOKEN = 'a-test-token-that-is-long-enough';

describe('quire gui server: proofreading and exports', () => {
  let root: string;
  let gui: GuiApp;
  let slim: string;
  let exportDir: string;
  const opened: string[] = [];
  const auth = { 'x-quire-token': TOKEN };

  const get = async <T>(url: string): Promise<T> => (await gui.app.inject({ method: 'GET', url, headers: auth })).json() as T;
  const words = (id: string, page: number): Promise<PageWords> => get<PageWords>(`/api/documents/${id}/pages/${page}/words`);
  const edit = (id: string, page: number, n: number, body: Record<string, unknown>) =>
    gui.app.inject({ method: 'PUT', url: `/api/documents/${id}/pages/${page}/words/${n}`, headers: auth, payload: body });
  const nOf = (w: PageWords, text: string): number => {
    const found = w.lines.flatMap((l) => l.words).find((x) => x.text === text);
    if (!found) throw new Error(`no word ${text}`);
    return found.n;
  };
  const until = async (id: string, done: (d: DocumentSummary) => boolean): Promise<DocumentSummary> => {
    let doc = await get<DocumentSummary>(`/api/documents/${id}`);
    for (let i = 0; i < 600 && !done(doc); i++) {
      await new Promise((r) => setTimeout(r, 50));
      doc = await get<DocumentSummary>(`/api/documents/${id}`);
    }
    return doc;
  };
  const openSlim = async (): Promise<string> => {
    const { payload, headers } = await formBody([{ name: 'proof.quire', data: readFileSync(slim) }]);
    const res = await gui.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
    expect(res.statusCode, res.body).toBe(202);
    const id = (res.json() as DocumentSummary).id;
    await until(id, (d) => d.status !== 'working');
    return id;
  };
  const exportAs = async (id: string, target: string): Promise<DocumentSummary> => {
    const before = (await get<DocumentSummary>(`/api/documents/${id}`)).lastExport?.at ?? 0;
    const res = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/export`, headers: auth, payload: { target } });
    expect(res.statusCode, res.body).toBe(202);
    return until(id, (d) => d.status !== 'working' && (d.lastExport?.at ?? 0) > before);
  };

  const env = { home: process.env.QUIRE_HOME };
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-daily-'));
    // The OCR engines read their settings from the app data of the process, as under quire gui.
    process.env.QUIRE_HOME = join(root, 'home');
    const ui = join(root, 'ui');
    mkdirSync(ui);
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Quire</title>');
    mkdirSync(join(root, 'session'));
    slim = join(root, 'proof.quire');
    await writeProofProject(slim);
    exportDir = join(root, 'exports');
    gui = await createGuiApp({
      token: TOKEN,
      sessionDir: join(root, 'session'),
      uiDir: ui,
      host: { appData: join(root, 'home'), keychain: null },
      openFolder: async (folder) => {
        opened.push(folder);
      },
    });
    const saved = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { exportFolder: exportDir } });
    expect(saved.json()).toMatchObject({ exportFolder: exportDir, exportFolderInUse: exportDir });
  }, 30_000);
  afterAll(async () => {
    await gui?.close();
    if (env.home === undefined) delete process.env.QUIRE_HOME;
    else process.env.QUIRE_HOME = env.home;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('opens a slim project again: its pages and text, words to check counted, no captures and nothing to rerun', async () => {
    const id = await openSlim();
    const doc = await get<DocumentDetail>(`/api/documents/${id}`);
    expect(doc).toMatchObject({
      name: 'Proof sample',
      status: 'ready',
      hasCaptures: false,
      unsaved: false,
      pages: 2,
      ocr: { engine: 'tesseract', languages: ['eng'] },
    });
    expect(doc.proofreading).toEqual({ words: 32, doubtful: 4, checked: 0 });
    expect(doc.pageList.map((p) => p.proofreading?.doubtful)).toEqual([3, 1]);
    // The page photographed out of focus is told apart, for the person to take it again.
    expect(doc.pageList.map((p) => p.outOfFocus ?? false)).toEqual([false, true]);
    expect(doc.task).toBeUndefined();
    expect(typeof doc.openedAt).toBe('number');

    const frame = await gui.app.inject({ method: 'GET', url: `/api/documents/${id}/frames/1`, headers: auth });
    expect(frame.statusCode).toBe(404);
    expect(frame.json().error.code).toBe('no_captures');
    expect(frame.json().error.message).toMatch(/slim project, which keeps the pages but not the captures/);
    const rerun = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/rerun`, headers: auth, payload: { preset: 'book' } });
    expect(rerun.statusCode).toBe(409);
    // Not the frame's 404 code: a program tells "nothing to show" from "nothing to make again".
    expect(rerun.json().error).toMatchObject({
      code: 'slim_project',
      message: expect.stringMatching(/^This document was opened from a slim project: its pages are made/),
    });
  });

  it('gives each word with what proofreading needs, and saves an edit into the project, keeping the original', async () => {
    const id = await openSlim();
    let page = await words(id, 1);
    const all = page.lines.flatMap((l) => l.words);
    expect(all.filter((w) => w.doubtful).map((w) => w.text)).toEqual(['tbe', 'modern', 'wisd0m.']);
    expect(all.find((w) => w.text === 'tbe')).toMatchObject({ confidence: 41, doubtful: true });
    expect(all.find((w) => w.text === 'modern')).toMatchObject({ confidence: 93, doubtful: true, correction: { from: 'rnodern' } });
    expect(page.lines.map((l) => l.paragraph)).toEqual([0, 1, 1, 1]);

    const tbe = nOf(page, 'tbe');
    const fixed = await edit(id, 1, tbe, { text: ' the ', was: 'tbe' });
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect((fixed.json() as WordEditResult).word).toMatchObject({ n: tbe, text: 'the', doubtful: false, edit: { from: 'tbe' } });
    expect((fixed.json() as WordEditResult).page).toEqual({ words: 20, doubtful: 2, checked: 1 });
    // Saved in the project: the page reads it back, and the document is now unsaved.
    page = await words(id, 1);
    expect(page.lines.flatMap((l) => l.words)[tbe]).toMatchObject({ text: 'the', edit: { from: 'tbe' } });
    const doc = await get<DocumentSummary>(`/api/documents/${id}`);
    expect(doc).toMatchObject({ unsaved: true, proofreading: { doubtful: 3, checked: 1 } });

    // What the person saw is no longer there: nothing is written.
    const stale = await edit(id, 1, tbe, { text: 'then', was: 'tbe' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.message).toBe('This word now reads "the", not "tbe"; look at it again before changing it.');

    // The same text confirms a word; restoring gives back the original.
    const modern = nOf(page, 'modern');
    expect((await edit(id, 1, modern, { text: 'modern', was: 'modern' })).json().word).toMatchObject({
      text: 'modern',
      doubtful: false,
      edit: { from: 'modern' },
    });
    const restored = await edit(id, 1, tbe, { restore: true, was: 'the' });
    expect(restored.json().word).toMatchObject({ text: 'tbe', doubtful: true });
    expect(restored.json().word.edit).toBeUndefined();

    const missing = await edit(id, 1, 999, { text: 'x', was: 'y' });
    expect(missing.statusCode).toBe(404);
    const tooLong = await edit(id, 1, tbe, { text: 'x'.repeat(201), was: 'tbe' });
    expect(tooLong.statusCode).toBe(400);
  });

  it('writes exports into the export folder with their stages, lists them for download, and every format carries the edits', async () => {
    const id = await openSlim();
    const page1 = await words(id, 1);
    const page2 = await words(id, 2);
    expect((await edit(id, 1, nOf(page1, 'tbe'), { text: 'the', was: 'tbe' })).statusCode).toBe(200);
    expect((await edit(id, 1, nOf(page1, 'wisd0m.'), { text: 'wisdom.', was: 'wisd0m.' })).statusCode).toBe(200);
    expect((await edit(id, 2, nOf(page2, 'doubtfu1'), { text: 'doubtful', was: 'doubtfu1' })).statusCode).toBe(200);
    // A word emptied is left out of the exports.
    expect((await edit(id, 2, nOf(page2, 'clean.'), { text: '', was: 'clean.' })).statusCode).toBe(200);

    const md = await exportAs(id, 'md');
    expect(md.lastTask).toEqual({ kind: 'export', outcome: 'done' });
    expect(md.unsaved).toBe(false);
    const written = md.lastExport;
    expect(written).toMatchObject({ kind: 'files', title: 'Markdown', folder: exportDir });
    expect(written?.files?.map((f) => f.fileName)).toEqual(['Proof sample.md']);
    expect(written?.stages.map((s) => [s.key, s.label, s.state])).toEqual([['write:md', 'Writing the Markdown', 'done']]);
    const text = readFileSync(join(exportDir, 'Proof sample.md'), 'utf8');
    expect(text).toContain('It was the best of times');
    expect(text).toContain('age of wisdom.');
    expect(text).toContain('has one doubtful word');
    expect(text).not.toMatch(/tbe|wisd0m|doubtfu1|clean\./);
    const download = await gui.app.inject({ method: 'GET', url: written?.files?.[0].url ?? '', headers: auth });
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe(text);

    const pdf = await exportAs(id, 'pdf');
    const pdfPath = join(exportDir, 'Proof sample.pdf');
    expect(pdf.lastExport?.files?.[0]).toMatchObject({ fileName: 'Proof sample.pdf', format: 'pdf' });
    const layer = execFileSync('pdftotext', ['-raw', pdfPath, '-'], { encoding: 'utf8' });
    expect(layer).toContain('It was the best of times');
    expect(layer).toMatch(/one\s+doubtful word/);
    expect(layer).not.toMatch(/tbe|wisd0m|doubtfu1/);

    const epub = await exportAs(id, 'epub');
    expect(epub.lastExport?.files?.[0]).toMatchObject({ fileName: 'Proof sample.epub', format: 'epub' });
    expect(epub.lastExport?.stages.map((s) => [s.key, s.label, s.state])).toEqual([['write:epub', 'Writing the EPUB', 'done']]);
    const book = epubTextBlocks(await openEpub(join(exportDir, 'Proof sample.epub'))).join('\n');
    expect(book).toContain('It was the best of times');
    expect(book).toContain('age of wisdom.');
    expect(book).toContain('has one doubtful word');
    expect(book).not.toMatch(/tbe|wisd0m|doubtfu1|clean\./);

    // The slim project keeps each edit with the text it replaced.
    await exportAs(id, 'slim');
    const entries = await readZip(join(exportDir, 'Proof sample.quire'));
    const ocr = JSON.parse(entries.get('ocr/0001.json')?.toString() ?? '{}') as OcrPage;
    const edited = ocr.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words))).filter((w) => w.edit);
    expect(edited.map((w) => [w.text, w.edit?.from])).toEqual([
      ['the', 'tbe'],
      ['wisdom.', 'wisd0m.'],
    ]);

    // Open folder shows the export folder, and only to a window on this computer.
    const show = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/open-folder`, headers: auth });
    expect(show.statusCode).toBe(204);
    expect(opened).toEqual([exportDir]);
    const remote = await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/open-folder`, headers: auth, remoteAddress: '192.0.2.7' });
    expect(remote.statusCode).toBe(403);
    expect(opened).toHaveLength(1);

    // Exporting again replaces the document's own file; another document of the same name never overwrites it.
    expect((await exportAs(id, 'md')).lastExport?.files?.[0].fileName).toBe('Proof sample.md');
    const other = await openSlim();
    const second = (await exportAs(other, 'md')).lastExport?.files?.[0];
    expect(second?.fileName).toBe('Proof sample (2).md');
    expect(readFileSync(join(exportDir, 'Proof sample.md'), 'utf8')).toBe(text);
    // A file deleted from the folder since is said to be gone.
    rmSync(join(exportDir, 'Proof sample (2).md'));
    const gone = await gui.app.inject({ method: 'GET', url: second?.url ?? '', headers: auth });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.message).toBe('Proof sample (2).md is no longer where Quire wrote it; export it again.');
  }, 60_000);

  it('speaks of the window, not of the command line, and an engine becomes usable once its key is saved', async () => {
    const before = await get<{ ocrEngines: Array<{ name: string; available: boolean; reason?: string }>; local: boolean }>('/api/state');
    expect(before.local).toBe(true);
    const remote = before.ocrEngines.find((e) => e.name === 'remoteocr');
    expect(remote?.available).toBe(false);
    expect(remote?.reason).toBe('The remote OCR engine has no API key; type it in Settings → Remote OCR key.');
    expect(JSON.stringify(before)).not.toMatch(/quire (config|plugins)|--[a-z]/);
    const saved = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { remoteOcrKey: 'sk-daily-1' } });
    expect(saved.statusCode).toBe(200);
    const after = await get<{ ocrEngines: Array<{ name: string; available: boolean }> }>('/api/state');
    expect(after.ocrEngines.find((e) => e.name === 'remoteocr')?.available).toBe(true);
    await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { forgetRemoteOcrKey: true } });

    const folder = await gui.app.inject({ method: 'PUT', url: '/api/settings', headers: auth, payload: { exportFolder: 'exports here' } });
    expect(folder.statusCode).toBe(400);
    expect(folder.json().error.message).toBe('Give the export folder as a full path (starting with / or ~/), not "exports here".');
  });
});

describe('quire gui server: progress by stages', () => {
  it('plans the stages of opening, counts frames with the time left, and ends a cancelled stage as stopped', async () => {
    const root = mkdtempSync(join(tmpdir(), 'quire-gui-stages-'));
    // One frame of three done when the test says so, then the pipeline waits until the page cancels.
    const pipeline: { frameDone?: () => void } = {};
    const processPages = (_project: OpenedDocument, options: ProcessOptions = {}): Promise<never> =>
      new Promise((_resolve, reject) => {
        pipeline.frameDone = () => options.onProgress?.({ type: 'frame', framesDone: 1, framesTotal: 3, pagesDone: 1, input: 'a.png' });
        options.signal?.addEventListener('abort', () => reject(new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.')));
      });
    const gui = await createGuiApp({
      token: TOKEN,
      sessionDir: root,
      uiDir: join(root, 'no-ui'),
      host: { appData: join(root, 'home'), keychain: null },
      processPages,
    });
    const auth = { 'x-quire-token': TOKEN };
    try {
      const png = await sharp({ create: { width: 40, height: 60, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer();
      const { payload, headers } = await formBody(['a.png', 'b.png', 'c.png'].map((name) => ({ name, data: png })));
      const res = await gui.app.inject({ method: 'POST', url: '/api/documents', payload, headers: { ...headers, ...auth } });
      expect(res.statusCode, res.body).toBe(202);
      const id = (res.json() as DocumentSummary).id;
      let doc = res.json() as DocumentSummary;
      expect(doc.task?.stages).toMatchObject([{ key: 'pages', label: 'Making the pages', state: 'running', done: 0, total: 3, unit: 'frame' }]);
      expect(doc.task?.secondsLeft).toBeUndefined(); // nothing to go by before a first frame
      for (let i = 0; i < 100 && !pipeline.frameDone; i++) await new Promise((r) => setTimeout(r, 30));
      pipeline.frameDone!();
      for (let i = 0; i < 100 && doc.task?.stages[0].done !== 1; i++) {
        await new Promise((r) => setTimeout(r, 30));
        doc = (await gui.app.inject({ method: 'GET', url: `/api/documents/${id}`, headers: auth })).json() as DocumentSummary;
      }
      expect(doc.task?.stages[0]).toMatchObject({ key: 'pages', state: 'running', done: 1, total: 3 });
      // No time left from the first frame alone: its time holds the start-up, and frames run side by side.
      expect(doc.task?.secondsLeft).toBeUndefined();

      await gui.app.inject({ method: 'POST', url: `/api/documents/${id}/cancel`, headers: auth });
      for (let i = 0; i < 100 && doc.status === 'working'; i++) {
        await new Promise((r) => setTimeout(r, 30));
        doc = (await gui.app.inject({ method: 'GET', url: `/api/documents/${id}`, headers: auth })).json() as DocumentSummary;
      }
      expect(doc.status).toBe('cancelled');
      expect(doc.lastTask?.outcome).toBe('cancelled');
    } finally {
      await gui.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
