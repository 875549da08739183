/**
 * The remote engine through the command line, against the fake service: `quire config`, streaming, and batch mode
 * finished with `--check-ocr`. Vitest runs this file in a process of its own, so the app data folder and the key
 * are set in this process's environment (`QUIRE_HOME`, `QUIRE_REMOTEOCR_API_KEY`) as a user would set them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { configCommand } from '../../../src/cli/commands/config.js';
import { main } from '../../../src/cli/main.js';
import { isQuireError } from '../../../src/errors.js';
import { registerOcrEngine } from '../../../src/ocr/index.js';
import { type OcrLine, type OcrPage } from '../../../src/project/index.js';
import { FakeRemoteOcr } from './fake-remote-ocr.js';
import { PAGE_HEIGHT_PTS, textPdf } from './helpers.js';
import { setEnv } from '../../helpers.js';

let fake: FakeRemoteOcr;
let home: string;
let work: string;
let restoreEnv = (): void => undefined;

async function quire(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    const code = await main(args);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** Words of a PDF page with their boxes as fractions of the page, from poppler. */
function pdfWords(pdf: string, page: number): Array<{ text: string; y0: number; y1: number }> {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), pdf, '-'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const height = Number(/<page width="[\d.]+" height="([\d.]+)"/.exec(html)![1]);
  return [...html.matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    text: m[3],
    y0: Number(m[1]) / height,
    y1: Number(m[2]) / height,
  }));
}

/** A local engine whose words sit at known places: the remote text must take exactly those boxes. */
function registerLayoutEngine(): void {
  registerOcrEngine({
    name: 'testlayout',
    display: 'Layout for tests',
    description: 'Known word boxes.',
    options: [],
    available: async () => ({ ok: true }),
    languages: () => [],
    async recognize(page, languages): Promise<OcrPage> {
      const tag = `w${Math.round((page.width / page.dpi) * 72)}`;
      const line = (k: number, words: string[]): OcrLine => {
        const y0 = Math.round(page.height * (0.3 + k * 0.05));
        const y1 = y0 + Math.round(page.height * 0.04);
        let x = Math.round(page.width * 0.1);
        return {
          box: { x0: x, y0, x1: Math.round(page.width * 0.9), y1 },
          words: words.map((text) => ({ text, confidence: 70, box: { x0: x, y0, x1: (x += text.length * 9), y1 } })),
        };
      };
      // A misread (`harb0ur`) the remote text corrects; `Chapter` missing, so it joins the next word's box.
      const lines = [line(0, [tag, 'The', 'harb0ur', 'of', 'page', tag]), line(1, ['wakes', 'at', 'dawn', 'with', 'gulls'])];
      return {
        width: page.width,
        height: page.height,
        dpi: page.dpi,
        engine: 'testlayout',
        languages,
        blocks: [{ box: lines[0].box, paragraphs: [{ box: lines[0].box, lines }] }],
      };
    },
  });
}

beforeAll(async () => {
  registerLayoutEngine();
  fake = await new FakeRemoteOcr().start();
  home = await mkdtemp(join(tmpdir(), 'quire-remote-cli-'));
  restoreEnv = setEnv({ QUIRE_HOME: join(home, 'app'), QUIRE_REMOTEOCR_API_KEY: fake.apiKey });
  const set = await quire('config', 'set', 'remoteocr.base_url', fake.url);
  expect(set).toMatchObject({ code: 0, out: 'remoteocr.base_url set.\n' });
});

afterAll(async () => {
  await fake.stop();
  await rm(home, { recursive: true, force: true });
  restoreEnv();
});

beforeEach(async () => {
  work = await mkdtemp(join(home, 'run-'));
  await writeFile(join(work, 'harbour.pdf'), await textPdf([300, 340]));
  fake.holdRunning = false;
  fake.batchOutcome = 'SUCCESS';
});

