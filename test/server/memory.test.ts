/**
 * A job that runs out of memory: named as such (not as the image its decoder could not allocate for), converted once
 * more with one page at a time, and failed only if that does not fit either; and, like every job process, it runs
 * at a lower CPU priority than the server. The job's process is a real child
 * process, a stand-in for `job-child.js` that fails its decoding the way libvips does.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { setEnv } from '../helpers.js';
import { multipart, testServer, type TestServer } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/memory-child.mjs', import.meta.url));
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let t: TestServer | undefined;
let restore = (): void => undefined;
let dir = '';
afterEach(async () => {
  await t?.close();
  t = undefined;
  restore();
  await rm(dir, { recursive: true, force: true });
});

async function runHeavy(fits: boolean): Promise<{ status: string; error: string | null; tries: unknown[] }> {
  dir = await mkdtemp(join(tmpdir(), 'quire-memory-'));
  const log = join(dir, 'requests.log');
  restore = setEnv({ QUIRE_TEST_CHILD_LOG: log, QUIRE_TEST_CHILD_FITS: fits ? '1' : '0' });
  t = await testServer({ childScript: CHILD, workers: 4, limits: { jobMemory: 300 * 1024 ** 2, minFreeDisk: 0 } });
  const key = await t.newKey();
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['file', { name: 'heavy.pdf', data: PDF }],
    ]),
  });
  const id = res.json<{ job_id: string }>().job_id;
  await t.server.processor.runNext();
  const job = (await t.server.app.inject({ url: `/check/${id}`, headers: { 'x-api-key': key } })).json<{ status: string; error: string | null }>();
  const lines = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { workers: number | null; nice: number });
  // Every job process runs at a lower CPU priority than the server, so the API stays fast while it converts.
  for (const line of lines) expect(line.nice).toBe(Math.min(19, getPriority() + 10));
  const tries = lines.map((l) => l.workers);
  return { status: job.status, error: job.error, tries };
}

describe('a job out of memory', () => {
  it('is named as memory, not as a bad image, and fails once one page at a time does not fit either', async () => {
    const { status, error, tries } = await runHeavy(false);
    expect(status).toBe('failed');
    expect(error).toBe('heavy.pdf needed more memory than the job limit of 300.0 MiB, so Quire stopped converting it.');
    // The first run with the server's threads, the second with one page at a time; then no more.
    expect(tries).toEqual([4, 1]);
  });

  it('is done when one page at a time fits', async () => {
    const { status, error, tries } = await runHeavy(true);
    expect({ status, error }).toEqual({ status: 'done', error: null });
    expect(tries).toEqual([4, 1]);
  });
});
