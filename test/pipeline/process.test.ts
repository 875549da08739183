import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { processFrame } from '../../src/pipeline/process.js';
import { photograph, renderTextPage } from './synthetic-text.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('a frame through the pipeline', () => {
  it('makes no reading image when the run reads no text, and the same page as otherwise', async () => {
    // A 150-dpi camera capture of a page: enlarged to 300 dpi, sharpened, thresholded.
    const capture = await photograph(await renderTextPage({ widthMm: 80, heightMm: 100, dpi: 150, marginMm: 10, seed: 3 }), { left: 220, right: 160 });
    const data = await sharp(capture.data, { raw: { width: capture.width, height: capture.height, channels: 1 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const run = async (reading?: boolean): Promise<{ dir: string; ocrImage?: string; files: string[] }> => {
      const dir = await mkdtemp(join(tmpdir(), 'quire-frame-'));
      dirs.push(dir);
      await mkdir(join(dir, 'pages'));
      const task = { frame: { data }, input: 'page.jpg', frameIndex: 1, kind: 'camera' as const, preset: 'sheet' as const, marginMm: 4, projectDir: dir };
      const { pages } = await processFrame(reading === undefined ? task : { ...task, reading });
      expect(pages).toHaveLength(1);
      return { dir, ocrImage: pages[0].ocrImage, files: (await readdir(join(dir, 'pages'))).sort() };
    };
    const read = await run();
    const unread = await run(false);
    expect(read.ocrImage).toBe('pages/0001-single.ocr.jpg');
    expect(read.files).toEqual(['0001-single.ocr.jpg', '0001-single.tif']);
    expect(unread.ocrImage).toBeUndefined();
    expect(unread.files).toEqual(['0001-single.tif']);
    // The page the PDF shows is the same, byte for byte.
    expect(await readFile(join(unread.dir, 'pages', '0001-single.tif'))).toEqual(await readFile(join(read.dir, 'pages', '0001-single.tif')));
  });
});