describe('quire config', () => {
  it('sets the base URL and model, stores the key in .env (0600) without echo, and shows them', async () => {
    const appData = join(home, 'config-app');
    let out = '';
    const run = async (...args: string[]): Promise<string | undefined> => {
      const cmd = configCommand({ host: { appData, keychain: null }, out: (t) => (out += t), readSecret: async () => 'sk-secret-123\n', env: {} });
      cmd.exitOverride();
      try {
        await cmd.parseAsync(args, { from: 'user' });
        return undefined;
      } catch (e) {
        return isQuireError(e) ? e.message : String(e);
      }
    };
    expect(await run('show')).toBeUndefined();
    expect(out).toBe(
      [
        'remoteocr.base_url         https://api.mistral.ai (default)',
        'remoteocr.model            mistral-ocr-latest (default)',
        'remoteocr.connect_timeout  10 (default)',
        'remoteocr.response_timeout 30 (default)',
        'remoteocr.api_key          not set',
        '',
      ].join('\n'),
    );
    expect(await run('set', 'remoteocr.base_url', 'http://127.0.0.1:9/ocr/')).toBeUndefined();
    expect(await run('set', 'remoteocr.model', 'ocr-2')).toBeUndefined();
    expect(await run('set', 'remoteocr.base_url', 'ftp://x')).toMatch(/remoteocr.base_url must be an http or https URL/);
    expect(await run('set', 'remoteocr.api_key', 'x')).toMatch(/remoteocr.api_key is a secret: set it with quire config set-secret remoteocr.api_key/);
    expect(await run('set-secret', 'remoteocr.api_key')).toBeUndefined();
    expect(out).toContain(`remoteocr.api_key stored in ${appData}/.env (mode 0600).`);
    expect(out).not.toContain('sk-secret-123');
    expect(statSync(join(appData, '.env')).mode & 0o777).toBe(0o600);
    out = '';
    expect(await run('show')).toBeUndefined();
    expect(out).toBe(
      [
        'remoteocr.base_url         http://127.0.0.1:9/ocr',
        'remoteocr.model            ocr-2',
        'remoteocr.connect_timeout  10 (default)',
        'remoteocr.response_timeout 30 (default)',
        `remoteocr.api_key          set (in ${appData}/.env)`,
        '',
      ].join('\n'),
    );
    // The same store the web app's settings page uses.
    const { readRemoteOcrSettings } = await import('../../../src/ocr/index.js');
    expect(readRemoteOcrSettings({ appData, keychain: null }, {})).toEqual({ baseUrl: 'http://127.0.0.1:9/ocr', model: 'ocr-2', apiKey: 'sk-secret-123' });
    // The environment variable wins.
    expect(readRemoteOcrSettings({ appData, keychain: null }, { QUIRE_REMOTEOCR_API_KEY: 'sk-env' }).apiKey).toBe('sk-env');
    expect(await run('unset-secret', 'remoteocr.api_key')).toBeUndefined();
    expect(readRemoteOcrSettings({ appData, keychain: null }, {}).apiKey).toBeUndefined();
  });
});

