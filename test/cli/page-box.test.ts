import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE, pdfPageCount, runQuire, withTempDir } from '../helpers.js';

describe('quire run --page-box', () => {
  it('makes the frame one page of the box given, kept in project.json, and the PDF has one page fewer', async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, 'out');
      const proj = join(dir, 'proj');
      const r = await runQuire(['run', SAMPLE, '--page-box', '1:100,60,820,960', '--export', 'pdf', '-o', out, '--keep-project', proj, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.pages).toBe(5);
      expect(pdfPageCount(summary.outputs[0].path as string)).toBe(5);
      const manifest = JSON.parse(await readFile(join(proj, 'project.json'), 'utf8'));
      const first = manifest.pages[0];
      expect(first.source).toMatchObject({ frame: 1, side: 'single' });
      expect(first.decisions.split).toMatchObject({ box: { x: 100, y: 60, width: 820, height: 960 }, handSet: true });
      // The other frames are split as before.
      expect(manifest.pages.slice(1).map((p: { source: { side: string } }) => p.source.side)).toEqual(['left', 'right', 'left', 'right']);
    });
  });

  it('refuses a box outside the capture, and a frame the bundle does not have, writing nothing', async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, 'out');
      const outside = await runQuire(['run', SAMPLE, '--page-box', '2:1800,0,400,400', '-o', out]);
      expect(outside.code).not.toBe(0);
      expect(outside.stderr).toContain('The page box set by hand for frame 2 of');
      expect(outside.stderr).toContain('(400×400 at (1800, 0)) reaches outside the capture (1920×1080).');
      const missing = await runQuire(['run', SAMPLE, '--page-box', '9:split=900', '-o', out]);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('There is no frame 9 in');
      const malformed = await runQuire(['run', SAMPLE, '--page-box', '1:10,10', '-o', out]);
      expect(malformed.code).not.toBe(0);
      expect(malformed.stderr).toContain('give a frame and its page box in pixels as frame:x,y,width,height');
      expect(existsSync(join(out, 'sample.pdf'))).toBe(false);
    });
  });
});
