import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { SAMPLE, pdfImages, pdfPageCount, pdfPageSizes, qpdfCheck, runQuire, withTempDir } from '../helpers.js';

interface Truth {
  frames: Array<{ pages: Array<{ side: string; textBox: { x: number; y: number; width: number; height: number } }> }>;
}

async function zipOf(files: Record<string, string | Buffer>, path: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  await writeFile(path, Buffer.concat(chunks));
}

describe('quire run on the example bundle', () => {
  it('writes a G4 PDF of straight, cropped pages and keeps every decision in project.json', async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, 'out');
      const proj = join(dir, 'proj');
      const r = await runQuire(['run', SAMPLE, '--export', 'pdf', '-o', out, '--keep-project', proj, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.frames).toBe(3);
      expect(summary.pages).toBe(6);
      const pdf = summary.outputs[0].path as string;
      expect(pdf.startsWith(out)).toBe(true);
      expect(pdfPageCount(pdf)).toBe(6);
      expect(qpdfCheck(pdf)).toMatch(/No syntax or stream encoding errors/);
      const images = pdfImages(pdf);
      expect(images).toHaveLength(6);
      for (const img of images) {
        expect(img.enc).toBe('ccitt');
        expect(img.bpc).toBe(1);
        expect(Math.round(img.xppi)).toBe(300);
      }
      // Cropped to the printed area plus a margin: well under a full A4 page, larger than a postcard.
      for (const size of pdfPageSizes(pdf)) {
        expect(size.width).toBeGreaterThan(150);
        expect(size.width).toBeLessThan(500);
        expect(size.height).toBeGreaterThan(250);
        expect(size.height).toBeLessThan(700);
      }

      const project = JSON.parse(await readFile(join(proj, 'project.json'), 'utf8'));
      const truth: Truth = JSON.parse(await readFile(SAMPLE.replace(/\.aglbundle$/, '.truth.json'), 'utf8'));
      expect(project.pages.map((p: { source: { side: string } }) => p.source.side)).toEqual(['left', 'right', 'left', 'right', 'left', 'right']);
      project.pages.forEach(
        (page: { decisions: Record<string, { content?: { x: number; y: number; width: number; height: number } } & Record<string, unknown>> }, i: number) => {
          const want = truth.frames[Math.floor(i / 2)].pages[i % 2].textBox;
          const got = page.decisions.split.content!;
          // Within 2 % of the frame on every side.
          expect(Math.abs(got.x - want.x)).toBeLessThan(0.02 * 1920);
          expect(Math.abs(got.x + got.width - (want.x + want.width))).toBeLessThan(0.02 * 1920);
          expect(Math.abs(got.y - want.y)).toBeLessThan(0.02 * 1080);
          expect(Math.abs(got.y + got.height - (want.y + want.height))).toBeLessThan(0.02 * 1080);
          expect(page.decisions.deskew).toHaveProperty('angle');
          expect(page.decisions.binarize).toHaveProperty('windowPx');
          expect(page.decisions.inputDpi).toMatchObject({ source: 'estimate' });
        },
      );
      const files = await readdir(join(proj, 'pages'));
      expect(files.filter((f) => f.endsWith('.tif'))).toHaveLength(6);
    });
  });

  it('exports a slim project that reopens and re-exports without reprocessing', async () => {
    await withTempDir(async (dir) => {
      const first = await runQuire(['run', SAMPLE, '--export', 'pdf:g4+slim', '-o', dir, '--json']);
      expect(first.code).toBe(0);
      const outputs = JSON.parse(first.stdout)[0].outputs as Array<{ format: string; path: string }>;
      const slim = outputs.find((o) => o.format === 'slim')!.path;
      expect(slim.endsWith('.quire')).toBe(true);
      const again = await runQuire(['run', slim, '--export', 'pdf', '-o', join(dir, 'again'), '--json']);
      expect(again.code).toBe(0);
      const summary = JSON.parse(again.stdout)[0];
      expect(summary.timings_ms.pipeline).toBe(0);
      const pdf = summary.outputs[0].path;
      expect(pdfPageCount(pdf)).toBe(6);
      const a = pdfImages(outputs.find((o) => o.format === 'pdf')!.path);
      const b = pdfImages(pdf);
      expect(b.map((i) => [i.width, i.height])).toEqual(a.map((i) => [i.width, i.height]));
    });
  });

  it('says which pages look out of focus, so they can be taken again', async () => {
    await withTempDir(async (dir) => {
      // The quality benchmark's Latin page photographed twice by a webcam: in focus, then out of focus (slight blur).
      const { makeQualityCorpus } = await import('../../scripts/quality-corpus.mjs');
      await makeQualityCorpus(join(dir, 'shots'), { only: ['x10', 'x10-soft'] });
      const sharp = join(dir, 'shots', 'x10', 'caesar.jpg');
      const blurred = join(dir, 'shots', 'x10-soft', 'caesar.jpg');
      const proj = join(dir, 'proj');
      const r = await runQuire(['run', sharp, blurred, sharp, '--ocr', 'none', '-o', join(dir, 'out'), '--keep-project', proj]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('page 2 looks out of focus or shaken: its text is the least sure; take it again for a better one');
      // Said again when the project is exported again, and in the JSON summary; an in-focus document says nothing.
      const again = await runQuire(['run', proj, '-o', join(dir, 'again'), '--json']);
      expect(JSON.parse(again.stdout)[0].out_of_focus_pages).toEqual([2]);
      const focused = await runQuire(['run', sharp, '--ocr', 'none', '-o', join(dir, 'focused'), '--json']);
      expect(focused.code).toBe(0);
      expect(JSON.parse(focused.stdout)[0].out_of_focus_pages).toEqual([]);
    });
  });

  it('--dpi force:N is recorded as the input resolution of every page', async () => {
    await withTempDir(async (dir) => {
      const proj = join(dir, 'proj');
      const r = await runQuire(['run', SAMPLE, '--dpi', 'force:140', '-o', dir, '--keep-project', proj]);
      expect(r.code).toBe(0);
      const project = JSON.parse(await readFile(join(proj, 'project.json'), 'utf8'));
      for (const p of project.pages) expect(p.decisions.inputDpi).toEqual({ value: 140, source: 'forced' });
    });
  });
});

