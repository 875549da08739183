import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError, type ErrorCode } from '../../src/errors.js';
import { inputType, openInput, type OpenedInput } from '../../src/ingest/index.js';
import { withTempDir } from '../helpers.js';
import { bundleFiles, jpeg, renameInZip, writeBundleFolder, writeBundleZip, writeZip } from './fixtures.js';

async function refusal(open: Promise<OpenedInput>): Promise<QuireError> {
  const error = await open.then(
    (opened) => {
      void opened.close();
      throw new Error('the input was opened, but it should have been refused');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuireError);
  return error as QuireError;
}

async function expectRefused(open: Promise<OpenedInput>, code: ErrorCode, message: string | RegExp): Promise<void> {
  const error = await refusal(open);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  expect(error.code).toBe(code);
}

/** Three pages listed out of order, each image a different size so that they can be told apart. */
async function threePages() {
  const images = [
    { index: 1, file: 'images/0001.jpg', data: await jpeg(40, 30) },
    { index: 2, file: 'images/0002.jpg', data: await jpeg(50, 30) },
    { index: 3, file: 'images/0003.jpg', data: await jpeg(60, 30) },
  ];
  const pages = [images[2], images[0], images[1]].map((i) => JSON.stringify({ index: i.index, file: i.file, captured: 'x', w: 1, h: 1 })).join('\n') + '\n';
  const manifest = { format_version: 1, project: 'Le livre', created: '2026-01-01T00:00:00Z', device: 'webcam', page_count: 3, dpi: 220 };
  return { images, files: bundleFiles({ images, pages, manifest }) };
}

async function expectThreePages(opened: OpenedInput, images: Array<{ file: string; data: Buffer }>): Promise<void> {
  try {
    expect(opened.kind).toBe('bundle');
    expect(opened.name).toBe('Le livre');
    expect(opened.frames.map((f) => [f.index, f.input, f.kind])).toEqual([
      [1, 'images/0001.jpg', 'camera'],
      [2, 'images/0002.jpg', 'camera'],
      [3, 'images/0003.jpg', 'camera'],
    ]);
    expect(opened.frames.every((f) => f.dpi?.value === 220 && f.dpi.source === 'manifest')).toBe(true);
    // Loaded out of order on purpose: each frame reads its own image, byte for byte.
    const third = await opened.frames[2].load();
    const first = await opened.frames[0].load();
    expect(third.data.equals(images[2].data)).toBe(true);
    expect(first.data.equals(images[0].data)).toBe(true);
    expect(first.raw).toBeUndefined();
  } finally {
    await opened.close();
  }
}

describe('scan bundles that open', () => {
  it('reads a zipped bundle, pages in index order, with the manifest resolution', async () => {
    await withTempDir(async (dir) => {
      const { images, files } = await threePages();
      const path = join(dir, 'book.aglbundle');
      await writeBundleZip(path, files);
      expect(inputType(path)).toBe('bundle');
      await expectThreePages(await openInput(path), images);
    });
  });

  it('reads an unpacked bundle folder', async () => {
    await withTempDir(async (dir) => {
      const { images, files } = await threePages();
      const folder = join(dir, 'book.aglbundle');
      await writeBundleFolder(folder, files);
      expect(inputType(folder)).toBe('bundle');
      await expectThreePages(await openInput(folder), images);
    });
  });

  it('reads a bundle zipped inside one folder, ignoring what macOS adds', async () => {
    await withTempDir(async (dir) => {
      const { images, files } = await threePages();
      const path = join(dir, 'book.zip');
      await writeZip(path, [
        ...Object.entries(files).map(([name, data]) => ({ name: `Le livre/${name}`, data })),
        { name: '__MACOSX/Le livre/._manifest.json', data: 'junk' },
      ]);
      await expectThreePages(await openInput(path), images);
    });
  });

  it('reads a bundle folder wrapped in one folder', async () => {
    await withTempDir(async (dir) => {
      const { images, files } = await threePages();
      await writeBundleFolder(join(dir, 'download', 'book'), files);
      await expectThreePages(await openInput(join(dir, 'download')), images);
    });
  });

  it('names the document after the file when the manifest has no project, and leaves dpi unknown without one', async () => {
    await withTempDir(async (dir) => {
      const images = [{ index: 1, file: 'p1.jpg', data: await jpeg(20, 20) }];
      const path = join(dir, 'capture-7.aglbundle');
      await writeBundleZip(path, bundleFiles({ images, manifest: { format_version: 1 } }));
      const opened = await openInput(path);
      expect(opened.name).toBe('capture-7');
      expect(opened.frames[0].dpi).toBeUndefined();
      await opened.close();
    });
  });
});

describe('scan bundles that are refused', () => {
  it('refuses another format version', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'x.aglbundle');
      const images = [{ index: 1, file: 'images/0001.jpg', data: await jpeg(10, 10) }];
      await writeBundleZip(path, bundleFiles({ images, manifest: { format_version: 2, project: 'x' } }));
      await expectRefused(
        openInput(path),
        ERROR_CODES.BUNDLE_VERSION,
        `${path} is not a scan bundle: its manifest.json says format_version 2, and Quire reads version 1.`,
      );
    });
  });

  it('refuses a bundle without manifest.json, or without pages.jsonl', async () => {
    await withTempDir(async (dir) => {
      const files = bundleFiles({ images: [{ index: 1, file: 'images/0001.jpg', data: await jpeg(10, 10) }] });
      const noManifest = join(dir, 'a.aglbundle');
      const { ['manifest.json']: _m, ...withoutManifest } = files;
      await writeBundleZip(noManifest, withoutManifest);
      await expectRefused(
        openInput(noManifest),
        ERROR_CODES.BUNDLE_MISSING,
        `${noManifest} is not a scan bundle: it has no manifest.json at its root or in a folder at its root.`,
      );
      const { ['pages.jsonl']: _p, ...withoutPages } = files;
      const noPages = join(dir, 'b');
      await writeBundleFolder(noPages, withoutPages);
      await expectRefused(openInput(noPages), ERROR_CODES.BUNDLE_MISSING, `${noPages} is not a scan bundle: it has no pages.jsonl beside its manifest.json.`);
    });
  });

  it('refuses malformed JSON, saying which line', async () => {
    await withTempDir(async (dir) => {
      const data = await jpeg(10, 10);
      const badLine = join(dir, 'a.aglbundle');
      await writeBundleZip(
        badLine,
        bundleFiles({
          images: [{ index: 1, file: 'p1.jpg', data }],
          manifest: { format_version: 1 },
          pages: '{"index":1,"file":"p1.jpg"}\n{"index":2,"file":"p2.jpg"\n',
        }),
      );
      await expectRefused(openInput(badLine), ERROR_CODES.BAD_ARCHIVE, `${badLine} is not a readable scan bundle: line 2 of pages.jsonl is not valid JSON.`);
      const badManifest = join(dir, 'b.aglbundle');
      await writeBundleZip(badManifest, bundleFiles({ images: [{ index: 1, file: 'p1.jpg', data }], manifest: '{"format_version": 1,' }));
      await expectRefused(
        openInput(badManifest),
        ERROR_CODES.BAD_ARCHIVE,
        `${badManifest} is not a readable scan bundle: its manifest.json is not valid JSON.`,
      );
    });
  });

  it('refuses a page line naming a missing image, and a page count that does not match', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'x.aglbundle');
      const files = bundleFiles({
        images: [
          { index: 1, file: 'images/0001.jpg', data: await jpeg(10, 10) },
          { index: 2, file: 'images/0002.jpg', data: await jpeg(10, 10) },
        ],
      });
      const { ['images/0002.jpg']: _gone, ...incomplete } = files;
      await writeBundleZip(path, incomplete);
      await expectRefused(
        openInput(path),
        ERROR_CODES.BUNDLE_MISSING,
        `${path} is incomplete: page 2 in pages.jsonl names images/0002.jpg, which is not in the bundle.`,
      );
      const short = join(dir, 'short.aglbundle');
      await writeBundleZip(short, { ...files, 'manifest.json': JSON.stringify({ format_version: 1, page_count: 3 }) });
      await expectRefused(openInput(short), ERROR_CODES.BUNDLE_MISSING, `${short} is incomplete: its manifest.json says 3 pages, but pages.jsonl lists 2.`);
    });
  });

  it('refuses entries whose path escapes the bundle', async () => {
    await withTempDir(async (dir) => {
      const files = bundleFiles({ images: [{ index: 1, file: 'p1.jpg', data: await jpeg(10, 10) }] });
      const cases: Array<[string, string, string]> = [
        ['zz/evil.jpg', '../evil.jpg', 'climbs out of the bundle with ".."'],
        ['zetc/passwd', '/etc/passwd', 'is an absolute path'],
        ['zz_evil.jpg', '..\\evil.jpg', 'contains a backslash'],
        ['zz/evil.jpg', 'C:/evil.jpg', 'starts with a drive letter'],
      ];
      for (const [placeholder, name, why] of cases) {
        const path = join(dir, 'x.aglbundle');
        await writeZip(path, [...Object.entries(files).map(([n, data]) => ({ name: n, data })), { name: placeholder, data: 'x' }]);
        await renameInZip(path, placeholder, name);
        await expectRefused(openInput(path), ERROR_CODES.BUNDLE_UNSAFE_PATH, `${path} is not safe to open: its entry "${name}" ${why}.`);
      }
    });
  });

  it('refuses a pages.jsonl line that points outside the bundle', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'x.aglbundle');
      await writeBundleZip(path, bundleFiles({ manifest: { format_version: 1 }, pages: '{"index":1,"file":"../../etc/passwd"}\n' }));
      await expectRefused(
        openInput(path),
        ERROR_CODES.BUNDLE_UNSAFE_PATH,
        `${path} is not safe to open: line 1 of pages.jsonl names "../../etc/passwd", which climbs out of the bundle with "..".`,
      );
    });
  });

  it('refuses a symbolic link, in a zip and in a folder', async () => {
    await withTempDir(async (dir) => {
      const data = await jpeg(10, 10);
      const files = bundleFiles({
        images: [
          { index: 1, file: 'images/0001.jpg', data },
          { index: 2, file: 'images/0002.jpg', data },
        ],
      });
      const zipped = join(dir, 'x.aglbundle');
      await writeZip(zipped, [
        ...Object.entries(files)
          .filter(([n]) => n !== 'images/0002.jpg')
          .map(([name, d]) => ({ name, data: d })),
        { name: 'images/0002.jpg', data: '/etc/passwd', mode: 0o120777 },
      ]);
      await expectRefused(openInput(zipped), ERROR_CODES.BUNDLE_UNSAFE_PATH, `${zipped} is not safe to open: its entry "images/0002.jpg" is a symbolic link.`);

      const folder = join(dir, 'folder');
      const { ['images/0002.jpg']: _linked, ...rest } = files;
      await writeBundleFolder(folder, rest);
      await writeFile(join(dir, 'outside.jpg'), data);
      await symlink(join(dir, 'outside.jpg'), join(folder, 'images', '0002.jpg'));
      await expectRefused(openInput(folder), ERROR_CODES.BUNDLE_UNSAFE_PATH, `${folder} is not safe to open: images/0002.jpg is a symbolic link.`);
    });
  });

  it('refuses a zip with more than 10,000 entries', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'many.aglbundle');
      const files = bundleFiles({ images: [{ index: 1, file: 'p1.jpg', data: await jpeg(10, 10) }] });
      const items = Object.entries(files).map(([name, data]) => ({ name, data }));
      for (let i = items.length; i < 10_001; i++) items.push({ name: `filler/${i}.txt`, data: '' });
      await writeZip(path, items);
      await expectRefused(
        openInput(path),
        ERROR_CODES.BUNDLE_TOO_LARGE,
        `${path} is not a scan bundle Quire will open: it holds 10,001 entries, more than the 10,000 allowed.`,
      );
    });
  });

  it('refuses a zip bomb: 200 MB of zeros in a tiny archive', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'bomb.aglbundle');
      const files = bundleFiles({
        images: [
          { index: 1, file: 'images/0001.jpg', data: await jpeg(10, 10) },
          { index: 2, file: 'images/0002.jpg', data: Buffer.alloc(0) },
        ],
      });
      await writeZip(path, [
        ...Object.entries(files)
          .filter(([n]) => n !== 'images/0002.jpg')
          .map(([name, data]) => ({ name, data })),
        { name: 'images/0002.jpg', zeros: 200_000_000 },
      ]);
      await expectRefused(
        openInput(path),
        ERROR_CODES.BUNDLE_TOO_LARGE,
        new RegExp(
          `^${escape(path)} is not a scan bundle Quire will open: its entry "images/0002.jpg" would unpack to 190\\.7 MiB from \\d+\\.\\d KiB, which is what a zip bomb does\\.$`,
        ),
      );
    });
  });

  it('refuses an image entry that is not an image', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'x.aglbundle');
      await writeBundleZip(
        path,
        bundleFiles({
          images: [
            { index: 1, file: 'images/0001.jpg', data: await jpeg(10, 10) },
            { index: 2, file: 'images/0002.jpg', data: Buffer.from('<html>not a photo</html>') },
          ],
        }),
      );
      await expectRefused(openInput(path), ERROR_CODES.BAD_IMAGE, `${path} is not a usable scan bundle: images/0002.jpg (page 2) is not an image.`);
    });
  });

  it('refuses a file that is not a zip at all', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'x.aglbundle');
      await writeFile(path, 'PK\u0003\u0004 and then nothing a zip reader wants');
      await expectRefused(openInput(path), ERROR_CODES.BAD_ARCHIVE, `${path} is not a readable scan bundle: it is not a zip file, or it is damaged.`);
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
