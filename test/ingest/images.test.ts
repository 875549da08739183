import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import { decodeGray } from '../../src/imaging/index.js';
import { inputType, openImages, openInput, type OpenedInput } from '../../src/ingest/index.js';
import { withTempDir } from '../helpers.js';

function page(background: string, width = 120, height = 80): Sharp {
  return sharp({ create: { width, height, channels: 3, background } });
}

async function refusal(open: Promise<OpenedInput>): Promise<QuireError> {
  const error = await open.then(
    () => new Error('the input was opened, but it should have been refused'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuireError);
  return error as QuireError;
}

describe('image files', () => {
  it('takes a 300 dpi PNG as a scan, loading the file as it is', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'page-12.png');
      const png = await page('#eeeeee').withMetadata({ density: 300 }).png().toBuffer();
      await writeFile(path, png);
      expect(inputType(path)).toBe('image');
      const opened = await openInput(path);
      expect(opened.name).toBe('page-12');
      expect(opened.kind).toBe('images');
      const [frame] = opened.frames;
      expect([frame.index, frame.input, frame.kind, frame.dpi]).toEqual([1, 'page-12.png', 'scan', { value: 300, source: 'image' }]);
      const image = await frame.load();
      expect(image.data.equals(png)).toBe(true);
      expect(image.page).toBeUndefined();
    });
  });

  it('tells camera photos from scanned JPEGs', async () => {
    await withTempDir(async (dir) => {
      const files = {
        // A JPEG that says 72 dpi, as every camera and editor does when it does not know.
        'plain.jpg': await page('#888888').jpeg().toBuffer(),
        // A camera's EXIF (exposure, aperture): its resolution says nothing about the page.
        'camera.jpg': await page('#888888')
          .withExif({ IFD0: { Make: 'Canon', Model: 'EOS' }, IFD2: { ExposureTime: '1/60', FNumber: '4' } })
          .withMetadata({ density: 300 })
          .jpeg()
          .toBuffer(),
        // A scanner's JPEG: a real resolution, a make and model, and no exposure.
        'scanner.jpg': await page('#888888')
          .withExif({ IFD0: { Make: 'Fujitsu', Model: 'ScanSnap' } })
          .withMetadata({ density: 400 })
          .jpeg()
          .toBuffer(),
      };
      const paths = [];
      for (const [name, data] of Object.entries(files)) {
        paths.push(join(dir, name));
        await writeFile(join(dir, name), data);
      }
      const opened = await openImages(paths);
      expect(opened.name).toBe(basename(dir));
      expect(opened.frames.map((f) => [f.index, f.input, f.kind, f.dpi?.value])).toEqual([
        [1, 'plain.jpg', 'camera', undefined],
        [2, 'camera.jpg', 'camera', undefined],
        [3, 'scanner.jpg', 'scan', 400],
      ]);
    });
  });

  it('gives one frame per page of a multi-page TIFF', async () => {
    await withTempDir(async (dir) => {
      const white = await page('#ffffff').png().toBuffer();
      const black = await page('#000000').png().toBuffer();
      const path = join(dir, 'scan.tif');
      await sharp([white, black], { join: { animated: true } })
        .withMetadata({ density: 300 })
        .tiff({ compression: 'lzw' })
        .toFile(path);
      const opened = await openInput(path);
      expect(opened.frames.map((f) => [f.index, f.input, f.kind, f.dpi?.value])).toEqual([
        [1, 'scan.tif#1', 'scan', 300],
        [2, 'scan.tif#2', 'scan', 300],
      ]);
      const second = await opened.frames[1].load();
      expect(second.page).toBe(1);
      const gray = await decodeGray(second.data, { page: second.page });
      expect([gray.width, gray.height, gray.data[0]]).toEqual([120, 80, 0]);
    });
  });

  it('keeps EXIF orientation for the decoder: a turned photo decodes upright', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'turned.jpg');
      // Stored 300 × 200, to be shown turned a quarter (orientation 6).
      await page('#777777', 300, 200).withMetadata({ orientation: 6 }).jpeg().toFile(path);
      const opened = await openInput(path);
      const gray = await decodeGray((await opened.frames[0].load()).data);
      expect([gray.width, gray.height]).toEqual([200, 300]);
    });
  });

  it('opens WebP', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'phone.webp');
      await page('#abcdef').webp().toFile(path);
      const opened = await openInput(path);
      expect(opened.frames.map((f) => [f.input, f.kind])).toEqual([['phone.webp', 'camera']]);
    });
  });
});

describe('inputs that are refused', () => {
  it('refuses a file that is not an image, and one of several', async () => {
    await withTempDir(async (dir) => {
      const fake = join(dir, 'photo.jpg');
      await writeFile(fake, 'this is a text file, whatever its name says\n');
      for (const open of [() => openInput(fake), () => openImages([fake])]) {
        const error = await refusal(open());
        expect(error.message).toBe(`${fake} is not an image Quire can read (JPEG, PNG, TIFF or WebP).`);
        expect(error.code).toBe(ERROR_CODES.BAD_IMAGE);
      }
      const good = join(dir, 'good.png');
      await page('#ffffff').png().toFile(good);
      expect((await refusal(openImages([good, fake]))).message).toBe(`${fake} is not an image Quire can read (JPEG, PNG, TIFF or WebP).`);
    });
  });

  it('refuses a missing file, and a file of no kind Quire knows', async () => {
    await withTempDir(async (dir) => {
      const missing = join(dir, 'nowhere.pdf');
      const error = await refusal(openInput(missing));
      expect([error.code, error.message]).toEqual([ERROR_CODES.INPUT_NOT_FOUND, `${missing} was not found.`]);
      const missingImage = join(dir, 'nowhere.png');
      expect((await refusal(openImages([missingImage]))).code).toBe(ERROR_CODES.INPUT_NOT_FOUND);

      const notes = join(dir, 'notes.txt');
      await writeFile(notes, 'shopping list');
      const unknown = await refusal(openInput(notes));
      expect([unknown.code, unknown.message]).toEqual([ERROR_CODES.UNSUPPORTED_INPUT, `${notes} is not a scan bundle, PDF or image that Quire can read.`]);
      expect(inputType(notes)).toBeNull();
    });
  });

  it('recognises inputs by content first, then by name', async () => {
    await withTempDir(async (dir) => {
      const misnamed = join(dir, 'really-a-png.pdf');
      await page('#ffffff').png().toFile(misnamed);
      expect(inputType(misnamed)).toBe('image');
      expect((await openInput(misnamed)).frames).toHaveLength(1);
      expect(inputType(join(dir, 'not-yet.pdf'))).toBe('pdf');
      expect(inputType(join(dir, 'book.quire'))).toBe('project');
      const project = join(dir, 'work');
      await mkdir(project);
      await writeFile(join(project, 'project.json'), '{}');
      expect(inputType(project)).toBe('project');
      expect((await refusal(openInput(project))).code).toBe(ERROR_CODES.UNSUPPORTED_INPUT);
    });
  });
});
