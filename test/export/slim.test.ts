import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePageImage } from '../../src/project/page-image.js';
import { pdfPagesFromProject, writePdf } from '../../src/export/pdf.js';
import { writeSlim } from '../../src/export/slim.js';
import { openSlim } from '../../src/ingest/slim.js';
import type { ProjectManifest, ProjectPage } from '../../src/project/types.js';
import { bitonalPage, colorPage, grayPage, listImages, makeZip, removeTempDirs, tempDir, tool } from './helpers.js';

let root: string;
let projectDir: string;
let manifest: ProjectManifest;

function page(index: number, file: string, kind: ProjectPage['kind'], width: number, height: number, dpi: number, hidden = false): ProjectPage {
  return {
    index,
    file,
    kind,
    width,
    height,
    dpi,
    hidden: hidden || undefined,
    source: { input: `images/000${index}.jpg`, frame: index, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: dpi, source: 'default' } },
  };
}

async function zipEntries(path: string): Promise<{ name: string; stored: boolean }[]> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const entries: { name: string; stored: boolean }[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push({ name: entry.fileName, stored: entry.compressionMethod === 0 });
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return entries;
}

/** The raw image data pdfimages extracts (G4 as .ccitt, JPEG as .jpg), in page order. */
function extractedImages(pdf: string, dir: string): Buffer[] {
  mkdirSync(dir);
  tool('pdfimages', ['-ccitt', '-j', pdf, join(dir, 'img')]);
  return readdirSync(dir)
    .filter((name) => !name.endsWith('.params'))
    .sort()
    .map((name) => readFileSync(join(dir, name)));
}

afterAll(removeTempDirs);

beforeAll(async () => {
  root = tempDir('slim');
  projectDir = join(root, 'proj');
  mkdirSync(join(projectDir, 'pages'), { recursive: true });
  // An intermediate a slim project must leave behind.
  mkdirSync(join(projectDir, 'work'));
  writeFileSync(join(projectDir, 'work', 'frame-0001.png'), 'intermediate');
  const pages = join(projectDir, 'pages');
  await writePageImage(bitonalPage(320, 200), 'bitonal', 300, join(pages, '0001'));
  await writePageImage(grayPage(240, 180), 'gray', 200, join(pages, '0002'));
  await writePageImage(colorPage(160, 120), 'color', 150, join(pages, '0003'));
  manifest = {
    format: 'quire-project',
    version: 1,
    name: 'Athanase',
    created: '2025-01-02T03:04:05.000Z',
    inputs: ['athanase.aglbundle'],
    pages: [
      page(1, 'pages/0001.tif', 'bitonal', 320, 200, 300),
      page(2, 'pages/0002.jpg', 'gray', 240, 180, 200),
      page(3, 'pages/0003.jpg', 'color', 160, 120, 150, true),
    ],
  };
  writeFileSync(join(projectDir, 'project.json'), JSON.stringify(manifest));
});

