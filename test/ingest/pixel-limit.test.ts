import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../../src/imaging/index.js';
import { openInput } from '../../src/ingest/index.js';
import { withTempDir } from '../helpers.js';
import { bundleFiles, declaredJpeg, jpeg, writeBundleZip } from './fixtures.js';

describe('the pixel limit, checked from the header before anything decodes', () => {
  it('refuses a 1.5 KB bundle whose page declares 16000×9000, naming the page, without decoding it', async () => {
    await withTempDir(async (dir) => {
      const bomb = await declaredJpeg(16000, 9000);
      expect(bomb.length).toBeLessThan(1000);
      const path = join(dir, 'bomb.aglbundle');
      await writeBundleZip(
        path,
        bundleFiles({
          images: [
            { index: 1, file: 'images/0001.jpg', data: await jpeg(40, 30) },
            { index: 2, file: 'images/0002.jpg', data: bomb },
          ],
        }),
      );
      await expect(openInput(path, 'bomb.aglbundle')).rejects.toThrow(
        'bomb.aglbundle: page 2 (images/0002.jpg) is 16000×9000 pixels, more than the 60 megapixels Quire accepts.',
      );
      // Just under the limit opens (a 50-megapixel camera frame is a page, not a bomb).
      const big = join(dir, 'big.aglbundle');
      await writeBundleZip(big, bundleFiles({ images: [{ index: 1, file: 'images/0001.jpg', data: await declaredJpeg(8000, 7000) }] }));
      const opened = await openInput(big, 'big.aglbundle');
      expect(opened.frames).toHaveLength(1);
      await opened.close();
      expect(8000 * 7000).toBeLessThan(MAX_IMAGE_PIXELS);
    });
  });

  it('refuses an image file and a PDF whose image declares too many pixels', async () => {
    await withTempDir(async (dir) => {
      const image = join(dir, 'poster.jpg');
      await writeFile(image, await declaredJpeg(12000, 12000));
      await expect(openInput(image, 'poster.jpg')).rejects.toThrow('poster.jpg is 12000×12000 pixels, more than the 60 megapixels Quire accepts.');

      // A PDF page drawing one image whose dictionary says 20000×20000.
      const doc = await PDFDocument.create();
      const embedded = await doc.embedJpg(
        await sharp({ create: { width: 20, height: 20, channels: 3, background: '#999' } })
          .jpeg()
          .toBuffer(),
      );
      const page = doc.addPage([600, 600]);
      page.drawImage(embedded, { x: 0, y: 0, width: 600, height: 600 });
      const saved = await PDFDocument.load(await doc.save());
      for (const [, object] of saved.context.enumerateIndirectObjects()) {
        if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) {
          object.dict.set(PDFName.of('Width'), PDFNumber.of(20000));
          object.dict.set(PDFName.of('Height'), PDFNumber.of(20000));
        }
      }
      const pdf = join(dir, 'huge.pdf');
      await writeFile(pdf, await saved.save());
      await expect(openInput(pdf, 'huge.pdf')).rejects.toThrow('huge.pdf: page 1 is 20000×20000 pixels, more than the 60 megapixels Quire accepts.');
    });
  });
});