describe('quire run refuses bad input clearly', () => {
  it('a bundle of another format version: exit 1, one sentence, no output file', async () => {
    await withTempDir(async (dir) => {
      const bundle = join(dir, 'future.aglbundle');
      await zipOf({ 'manifest.json': JSON.stringify({ format_version: 2, project: 'Future', page_count: 0 }), 'pages.jsonl': '' }, bundle);
      const out = join(dir, 'out');
      const r = await runQuire(['run', bundle, '-o', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^quire: .*format_version.*\.\n$/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out) ? await readdir(out) : []).toEqual([]);
    });
  });

  it('a file that is not an image: exit 1 and says so', async () => {
    await withTempDir(async (dir) => {
      const fake = join(dir, 'photo.jpg');
      await writeFile(fake, 'this is not a JPEG');
      const r = await runQuire(['run', fake, '-o', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/not an image/);
      expect((await readdir(dir)).filter((f) => f.endsWith('.pdf'))).toEqual([]);
    });
  });

  it('a missing input: exit 1 naming it', async () => {
    const r = await runQuire(['run', '/nonexistent/book.aglbundle']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/nonexistent\/book\.aglbundle/);
  });

  it('an unknown export format: exit 2, listing the valid ones', async () => {
    const r = await runQuire(['run', SAMPLE, '--export', 'pdf+docx']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/docx/);
    expect(r.stderr).toMatch(/epub/);
    expect(r.stderr).toMatch(/pdf/);
    expect(r.stderr).toMatch(/slim/);
  });

  it('an unknown export option: exit 2, listing the valid values', async () => {
    const r = await runQuire(['run', SAMPLE, '--export', 'pdf:jbig2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/g4/);
  });

  it('a bad --dpi or --pipeline: exit 2 with the accepted forms', async () => {
    const dpi = await runQuire(['run', SAMPLE, '--dpi', 'lots']);
    expect(dpi.code).toBe(2);
    expect(dpi.stderr).toMatch(/force:N/);
    const pipe = await runQuire(['run', SAMPLE, '--pipeline', 'magic']);
    expect(pipe.code).toBe(2);
    expect(pipe.stderr).toMatch(/book, sheet and flat/);
  });
});

describe('quire list, version and help', () => {
  it('lists pipelines and exports', async () => {
    const p = await runQuire(['list', 'pipelines']);
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/^book /m);
    expect(p.stdout).toMatch(/^sheet /m);
    expect(p.stdout).toMatch(/^flat /m);
    const e = await runQuire(['list', 'exports']);
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(/^pdf /m);
    expect(e.stdout).toMatch(/^slim /m);
    expect(e.stdout).toMatch(/^epub .*→ <name>\.epub$/m);
    expect(e.stdout).toMatch(/g4/);
    const bad = await runQuire(['list', 'colours']);
    expect(bad.code).toBe(2);
  });

  it('prints its version and help on every command', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const v = await runQuire(['version']);
    expect(v.stdout.trim()).toBe(`quire ${pkg.version}`);
    for (const args of [['--help'], ['run', '--help'], ['list', '--help'], ['version', '--help']]) {
      const h = await runQuire(args);
      expect(h.code).toBe(0);
      expect(h.stdout).toMatch(/Usage: quire/);
    }
    const run = await runQuire(['run', '--help']);
    for (const flag of ['--export', '--output', '--pipeline', '--dpi', '--keep-project', '--workers', '--json']) expect(run.stdout).toContain(flag);
  });

  it('an unknown command is a usage error', async () => {
    const r = await runQuire(['frobnicate']);
    expect(r.code).toBe(2);
  });
});