describe('quire run --ocr remoteocr (streaming)', () => {
  it('writes a PDF whose text lies in the regions of the blocks, and Markdown', async () => {
    const before = fake.seen('POST', /^\/v1\/ocr$/).length;
    const r = await quire('run', join(work, 'harbour.pdf'), '--ocr', 'remoteocr', '-e', 'pdf+md', '-o', join(work, 'out'), '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out)[0];
    // The service's words are checked against the English dictionary like any engine's.
    expect(summary.ocr).toEqual({
      engine: 'remoteocr',
      languages: ['eng'],
      correction: { enabled: true, checked: ['eng'], unchecked: [], corrected: 0, unknown: 2 },
    });
    expect(fake.seen('POST', /^\/v1\/ocr$/).length - before).toBe(1);
    const pdf = join(work, 'out', 'harbour.pdf');
    for (const [page, tag] of [
      [1, 'w300'],
      [2, 'w340'],
    ] as const) {
      const words = pdfWords(pdf, page);
      expect(words.map((w) => w.text).join(' ')).toContain(`The harbour of page ${tag} wakes at dawn with gulls`);
      const gulls = words.find((w) => w.text === 'gulls')!;
      expect(gulls.y0).toBeGreaterThan(0.6);
      expect(gulls.y1).toBeLessThan(0.71);
      const chapter = words.find((w) => w.text === 'Chapter')!;
      expect(chapter.y1).toBeLessThan(0.17);
    }
    const md = await readFile(join(work, 'out', 'harbour.md'), 'utf8');
    expect(md).toContain('The harbour of page w300');
    expect(md).toContain('The harbour of page w340');
  });

  it('says a missing key before any work, and writes nothing', async () => {
    const key = process.env.QUIRE_REMOTEOCR_API_KEY;
    delete process.env.QUIRE_REMOTEOCR_API_KEY;
    const before = fake.requests.length;
    try {
      const r = await quire('run', join(work, 'harbour.pdf'), '--ocr', 'remoteocr:batch', '-o', join(work, 'out'));
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        'quire: The remote OCR engine has no API key; set one with quire config set-secret remoteocr.api_key, or the QUIRE_REMOTEOCR_API_KEY environment variable.\n',
      );
      expect(fake.requests.length).toBe(before);
      expect(existsSync(join(work, 'out'))).toBe(false);
    } finally {
      process.env.QUIRE_REMOTEOCR_API_KEY = key;
    }
  });

  it('aligns the remote text onto a local engine’s word boxes with layout=<engine>', async () => {
    const proj = join(work, 'proj');
    const r = await quire(
      'run',
      join(work, 'harbour.pdf'),
      '--ocr',
      'remoteocr:layout=testlayout',
      '--ocr-lang',
      'eng',
      '-o',
      join(work, 'out'),
      '--keep-project',
      proj,
    );
    expect(r.err).not.toContain('quire:');
    expect(r.code).toBe(0);
    const ocrFiles = (await readdir(join(proj, 'ocr'))).sort();
    expect(ocrFiles.filter((f) => f.endsWith('.local.json'))).toHaveLength(2);
    const remote = JSON.parse(
      await readFile(
        join(
          proj,
          'ocr',
          ocrFiles.find((f) => !f.endsWith('.local.json'))!,
        ),
        'utf8',
      ),
    ) as OcrPage;
    const local = JSON.parse(
      await readFile(
        join(
          proj,
          'ocr',
          ocrFiles.find((f) => f.endsWith('.local.json'))!,
        ),
        'utf8',
      ),
    ) as OcrPage;
    expect(remote.engine).toBe('remoteocr');
    const remoteLines = remote.blocks[0].paragraphs[0].lines;
    const localLines = local.blocks[0].paragraphs[0].lines;
    expect(remoteLines[1].words.map((w) => [w.text, w.box])).toEqual(localLines[1].words.map((w) => [w.text, w.box]));
    expect(remoteLines[0].words.find((w) => w.text === 'harbour')!.box).toEqual(localLines[0].words[2].box);
    const pdfText = pdfWords(join(work, 'out', 'harbour.pdf'), 1);
    expect(pdfText.find((w) => w.text === 'gulls')!.y0).toBeGreaterThan(0.34);
    expect(pdfText.find((w) => w.text === 'gulls')!.y1).toBeLessThan(0.4);
    expect(PAGE_HEIGHT_PTS).toBe(420);
  });
});

describe('a kept project read locally first', () => {
  it('aligns the remote text onto the local result already there, and keeps that one beside it', async () => {
    const proj = join(work, 'proj');
    expect(
      (await quire('run', join(work, 'harbour.pdf'), '--ocr', 'testlayout', '--ocr-lang', 'eng', '-o', join(work, 'local'), '--keep-project', proj)).code,
    ).toBe(0);
    const localFiles = (await readdir(join(proj, 'ocr'))).sort();
    const before = await readFile(join(proj, 'ocr', localFiles[0]), 'utf8');
    const r = await quire('run', proj, '--ocr', 'remoteocr', '-o', join(work, 'out'));
    expect(r.code).toBe(0);
    const files = (await readdir(join(proj, 'ocr'))).sort();
    expect(files).toEqual([...localFiles, ...localFiles.map((f) => f.replace(/\.json$/, '.local.json'))].sort());
    expect(await readFile(join(proj, 'ocr', localFiles[0].replace(/\.json$/, '.local.json')), 'utf8')).toBe(before);
    const remote = JSON.parse(await readFile(join(proj, 'ocr', localFiles[0]), 'utf8')) as OcrPage;
    const local = JSON.parse(before) as OcrPage;
    expect(remote.engine).toBe('remoteocr');
    expect(remote.blocks[0].paragraphs[0].lines[1].words).toEqual(local.blocks[0].paragraphs[0].lines[1].words.map((w) => ({ ...w, confidence: 95 })));
  });
});

