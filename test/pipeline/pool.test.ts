// The frame pool runs frames on worker threads whether the caller runs from the build or from the TypeScript sources
// (as here): the threads run the build's worker (`dist/pipeline/worker.js`), and their pages are the ones the
// pipeline makes in this thread.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createFramePool } from '../../src/pipeline/index.js';
import { photograph, renderTextPage } from './synthetic-text.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the frame pool', () => {
  it('runs a frame on a worker thread from the sources, making the page this thread makes', async () => {
    const capture = await photograph(await renderTextPage({ widthMm: 80, heightMm: 100, dpi: 150, marginMm: 10, seed: 5 }), { left: 200, right: 180 });
    const data = await sharp(capture.data, { raw: { width: capture.width, height: capture.height, channels: 1 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const page = async (size: number): Promise<Buffer> => {
      const dir = await mkdtemp(join(tmpdir(), 'quire-pool-'));
      dirs.push(dir);
      await mkdir(join(dir, 'pages'));
      const pool = createFramePool(size);
      try {
        expect(pool.size).toBe(Math.max(1, size));
        // The pool takes the frame's bytes (they are handed to the thread without a copy): a copy for each run.
        const { pages } = await pool.run({
          frame: { data: Buffer.from(data) },
          input: 'page.jpg',
          frameIndex: 1,
          kind: 'camera',
          preset: 'sheet',
          marginMm: 4,
          projectDir: dir,
          reading: false,
        });
        expect(pages.map((p) => p.file)).toEqual(['pages/0001-single.tif']);
        return await readFile(join(dir, 'pages', '0001-single.tif'));
      } finally {
        await pool.close();
      }
    };
    expect(await page(1)).toEqual(await page(0));
  });

  it('stops the frame in its thread and the one waiting for a thread when closed: neither is left unanswered', async () => {
    const capture = await photograph(await renderTextPage({ widthMm: 80, heightMm: 100, dpi: 150, marginMm: 10, seed: 6 }), { left: 200, right: 180 });
    const data = await sharp(capture.data, { raw: { width: capture.width, height: capture.height, channels: 1 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const dir = await mkdtemp(join(tmpdir(), 'quire-pool-'));
    dirs.push(dir);
    const pool = createFramePool(1);
    const frame = (frameIndex: number): Promise<unknown> =>
      pool.run({
        frame: { data: Buffer.from(data) },
        input: 'page.jpg',
        frameIndex,
        kind: 'camera',
        preset: 'sheet',
        marginMm: 4,
        projectDir: dir,
        reading: false,
      });
    // One thread: the first frame takes it, the second waits for it (as the lane one ahead of the threads does).
    const outcomes = [frame(1), frame(2)].map((p) =>
      p.then(
        () => 'made',
        (e: Error) => e.message,
      ),
    );
    await pool.close();
    expect(await Promise.all(outcomes)).toEqual(['The conversion was stopped.', 'The conversion was stopped.']);
  });
});
