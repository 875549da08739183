// The free-space check compares the disk with an estimate of what the run writes: on the example bundle, the estimate
// for each set of exports (and for the working folder) is within 25 % of the bytes the run then writes, so a disk
// short of room is told before the work, and one with room is never refused for a guess twice too large.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConversions } from '../../src/convert/index.js';
import { runQuire, SAMPLE, withTempDir } from '../helpers.js';

async function estimate(exports: string, outDir: string, keepProject?: string): Promise<{ outputs: number; working: number }> {
  const run = await checkConversions([SAMPLE], { exports, outDir, ...(keepProject ? { keepProject } : {}) });
  try {
    return run.documents[0].expected;
  } finally {
    await run.close();
  }
}

/** Bytes of every file under `dir`. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
}

/** Bytes of the output written for each format, by its file name's ending. */
function writtenBy(dir: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const name of readdirSync(dir)) {
    const ending = name.endsWith('_OCR.textpack') ? 'textpack' : name.slice(name.lastIndexOf('.') + 1).replace('quire', 'slim');
    sizes[ending] = statSync(join(dir, name)).size;
  }
  return sizes;
}

function expectWithin(estimate: number, written: number, what: string): void {
  expect(written, what).toBeGreaterThan(0);
  expect(Math.abs(estimate - written) / written, `${what}: estimate ${estimate} bytes, written ${written}`).toBeLessThanOrEqual(0.25);
}

describe('the free-space estimate', () => {
  it('is within 25 % of what a run of the example writes, without text and with every export', async () => {
    await withTempDir(async (dir) => {
      const plain = join(dir, 'plain');
      const bare = await runQuire(['run', SAMPLE, '--export', 'pdf', '-o', plain]);
      expect(bare.code, bare.stderr).toBe(0);
      expectWithin((await estimate('pdf', join(dir, 'check-plain'))).outputs, writtenBy(plain).pdf, 'pdf');

      const all = join(dir, 'all');
      const project = join(dir, 'project');
      const full = await runQuire(['run', SAMPLE, '--ocr', 'auto', '--export', 'pdf+md+epub+textpack+slim', '-o', all, '--keep-project', project]);
      expect(full.code, full.stderr).toBe(0);
      const written = writtenBy(all);
      expect(Object.keys(written).sort()).toEqual(['epub', 'md', 'pdf', 'slim', 'textpack']);
      // The text layer and the OCR results are what an export set's estimate depends on; each set asks the check anew.
      for (const set of [['pdf', 'md'], ['pdf', 'md', 'textpack'], ['epub'], ['slim'], ['pdf', 'md', 'epub', 'textpack', 'slim']]) {
        const expected = await estimate(set.join('+'), join(dir, 'check'), join(dir, 'check-project'));
        expectWithin(
          expected.outputs,
          set.reduce((n, f) => n + written[f], 0),
          set.join('+'),
        );
      }
      const expected = await estimate('pdf+md+epub+textpack+slim', join(dir, 'check'), join(dir, 'check-project'));
      expectWithin(expected.working, bytesUnder(project), 'the working folder (kept project)');
    });
  }, 300_000);
});
