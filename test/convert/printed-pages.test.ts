/**
 * The printed page numbers and running heads are kept in the project when OCR runs, and the Markdown export uses
 * them: here the synthetic book's six pages, "recognised" by an engine that returns their known words.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recognize, writeExports } from '../../src/convert/index.js';
import { parseExportList } from '../../src/export/index.js';
import { registerOcrEngine } from '../../src/ocr/index.js';
import { loadManifest, newManifest, saveManifest, type ProjectManifest } from '../../src/project/index.js';
import { bookCorpus } from '../export/book-corpus.js';

const corpus = bookCorpus();
const work = mkdtempSync(join(tmpdir(), 'quire-printed-'));
const projectDir = join(work, 'project');
let manifest: ProjectManifest;

beforeAll(async () => {
  registerOcrEngine({
    name: 'bookcorpus',
    display: 'The synthetic book, for tests',
    description: 'Returns the known words of each page of the synthetic book.',
    available: async () => ({ ok: true }),
    languages: () => ['fra', 'lat'],
    // The page's number is in its file name (`pages/0003.png`).
    recognize: async (input) => corpus.pages[Number(/(\d+)\.png$/u.exec(input.file)?.[1]) - 1].ocr,
  });
  manifest = newManifest('Les Confessions', ['confessions.aglbundle']);
  manifest.pages = corpus.pages.map((page, i) => ({
    index: i + 1,
    file: `pages/${String(i + 1).padStart(4, '0')}.png`,
    kind: 'bitonal',
    width: page.ocr.width,
    height: page.ocr.height,
    dpi: page.ocr.dpi,
    source: { input: 'images/0001.jpg', frame: i + 1, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: 300, source: 'manifest' } },
  }));
  mkdirSync(projectDir);
  await saveManifest(projectDir, manifest);
  await recognize({ dir: projectDir, manifest }, 'bookcorpus', { ocrLang: 'fra+lat' });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('printed page numbers in the project', () => {
  it('are noted in project.json when OCR runs, with the running heads', async () => {
    const saved = await loadManifest(projectDir);
    // As the dictionary correction leaves them: "SEPTIEME" gets its accent and "C0NFESSIONS" its O back (one
    // candidate each); "CONFESSLONS" (L for I, not a known confusion) stays as read.
    expect(saved.pages.map((p) => p.printed)).toEqual([
      { folio: '141' },
      { folio: '142', runningHead: 'LES CONFESSIONS' },
      { folio: '143', runningHead: 'LIVRE SEPTIÈME, 1' },
      { folio: '144', runningHead: 'LES CONFESSLONS' },
      { folio: '145', runningHead: 'LIVRE SEPTIÈME, 2' },
      { folio: '146', runningHead: 'LES CONFESSIONS' },
    ]);
  });

  it('mark the Markdown’s pages, as corrected in the project, and md:pages=off leaves the markers out', async () => {
    const saved = await loadManifest(projectDir);
    saved.pages[0].printed = { folio: 'cxli' };
    const out = join(work, 'out');
    const [md] = await writeExports({ dir: projectDir, manifest: saved }, parseExportList('md'), out);
    const markdown = readFileSync(md.path, 'utf8');
    expect(markdown.match(/<!-- page .* -->/gu)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `<!-- page ${n} (p. ${n === 1 ? 'cxli' : 140 + n}) -->`));
    expect(markdown).toContain('par les yeux[^12]');

    const [plain] = await writeExports({ dir: projectDir, manifest: saved }, parseExportList('md:pages=off'), join(work, 'plain'));
    const withoutMarkers = readFileSync(plain.path, 'utf8');
    expect(withoutMarkers).not.toContain('<!-- page');
    expect(withoutMarkers).toBe(markdown.replace(/<!-- page [^>]* -->\n\n/gu, ''));
  });
});
