// The job server reads with an OCR engine plugin the operator installed: `ocr=<name>` on /run, as a client sends it.
// Runs the built CLI (`npm run build` first), as process.test.ts does.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QUIRE_BIN, runQuire, SAMPLE } from '../helpers.js';
import { waitFor } from './helpers.js';

let home = '';
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (home) await rm(home, { recursive: true, force: true });
});

describe('ocr=<plugin> on the job server', () => {
  it('converts a job with the tesseract-own-model engine the operator installed, and refuses one nobody installed', async () => {
    home = await mkdtemp(join(tmpdir(), 'quire-home-'));
    const env = { QUIRE_HOME: home };
    expect((await runQuire(['plugins', 'install', 'tesseract-own-model'], { env })).code).toBe(0);
    copyFileSync('/usr/share/tesseract-ocr/5/tessdata/eng.traineddata', join(home, 'plugins', 'data', 'tesseract-own-model', 'files', 'mine.traineddata'));

    child = spawn(process.execPath, [QUIRE_BIN, 'server', '--port', '0', '--workers', '1'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(async () => /Admin panel: .*\n/.test(out) || child?.exitCode !== null, 90_000);
    const address = /^Quire server listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1];
    const admin = new URL(/^Admin panel: (\S+)$/m.exec(out)![1]);
    const keyForm = new FormData();
    keyForm.set('email', 'reader@example.org');
    const key = ((await (await fetch(`${address}/admin/keys${admin.search}`, { method: 'POST', body: keyForm })).json()) as { api_key: string }).api_key;

    const submit = async (ocr: string): Promise<string> => {
      const form = new FormData();
      form.set('api_key', key);
      form.set('ocr', ocr);
      form.set('file', new Blob([new Uint8Array(await readFile(SAMPLE))]), 'sample.aglbundle');
      const res = await fetch(`${address}/run`, { method: 'POST', body: form });
      expect(res.status).toBe(200);
      return ((await res.json()) as { job_id: string }).job_id;
    };
    const check = async (id: string): Promise<{ status: string; error: string | null }> =>
      (await fetch(`${address}/check/${id}?api_key=${key}`)).json() as Promise<{ status: string; error: string | null }>;

    const id = await submit('tesseract-own-model:lang=mine');
    const done = await waitFor(
      async () => {
        const s = await check(id);
        return s.status === 'done' || s.status === 'failed' ? s : undefined;
      },
      240_000,
      500,
    );
    expect(done).toMatchObject({ status: 'done', error: null });
    const get = (await (await fetch(`${address}/get/${id}?api_key=${key}`)).json()) as { md_url: string | null };
    expect(get.md_url).not.toBeNull();
    const md = await (await fetch(get.md_url!)).text();
    const truth = JSON.stringify(JSON.parse(await readFile(SAMPLE.replace(/\.aglbundle$/, '.truth.json'), 'utf8')));
    const words = [...new Set(truth.match(/[A-Za-z]{6,}/g) ?? [])];
    expect(words.filter((w) => md.includes(w)).length).toBeGreaterThan(20);

    const missing = await submit('no-such-engine');
    const failed = await waitFor(
      async () => {
        const s = await check(missing);
        return s.status === 'done' || s.status === 'failed' ? s : undefined;
      },
      120_000,
      500,
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('Unknown OCR engine "no-such-engine"');
  }, 400_000);
});
