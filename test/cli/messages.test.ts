import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { runQuire, withTempDir } from '../helpers.js';
import { bundleFiles, declaredJpeg, jpeg, writeBundleZip } from '../ingest/fixtures.js';

/** A small PNG whose header declares `width`×`height` (its IHDR checksum made right, so only the size is odd). */
async function declaredPng(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } })
      .png()
      .toBuffer(),
  );
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29);
  return png;
}

const tooLarge = (what: string, w: number, h: number): string => `quire: ${what} is ${w}×${h} pixels, more than the 60 megapixels Quire accepts.\n`;

describe('messages', () => {
  it('the megapixel sentence for any declared size over the limit, in an image file or a bundle', async () => {
    await withTempDir(async (dir) => {
      for (const [file, data, w, h] of [
        ['poster.png', await declaredPng(16000, 9000), 16000, 9000],
        ['huge.png', await declaredPng(100000, 100000), 100000, 100000],
        ['huge.jpg', await declaredJpeg(65535, 65535), 65535, 65535],
      ] as const) {
        await writeFile(join(dir, file), data);
        const r = await runQuire(['run', join(dir, file), '-o', join(dir, 'out')]);
        expect({ file, code: r.code, stderr: r.stderr }).toEqual({ file, code: 1, stderr: tooLarge(file, w, h) });
      }
      const bundle = join(dir, 'bomb.aglbundle');
      await writeBundleZip(
        bundle,
        bundleFiles({
          images: [
            { index: 1, file: 'images/0001.jpg', data: await jpeg(40, 30) },
            { index: 2, file: 'images/0002.png', data: await declaredPng(100000, 100000) },
          ],
        }),
      );
      const r = await runQuire(['run', bundle, '-o', join(dir, 'out')]);
      expect(r.stderr).toBe(tooLarge(`${bundle}: page 2 (images/0002.png)`, 100000, 100000));
    });
  });

  it('an image of a bundle that fails half-way names the bundle', async () => {
    await withTempDir(async (dir) => {
      // A JPEG cut short: its header passes the checks, its pixels do not decode.
      const noisy = await sharp(Buffer.from(Array.from({ length: 600 * 400 }, (_, i) => (i * 7919) % 251)), { raw: { width: 600, height: 400, channels: 1 } })
        .jpeg()
        .toBuffer();
      const bundle = join(dir, 'cut.aglbundle');
      await writeBundleZip(bundle, bundleFiles({ images: [{ index: 1, file: 'images/0001.jpg', data: noisy.subarray(0, 3000) }] }));
      const r = await runQuire(['run', bundle, '--pipeline', 'flat', '-o', join(dir, 'out')]);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n').filter((line) => line.startsWith('quire:'))).toEqual([`quire: ${bundle}: images/0001.jpg is not an image Quire can read.`]);
    });
  });

  it('usage errors in one voice, with real line breaks and no escaped control characters', async () => {
    const r = await runQuire(['run', 'book.pdf', '--jsn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("quire: unknown option '--jsn'\n(Did you mean --json?)\n");
    const command = await runQuire(['plugins', 'lst']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^quire: unknown command 'lst'\n\(Did you mean list\?\)\n/);
    expect(command.stderr).not.toContain('\\x');
  });
});
