import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, processPages } from '../../src/convert/index.js';
import { readZip, SAMPLE } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-stopped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder bundle of the example's three frames twice over. */
async function sixFrames(): Promise<string> {
  const files = await readZip(SAMPLE);
  const images = [...files.keys()].filter((name) => name.startsWith('images/')).sort();
  const bundle = join(dir, 'six.aglbundle');
  mkdirSync(join(bundle, 'images'), { recursive: true });
  const lines: string[] = [];
  for (let i = 1; i <= 6; i++) {
    const file = `images/${String(i).padStart(4, '0')}.jpg`;
    writeFileSync(join(bundle, file), files.get(images[(i - 1) % images.length])!);
    lines.push(JSON.stringify({ index: i, file, captured: '2025-03-14T10:21:05Z', w: 1920, h: 1080 }));
  }
  writeFileSync(join(bundle, 'pages.jsonl'), `${lines.join('\n')}\n`);
  const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as Record<string, unknown>;
  writeFileSync(join(bundle, 'manifest.json'), JSON.stringify({ ...manifest, page_count: 6 }));
  return bundle;
}

describe('a conversion stopped while its pages are made', () => {
  it('leaves in a kept project no page its thread encoded on a guessed page size', async () => {
    const project = join(dir, 'project');
    const doc = await openDocument(await sixFrames(), { projectDir: project });
    const controller = new AbortController();
    const seen: string[][] = [];
    // One thread, frames in order: the third frame's pages are set on the canvas its thread guesses from the first
    // frame's two; the run is stopped as they are handed on, before the last frames and the page-size pass.
    const run = processPages(doc, {
      workers: 1,
      signal: controller.signal,
      onPages: () => {
        seen.push(readdirSync(join(project, 'pages')));
        if (seen.length === 3) controller.abort();
      },
    });
    await expect(run).rejects.toThrow('The conversion was cancelled.');
    // The guesses were there while the run went on, and are gone once it stopped.
    expect(seen[2].filter((name) => name.endsWith('.g4.tif')).length).toBeGreaterThan(0);
    expect(readdirSync(join(project, 'pages')).filter((name) => name.endsWith('.g4.tif'))).toEqual([]);
  });
});
