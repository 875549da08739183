import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLanguageData, nativeDataFolder } from '../../src/ocr/tesseract-data.js';

// The native engine's model folder: unpacked from the npm packages once, then reused by every later run (and by
// every checkout of Quire on the machine, whatever folder its node_modules is in).

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

describe('the native model folder', () => {
  it('unpacks a language once and leaves it alone on later runs, its stamp naming the package from node_modules on', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quire-tessdata-'));
    roots.push(root);
    await nativeDataFolder(root).ensure(['eng']);
    const model = join(root, 'eng.traineddata');
    expect(statSync(model).size).toBeGreaterThan(1_000_000);
    const stamp = JSON.parse(await readFile(`${model}.from`, 'utf8')) as { file: string; size: number };
    expect(stamp.file).toMatch(/^node_modules[/\\].*eng\.traineddata\.gz$/);
    expect(stamp.size).toBe(statSync(findLanguageData().get('eng')!).size);
    const unpacked = statSync(model).mtimeMs;

    // A new run (a new folder object, as a new process makes) finds the model there and does not unpack it again.
    await nativeDataFolder(root).ensure(['eng']);
    expect(statSync(model).mtimeMs).toBe(unpacked);
    expect(existsSync(join(root, 'fra.traineddata'))).toBe(false);
  });
});
