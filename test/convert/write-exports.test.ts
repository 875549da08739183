import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeExports } from '../../src/convert/index.js';
import { ExportRegistry, pdfExporter, type Exporter } from '../../src/export/index.js';
import { newManifest, writeFileAtomically } from '../../src/project/index.js';
import { CAN_MOUNT, withTmpfs } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-exporters-'));
  dirs.push(dir);
  return dir;
}

/** A format registered after the built-in ones: the title, upper-cased on request. */
const titleExporter: Exporter = {
  name: 'title',
  description: 'The document title as plain text',
  extension: '.title.txt',
  options: { upper: { description: 'upper-case the title' } },
  async write(target, options) {
    const title = options.upper ? target.manifest.name.toUpperCase() : target.manifest.name;
    const text = Buffer.from(`${title}\n`);
    await writeFileAtomically(target.path, text);
    return text.length;
  },
};

const brokenExporter: Exporter = {
  name: 'broken',
  description: 'Fails every time',
  extension: '.broken',
  options: {},
  async write() {
    throw new Error('disk full');
  },
};

describe('a newly registered exporter', () => {
  it('is parsed from a format list and written by writeExports, named after the document', async () => {
    const registry = new ExportRegistry([pdfExporter, titleExporter]);
    const project = { dir: tempDir(), manifest: newManifest('Les Misérables', []) };
    const out = tempDir();
    const written = await writeExports(project, registry.parse('title:upper'), out, { exporters: registry });
    const path = join(out, 'Les Misérables.title.txt');
    expect(written).toEqual([{ format: 'title', path, bytes: Buffer.byteLength('LES MISÉRABLES\n') }]);
    expect(readFileSync(path, 'utf8')).toBe('LES MISÉRABLES\n');
  });

  it('takes a file stem, and removes what it wrote when a later export fails', async () => {
    const registry = new ExportRegistry([titleExporter, brokenExporter]);
    const project = { dir: tempDir(), manifest: newManifest('Book', []) };
    const out = tempDir();
    await expect(writeExports(project, registry.parse('title+broken'), out, { exporters: registry, fileStem: 'output' })).rejects.toThrow('disk full');
    expect(existsSync(join(out, 'output.title.txt'))).toBe(false);
  });

  it('keeps the files of an earlier run when a later export of a re-run fails, and leaves no staging behind', async () => {
    const registry = new ExportRegistry([titleExporter, brokenExporter]);
    const project = { dir: tempDir(), manifest: newManifest('Book', []) };
    const out = tempDir();
    await writeExports(project, registry.parse('title'), out, { exporters: registry });
    const path = join(out, 'Book.title.txt');
    expect(readFileSync(path, 'utf8')).toBe('Book\n');
    // The re-run's title is written first and would replace the good one; the export after it fails.
    await expect(writeExports(project, registry.parse('title:upper+broken'), out, { exporters: registry })).rejects.toThrow('disk full');
    expect(readFileSync(path, 'utf8')).toBe('Book\n');
    expect(readdirSync(out)).toEqual(['Book.title.txt']);
  });

  it.skipIf(!CAN_MOUNT)('says a full disk in one sentence, with the free space and the estimate, and leaves nothing', async () => {
    const bigExporter: Exporter = {
      name: 'big',
      description: 'More than the disk holds',
      extension: '.big',
      options: {},
      async write(target) {
        await writeFileAtomically(target.path, Buffer.alloc(512 * 1024, 7));
        return 512 * 1024;
      },
    };
    const registry = new ExportRegistry([titleExporter, bigExporter]);
    const project = { dir: tempDir(), manifest: newManifest('Book', []) };
    await withTmpfs('128k', async (out) => {
      writeFileSync(join(out, 'Book.big'), 'an earlier export');
      const error = await writeExports(project, registry.parse('title+big'), out, { exporters: registry, expectedBytes: 600 * 1024 }).then(
        () => new Error('written, on a 128 KiB disk'),
        (e: unknown) => e as Error,
      );
      expect(error.message).toMatch(
        new RegExp(`^Could not write ${out}/Book\\.big: no space is left on the device \\(\\d+(\\.\\d)? (bytes|KiB) free, about 600\\.0 KiB needed\\)\\.$`),
      );
      expect(readdirSync(out)).toEqual(['Book.big']);
      expect(readFileSync(join(out, 'Book.big'), 'utf8')).toBe('an earlier export');
    });
  });

  it('is refused by a registry that does not know it', async () => {
    const project = { dir: tempDir(), manifest: newManifest('Book', []) };
    await expect(writeExports(project, [{ format: 'title', options: {} }], tempDir())).rejects.toThrow('Export format "title" is not available.');
  });
});
