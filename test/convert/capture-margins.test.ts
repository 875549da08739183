/**
 * What a project keeps and exports from two made captures, "recognised" by an engine that returns their known words:
 * a critical text's reference numbers in the margin (kept as markers in the Markdown, or dropped with
 * `md:refs=drop`), and a two-page capture named after its page range (`pp. 576-577`), whose first folio was misread.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recognize, writeExports } from '../../src/convert/index.js';
import { parseExportList } from '../../src/export/index.js';
import { registerOcrEngine } from '../../src/ocr/index.js';
import { loadManifest, newManifest, saveManifest, type OcrPage } from '../../src/project/index.js';
import { MARGIN_TEXT, REFERENCE_BLOCKS, referencePage } from '../export/margin-captures.js';
import { shortCaptures } from '../export/short-captures.js';

const work = mkdtempSync(join(tmpdir(), 'quire-capture-margins-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A project of `pages`, named `name`, recognised by an engine that returns them. */
async function recognised(name: string, engine: string, pages: OcrPage[]): Promise<string> {
  registerOcrEngine({
    name: engine,
    display: 'Made pages, for tests',
    description: 'Returns the known words of each made page.',
    available: async () => ({ ok: true }),
    languages: () => ['fra', 'lat'],
    // The page's number is in its file name (`pages/0002.png`).
    recognize: async (input) => pages[Number(/(\d+)\.png$/u.exec(input.file)?.[1]) - 1],
  });
  const dir = join(work, engine);
  const manifest = newManifest(name, [`${name}.aglbundle`]);
  manifest.pages = pages.map((page, i) => ({
    index: i + 1,
    file: `pages/${String(i + 1).padStart(4, '0')}.png`,
    kind: 'bitonal',
    width: page.width,
    height: page.height,
    dpi: page.dpi,
    source: { input: `images/000${i + 1}.jpg`, frame: i + 1, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: 300, source: 'manifest' } },
  }));
  mkdirSync(dir);
  await saveManifest(dir, manifest);
  await recognize({ dir, manifest }, engine, { ocrLang: 'lat', correct: false });
  return dir;
}

const blocks = (markdown: string): string[] =>
  markdown
    .trim()
    .split('\n\n')
    .filter((b) => !b.startsWith('<!-- page'));

describe('reference numbers in the margin of a project', () => {
  it('are <!-- ref N --> markers in the Markdown, and md:refs=drop leaves them out', async () => {
    const dir = await recognised('Confessiones', 'made-references', [referencePage('apart')]);
    const manifest = await loadManifest(dir);
    const [kept] = await writeExports({ dir, manifest }, parseExportList('md'), join(work, 'kept'));
    expect(blocks(readFileSync(kept.path, 'utf8'))).toEqual(REFERENCE_BLOCKS);
    const [dropped] = await writeExports({ dir, manifest }, parseExportList('md:refs=drop'), join(work, 'dropped'));
    expect(blocks(readFileSync(dropped.path, 'utf8'))).toEqual([MARGIN_TEXT]);
  });
});

describe('a capture named after its page range', () => {
  it('notes the folio the range gives where the first page’s was misread, and the Markdown marks it', async () => {
    const four = shortCaptures().find((c) => c.name.startsWith('four pages'));
    if (!four) throw new Error('no four-page capture');
    // Its first page's folio was read 516, and a second page alone cannot mend it.
    const dir = await recognised('Confessions VII, pp. 576-577', 'made-range', four.pages.slice(0, 2));
    const manifest = await loadManifest(dir);
    expect(manifest.pages.map((p) => p.printed?.folio)).toEqual(['576', '577']);
    const [md] = await writeExports({ dir, manifest }, parseExportList('md'), join(work, 'range'));
    expect(readFileSync(md.path, 'utf8').match(/<!-- page .* -->/gu)).toEqual(['<!-- page 1 (p. 576) -->', '<!-- page 2 (p. 577) -->']);
  });
});