describe('slim project', () => {
  it('zips project.json and the page images only, storing JPEG and G4 as they are', async () => {
    const out = join(root, 'book.quire');
    const { bytes } = await writeSlim(projectDir, manifest, out);
    expect(bytes).toBe(readFileSync(out).length);
    const entries = await zipEntries(out);
    expect(entries.map((e) => e.name).sort()).toEqual(['pages/0001.tif', 'pages/0002.jpg', 'pages/0003.jpg', 'project.json']);
    expect(entries.filter((e) => e.name !== 'project.json').every((e) => e.stored)).toBe(true);
    expect(readdirSync(root).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reopens to the same project, and its PDF holds the same page images without reprocessing', async () => {
    const slim = join(root, 'again.quire');
    await writeSlim(projectDir, manifest, slim);
    const opened = await openSlim(slim, join(root, 'reopened'));
    expect(opened.manifest).toEqual(manifest);
    for (const p of manifest.pages) {
      expect(readFileSync(join(opened.dir, p.file)).equals(readFileSync(join(projectDir, p.file)))).toBe(true);
    }

    const before = join(root, 'before.pdf');
    const after = join(root, 'after.pdf');
    await writePdf(pdfPagesFromProject(projectDir, manifest), before, { title: manifest.name });
    await writePdf(pdfPagesFromProject(opened.dir, opened.manifest), after, { title: opened.manifest.name });
    const listed = listImages(after);
    // The hidden colour page stays out of the PDF.
    expect(listed.map((i) => [i.width, i.height, i.encoding, i.xPpi])).toEqual([
      [320, 200, 'ccitt', 300],
      [240, 180, 'jpeg', 200],
    ]);
    expect(listImages(before)).toEqual(listed);
    const imagesBefore = extractedImages(before, join(root, 'img-before'));
    const imagesAfter = extractedImages(after, join(root, 'img-after'));
    expect(imagesAfter).toHaveLength(2);
    imagesAfter.forEach((data, i) => expect(data.equals(imagesBefore[i])).toBe(true));
    // And those are the bytes of the project's files: nothing was decoded and encoded again.
    expect(imagesAfter[1].equals(readFileSync(join(projectDir, 'pages/0002.jpg')))).toBe(true);
  });

  it('refuses a manifest whose page image is missing or outside the project, leaving no file', async () => {
    const missing = { ...manifest, pages: [...manifest.pages, page(4, 'pages/0004.tif', 'bitonal', 16, 16, 300)] };
    await expect(writeSlim(projectDir, missing, join(root, 'missing.quire'))).rejects.toMatchObject({ code: 'bad_project' });
    const escaping = { ...manifest, pages: [page(1, '../secret.jpg', 'gray', 16, 16, 300)] };
    await expect(writeSlim(projectDir, escaping, join(root, 'escaping.quire'))).rejects.toMatchObject({ code: 'bad_project' });
    expect(readdirSync(root).filter((name) => name.startsWith('missing') || name.startsWith('escaping') || name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('openSlim refuses', () => {
  const projectJson = (): Buffer => Buffer.from(JSON.stringify(manifest));
  const pageFiles = (): { name: string; data: Buffer }[] => manifest.pages.map((p) => ({ name: p.file, data: readFileSync(join(projectDir, p.file)) }));

  async function openError(entries: Parameters<typeof makeZip>[0] | Buffer): Promise<{ code: string; message: string; dir: string; path: string }> {
    const dir = tempDir('slim-bad');
    const path = join(dir, 'bad.quire');
    writeFileSync(path, Buffer.isBuffer(entries) ? entries : makeZip(entries));
    const workDir = join(dir, 'open');
    const error = (await openSlim(path, workDir).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: string; message: string } | undefined;
    if (!error) throw new Error('openSlim accepted a bad slim project');
    // Nothing is left behind in the folder it was asked to open into, nor beside it.
    expect(readdirSync(workDir)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['bad.quire', 'open']);
    return { code: error.code, message: error.message, dir: workDir, path };
  }

  it('a path that escapes the folder', async () => {
    for (const name of ['../evil.jpg', '/etc/evil.jpg', 'pages/../../evil.jpg', 'pages\\..\\evil.jpg', 'C:/evil.jpg']) {
      const error = await openError([
        { name: 'project.json', data: projectJson() },
        { name, data: Buffer.from('x') },
      ]);
      expect(error.code, name).toBe('bundle_unsafe_path');
    }
  });

  it('a symbolic link', async () => {
    const error = await openError([
      { name: 'project.json', data: projectJson() },
      { name: 'pages/link.jpg', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    expect(error).toMatchObject({ code: 'bundle_unsafe_path', message: `${error.path} is not safe to open: its entry "pages/link.jpg" is a symbolic link.` });
  });

  it('a missing page image, another format or version, broken JSON, and a file that is not a zip', async () => {
    const withoutPage = pageFiles().slice(1);
    expect(await openError([{ name: 'project.json', data: projectJson() }, ...withoutPage])).toMatchObject({
      code: 'bad_project',
      message: 'The image of page 1 is missing from the project.',
    });
    const version2 = Buffer.from(JSON.stringify({ ...manifest, version: 2 }));
    expect((await openError([{ name: 'project.json', data: version2 }, ...pageFiles()])).message).toBe(
      'The project.json of the slim project has version 2, and this Quire reads version 1.',
    );
    const other = Buffer.from(JSON.stringify({ ...manifest, format: 'aglbundle' }));
    expect((await openError([{ name: 'project.json', data: other }, ...pageFiles()])).code).toBe('bad_project');
    expect((await openError([{ name: 'project.json', data: Buffer.from('{') }, ...pageFiles()])).code).toBe('bad_project');
    expect((await openError(pageFiles())).message).toBe('The slim project has no project.json.');
    expect((await openError(Buffer.from('not a zip at all'))).code).toBe('bad_archive');
  });

  it('a page entry that names a file outside the project', async () => {
    const escaping = Buffer.from(JSON.stringify({ ...manifest, pages: [{ ...manifest.pages[0], file: '../../etc/passwd' }] }));
    expect((await openError([{ name: 'project.json', data: escaping }, ...pageFiles()])).message).toBe(
      'The project.json of the slim project has an unusable entry for page 1.',
    );
  });

  it('a folder that is not empty', async () => {
    const dir = tempDir('slim-busy');
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    await expect(openSlim(join(root, 'book.quire'), dir)).rejects.toMatchObject({ code: 'output' });
    expect(readdirSync(dir)).toEqual(['keep.txt']);
  });
});

describe("openSlim limits (the scan bundles' safe zip reader)", () => {
  it('refuses archives with too many entries or that unpack to far more than their size (zip bombs)', async () => {
    const dir = tempDir('zip-limits');
    const many = join(dir, 'many.quire');
    writeFileSync(many, makeZip(Array.from({ length: 10_001 }, (_, n) => ({ name: `f${n}`, data: Buffer.from('x') }))));
    await expect(openSlim(many, join(dir, 'a'))).rejects.toMatchObject({
      code: 'bundle_too_large',
      message: `${many} is not a slim project Quire will open: it holds 10,001 entries, more than the 10,000 allowed.`,
    });
    const bomb = join(dir, 'bomb.quire');
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(JSON.stringify(manifest)), 'project.json');
    zip.addBuffer(Buffer.alloc(64 << 20), 'pages/0001.tif', { compress: true });
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    writeFileSync(bomb, Buffer.concat(chunks));
    await expect(openSlim(bomb, join(dir, 'b'))).rejects.toMatchObject({ code: 'bundle_too_large', message: expect.stringMatching(/zip bomb/) });
    expect(readdirSync(join(dir, 'b'))).toEqual([]);
  });

  it('refuses a name given twice before writing anything', async () => {
    const dir = tempDir('zip-twice');
    const path = join(dir, 'twice.quire');
    writeFileSync(
      path,
      makeZip([
        { name: 'a.txt', data: Buffer.from('one') },
        { name: 'a.txt', data: Buffer.from('two') },
      ]),
    );
    await expect(openSlim(path, join(dir, 'out'))).rejects.toMatchObject({ code: 'bad_archive' });
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
  });
});
