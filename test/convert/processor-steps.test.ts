// Processor steps in a conversion: each page goes through the added step after the built-in one it names; a page the
// step fails keeps its pixels as the built-in steps left them, records why, and the run says so once and goes on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, type ProgressEvent } from '../../src/convert/index.js';
import type { ExtraStepRunner } from '../../src/pipeline/index.js';
import type { ProjectManifest } from '../../src/project/index.js';
import { pdfPageCount, SAMPLE, withTempDir } from '../helpers.js';

describe('a processor step in a conversion', () => {
  it('runs after binarize on every page; a page it fails goes on without it and is named once', async () => {
    await withTempDir(async (dir) => {
      const seen: Array<{ kind: string; xHeight?: number; values: Set<number> }> = [];
      let calls = 0;
      // Changes nothing and records what it saw; fails every second page, as a broken plugin would.
      const run: ExtraStepRunner = async (name, page, facts) => {
        calls += 1;
        seen.push({ kind: facts.kind, xHeight: facts.textScale?.xHeightPx, values: new Set(page.pixels) });
        if (calls % 2 === 0) return { ok: false, message: 'it threw an error' };
        return { ok: true, image: page, facts: { saw: page.width } };
      };
      const events: ProgressEvent[] = [];
      const project = join(dir, 'project');
      const result = await convert(SAMPLE, {
        exports: 'pdf',
        outDir: join(dir, 'out'),
        keepProject: project,
        processors: { steps: [{ name: 'flaky', after: 'binarize' }], run },
        onProgress: (e) => events.push(e),
      });
      expect(pdfPageCount(result.outputs[0].path)).toBe(6);
      expect(calls).toBe(6);
      for (const page of seen) {
        expect(page.kind).toBe('bitonal');
        expect([...page.values].every((v) => v === 0 || v === 255)).toBe(true);
        // Camera frames: the resolution was measured from the text, so the step knows the text's scale.
        expect(page.xHeight).toBeGreaterThan(5);
      }
      const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8')) as ProjectManifest;
      const recorded = manifest.pages.map((p) => p.decisions.plugins?.flaky);
      expect(recorded.filter((r) => r?.failed === 'it threw an error')).toHaveLength(3);
      expect(recorded.filter((r) => typeof r?.saw === 'number')).toHaveLength(3);
      const warnings = events.filter((e) => e.type === 'warning').map((e) => (e as { message: string }).message);
      expect(warnings).toHaveLength(3);
      for (const w of warnings) expect(w).toMatch(/^\S.* \((left|right) page\): flaky failed on this page and was left out: it threw an error\.$/);
    });
  }, 240_000);
});