describe('quire run --ocr remoteocr:batch, then --check-ocr', () => {
  it('submits, keeps the project, writes the image PDF now and the rest when the batch is done', async () => {
    const out = join(work, 'out');
    const submitted = await quire('run', join(work, 'harbour.pdf'), '--ocr', 'remoteocr:batch', '-e', 'pdf+md', '-o', out);
    expect(submitted.code).toBe(0);
    const proj = join(out, 'harbour-project');
    expect(submitted.out).toContain(`  project kept in ${proj}\n`);
    expect(submitted.out).toContain(`  Finish with: quire run ${proj} --check-ocr\n`);
    expect(submitted.out).toMatch(/OCR submitted as a batch \(batch-\d+-\w+\)/);
    expect((await readdir(out)).sort()).toEqual(['harbour-project', 'harbour.pdf']);
    expect(pdfWords(join(out, 'harbour.pdf'), 1)).toEqual([]);
    const project = JSON.parse(await readFile(join(proj, 'project.json'), 'utf8'));
    expect(project.ocrBatch).toMatchObject({ engine: 'remoteocr', pages: [1, 2], exports: [{ format: 'pdf' }, { format: 'md' }], outDir: out });
    const batchId = project.ocrBatch.ticket.batchIds[0] as string;
    expect(fake.batches.get(batchId)!.metadata).toMatchObject({ project: 'harbour' });

    fake.holdRunning = true;
    const pending = await quire('run', proj, '--check-ocr');
    expect(pending.code).toBe(0);
    expect(pending.out).toMatch(
      new RegExp(
        `^harbour: the OCR batch is still running \\(RUNNING, submitted less than a minute ago\\); check again later with: quire run ${proj} --check-ocr\\n$`,
      ),
    );
    expect(existsSync(join(out, 'harbour.md'))).toBe(false);

    fake.holdRunning = false;
    const done = await quire('run', proj, '--check-ocr', '--json');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out)[0]).toMatchObject({ name: 'harbour', pages: 2, ocr: { engine: 'remoteocr' }, outputs: [{ format: 'pdf' }, { format: 'md' }] });
    expect(
      pdfWords(join(out, 'harbour.pdf'), 2)
        .map((w) => w.text)
        .join(' '),
    ).toContain('The harbour of page w340 wakes at dawn with gulls');
    expect(await readFile(join(out, 'harbour.md'), 'utf8')).toContain('The harbour of page w300');
    expect(JSON.parse(await readFile(join(proj, 'project.json'), 'utf8')).ocrBatch).toBeUndefined();

    const again = await quire('run', proj, '--check-ocr');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/has no OCR batch waiting \(its OCR is done; export it again/);
  });

  it('submits a kept project too, and will not export its text before the batch is done', async () => {
    const proj = join(work, 'proj');
    expect((await quire('run', join(work, 'harbour.pdf'), '-o', join(work, 'plain'), '--keep-project', proj)).code).toBe(0);
    const out = join(work, 'out');
    const submitted = await quire('run', proj, '--ocr', 'remoteocr:batch', '-e', 'md+pdf', '-o', out);
    expect(submitted.code).toBe(0);
    expect(submitted.out).toContain(`  Finish with: quire run ${proj} --check-ocr\n`);
    expect(await readdir(out)).toEqual(['harbour.pdf']);
    const early = await quire('run', proj, '-e', 'md', '-o', out);
    expect(early.code).toBe(2);
    expect(early.err).toBe(`quire: This project's OCR batch is not finished yet; finish it with quire run ${proj} --check-ocr.\n`);
    await quire('run', proj, '--check-ocr');
    const done = await quire('run', proj, '--check-ocr');
    expect(done.code).toBe(0);
    expect(done.out).toMatch(
      /^harbour: 2 frames → 2 pages, OCR remoteocr \(eng\) in [\d.]+ s\n {2}0 words corrected \(eng dictionary, grammar, punctuation\), 2 words left as read[^\n]*\n {2}md: .*harbour\.md/,
    );
    expect((await readdir(out)).sort()).toEqual(['harbour.md', 'harbour.pdf']);
  });

  it('fails with the batch’s reason when the service failed it', async () => {
    const out = join(work, 'out');
    expect((await quire('run', join(work, 'harbour.pdf'), '--ocr', 'remoteocr:batch', '-o', out)).code).toBe(0);
    fake.batchOutcome = 'FAILED';
    await quire('run', join(out, 'harbour-project'), '--check-ocr');
    const failed = await quire('run', join(out, 'harbour-project'), '--check-ocr');
    expect(failed.code).toBe(1);
    expect(failed.err).toBe('quire: The remote OCR service reported the batch as failed.\n');
  });
});
