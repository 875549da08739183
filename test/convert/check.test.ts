// checkConversions gives one validated plan per document, and convert() follows it: what to write, which OCR, whether
// text will be read, and the input or project already opened. Built on a slim project with known text, so no page is
// made and no engine runs.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConversions, convert } from '../../src/convert/index.js';
import type { ProjectManifest } from '../../src/project/index.js';
import { readZip, withTempDir } from '../helpers.js';
import { writeProofProject } from '../web/proof-project.js';

describe('the plan checkConversions makes for each document', () => {
  it('says what to write and that a project with text is not read again, and convert writes it from that plan', async () => {
    await withTempDir(async (dir) => {
      const slim = join(dir, 'proof.quire');
      await writeProofProject(slim);
      const out = join(dir, 'out');
      const run = await checkConversions([slim], { exports: 'md', outDir: out });
      try {
        const [plan] = run.documents;
        expect(plan).toMatchObject({
          name: 'Proof sample',
          fileStem: 'Proof sample',
          outDir: out,
          requests: [{ format: 'md' }],
          readsText: false,
          keepTextPages: false,
          keptForBatch: false,
        });
        // A text export turns OCR on, should a page lack text.
        expect(plan.ocr?.auto).toBe(true);
        const result = await convert(slim, { exports: 'md', outDir: out, checked: plan });
        expect(result.outputs.map((o) => o.format)).toEqual(['md']);
        expect(await readFile(join(out, 'Proof sample.md'), 'utf8')).toContain('Chapter One');
      } finally {
        await run.close();
      }
    });
  });

  it('reads the text again when asked, and keeps no PDF text pages under --force-ocr', async () => {
    await withTempDir(async (dir) => {
      const slim = join(dir, 'proof.quire');
      await writeProofProject(slim);
      const run = await checkConversions([slim], { exports: 'pdf', outDir: join(dir, 'out'), ocr: 'none', keepTextPages: true });
      try {
        expect(run.documents[0]).toMatchObject({ readsText: true, keepTextPages: true, ocr: { engine: 'none' } });
      } finally {
        await run.close();
      }
      const pdfOnly = await checkConversions([slim], { exports: 'pdf', outDir: join(dir, 'out'), keepTextPages: true, forceOcr: true });
      try {
        expect(pdfOnly.documents[0].keepTextPages).toBe(false);
      } finally {
        await pdfOnly.close();
      }
    });
  });

  it('makes the grey page OCR reads for a project kept without OCR, so that a later OCR of it has that page', async () => {
    await withTempDir(async (dir) => {
      const project = join(dir, 'project');
      await convert(join('examples', 'sample.aglbundle'), { exports: 'pdf', outDir: join(dir, 'out'), keepProject: project });
      const manifest = JSON.parse(await readFile(join(project, 'project.json'), 'utf8')) as ProjectManifest;
      expect(manifest.pages.length).toBeGreaterThan(0);
      for (const page of manifest.pages) expect(existsSync(join(project, page.ocrImage ?? 'none'))).toBe(true);
    });
  });

  it('refuses, before any work, a project whose OCR batch is not finished when an export needs its text', async () => {
    await withTempDir(async (dir) => {
      const slim = join(dir, 'proof.quire');
      await writeProofProject(slim);
      const project = join(dir, 'project');
      for (const [name, data] of await readZip(slim)) {
        await mkdir(dirname(join(project, name)), { recursive: true });
        await writeFile(join(project, name), data);
      }
      const manifest = JSON.parse(await readFile(join(project, 'project.json'), 'utf8')) as ProjectManifest;
      manifest.ocrBatch = {
        engine: 'remoteocr',
        options: {},
        languages: ['eng'],
        pages: [1, 2],
        ticket: { batchIds: ['b1'], submittedAt: new Date(0).toISOString() },
      } as unknown as ProjectManifest['ocrBatch'];
      await writeFile(join(project, 'project.json'), JSON.stringify(manifest));
      const out = join(dir, 'out');
      await expect(checkConversions([project], { exports: 'md', outDir: out })).rejects.toThrow(
        `This project's OCR batch is not finished yet; finish it with quire run ${project} --check-ocr.`,
      );
      expect(existsSync(out)).toBe(false);
    });
  });
});
