import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeExports } from '../../src/convert/index.js';
import { ExportRegistry, pdfExporter, type Exporter } from '../../src/export/index.js';
import { newManifest, writeFileAtomically } from '../../src/project/index.js';

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

  it('is refused by a registry that does not know it', async () => {
    const project = { dir: tempDir(), manifest: newManifest('Book', []) };
    await expect(writeExports(project, [{ format: 'title', options: {} }], tempDir())).rejects.toThrow('Export format "title" is not available.');
  });
});
