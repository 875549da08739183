// Processor and OCR engine plugins from the command line, as a user meets them: installed from the registry with
// their sha256, listed beside the built-ins, added with --steps and picked with --ocr; a changed plugin is skipped
// with one line saying how to accept it, and `quire plugins accept` lets it run again.
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runQuire, SAMPLE, withTempDir } from '../helpers.js';

interface Manifest {
  pages: Array<{ decisions: { plugins?: Record<string, Record<string, unknown>> } }>;
}

function projectPages(dir: string): Manifest['pages'] {
  return (JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as Manifest).pages;
}

describe('processor plugins on the command line', () => {
  it('installs despeckle, lists it, runs it with --steps, skips it once changed, lists it as runnable once accepted again, removes it', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      const install = await runQuire(['plugins', 'install', 'despeckle'], { env });
      expect(install.stderr).toBe('');
      expect(install.stdout).toMatch(
        /^Installed despeckle 1\.0\.0 \(Despeckle; a pipeline step after binarize \(--steps \+despeckle\)\)\.\nAccepted as installed: sha256 [0-9a-f]{64};/m,
      );

      const list = await runQuire(['list', 'pipelines'], { env });
      expect(list.stdout).toContain("despeckle removes isolated specks smaller than a fraction of the text's x-height (plugin, sandboxed, after binarize)\n");
      expect(list.stdout).toContain('          :max_speck_pct=25  Largest speck, % of the x-height (1–100)\n');
      const json = JSON.parse((await runQuire(['list', 'pipelines', '--json'], { env })).stdout) as Array<Record<string, unknown>>;
      expect(json.map((p) => p.name)).toEqual(['book', 'sheet', 'flat', 'despeckle']);
      expect(json[3]).toMatchObject({ plugin: true, state: 'usable', sandbox: 'isolated', after: 'binarize' });

      const run = await runQuire(['run', SAMPLE, '--steps', '+despeckle:max_speck_pct=30', '--keep-project', join(dir, 'p1'), '-o', join(dir, 'out1')], {
        env,
      });
      expect(run.stderr).not.toContain('despeckle');
      expect(run.code).toBe(0);
      const pages = projectPages(join(dir, 'p1'));
      expect(pages).toHaveLength(6);
      for (const page of pages) expect(page.decisions.plugins?.despeckle).toEqual({ removed: expect.any(Number), maxSpeckPx: expect.any(Number) });

      const badOption = await runQuire(['run', SAMPLE, '--steps', '+despeckle:max_speck_pct=500', '-o', join(dir, 'out0')], { env });
      expect(badOption.code).not.toBe(0);
      expect(badOption.stderr).toContain('max_speck_pct');
      expect(existsSync(join(dir, 'out0'))).toBe(false);

      appendFileSync(join(dir, 'home', 'plugins', 'processors', 'despeckle', 'plugin.mjs'), '\n// edited by hand\n');
      const skipped = await runQuire(['run', SAMPLE, '--steps', '+despeckle', '--keep-project', join(dir, 'p2'), '-o', join(dir, 'out2')], { env });
      expect(skipped.code).toBe(0);
      const lines = skipped.stderr.split('\n').filter((l) => l.includes('despeckle'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^quire: The processor plugin despeckle was skipped: its files changed since it was accepted; run `quire plugins accept despeckle` to accept it as it is \(sha256 [0-9a-f]{12}…\)\.$/,
      );
      for (const page of projectPages(join(dir, 'p2'))) expect(page.decisions.plugins).toBeUndefined();
      expect((await runQuire(['list', 'pipelines'], { env })).stdout).toContain('(plugin, not run: changed since accepted; quire plugins accept despeckle)');

      const accept = await runQuire(['plugins', 'accept', 'despeckle'], { env });
      expect(accept.stdout).toMatch(/^Accepted despeckle as it is now \(sha256 [0-9a-f]{64}\)/);
      expect((await runQuire(['list', 'pipelines'], { env })).stdout).toContain('(plugin, sandboxed, after binarize)');

      const unknown = await runQuire(['run', SAMPLE, '--steps', '+sharpen-more', '-o', join(dir, 'out4')], { env });
      expect(unknown.stderr).toBe('quire: No processor step called sharpen-more is installed; see quire list pipelines.\n');

      const removed = await runQuire(['plugins', 'remove', 'despeckle'], { env });
      expect(removed.stdout).toBe('Removed despeckle, its settings and its secrets.\n');
      expect(existsSync(join(dir, 'home', 'plugins', 'processors', 'despeckle'))).toBe(false);
      expect(existsSync(join(dir, 'home', 'plugins', 'data', 'despeckle'))).toBe(false);
      expect((await runQuire(['list', 'pipelines'], { env })).stdout).not.toContain('despeckle');
    });
  }, 240_000);
});

describe('OCR engine plugins on the command line', () => {
  it('lists tesseract-own-model with its model and reads the sample with --ocr', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      expect((await runQuire(['plugins', 'install', 'tesseract-own-model'], { env })).code).toBe(0);
      copyFileSync(
        '/usr/share/tesseract-ocr/5/tessdata/eng.traineddata',
        join(dir, 'home', 'plugins', 'data', 'tesseract-own-model', 'files', 'mine.traineddata'),
      );
      const list = await runQuire(['list', 'ocr'], { env });
      expect(list.stdout).toContain(
        'tesseract-own-model tesseract reading with a .traineddata file you put in its files folder (plugin, sandboxed)\n          languages: mine\n',
      );

      const run = await runQuire(['run', SAMPLE, '--ocr', 'tesseract-own-model:lang=mine', '--export', 'md', '-o', join(dir, 'out')], { env });
      expect(run.code).toBe(0);
      const truth = JSON.parse(readFileSync(SAMPLE.replace(/\.aglbundle$/, '.truth.json'), 'utf8')) as unknown;
      const words = JSON.stringify(truth).match(/[A-Za-z]{6,}/g) ?? [];
      const mdFile = readdirSync(join(dir, 'out')).find((f) => f.endsWith('.md'));
      expect(mdFile).toBeDefined();
      const md = readFileSync(join(dir, 'out', mdFile!), 'utf8');
      const found = [...new Set(words)].filter((w) => md.includes(w));
      expect(found.length).toBeGreaterThan(20);

      const missing = await runQuire(['run', SAMPLE, '--ocr', 'tesseract-own-model:lang=latin', '--export', 'md', '-o', join(dir, 'out2')], { env });
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('installed languages: mine');
    });
  }, 240_000);
});
