import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE } from '../helpers.js';
import { bundleFiles, jpeg, renameInZip, writeBundleZip, writeZip } from '../ingest/fixtures.js';
import { listTree, multipart, testServer, type TestServer } from './helpers.js';

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await testServer();
  key = await t.newKey();
});
afterAll(() => t.close());

async function onePagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 400]).drawText('Hello', { x: 50, y: 300, size: 24 });
  return Buffer.from(await doc.save());
}

/** Bad uploads, each as a client would send it: the file name, its bytes, and what the error must say. */
async function badUploads(dir: string): Promise<Array<{ name: string; data: Buffer; says: RegExp }>> {
  const good = await jpeg(40, 30);
  const out: Array<{ name: string; data: Buffer; says: RegExp }> = [];
  const file = async (name: string, make: (path: string) => Promise<void>): Promise<Buffer> => {
    const path = join(dir, name);
    await make(path);
    return readFile(path);
  };

  out.push({ name: 'notazip.zip', data: Buffer.from('this is plain text, not an archive'), says: /^notazip\.zip .*(zip|scan bundle)/ });
  out.push({
    name: 'slip.aglbundle',
    data: await file('slip.aglbundle', async (p) => {
      await writeBundleZip(p, bundleFiles({ images: [{ index: 1, file: 'images/0001.jpg', data: good }] }));
      const bytes = await readFile(p);
      await writeZip(p, [
        { name: 'manifest.json', data: JSON.stringify({ format_version: 1, project: 'Slip', page_count: 1 }) },
        { name: 'pages.jsonl', data: JSON.stringify({ index: 1, file: 'images/0001.jpg' }) + '\n' },
        { name: 'images/0001.jpg', data: good },
        { name: 'xx/evil.jpg', data: bytes.subarray(0, 10) },
      ]);
      await renameInZip(p, 'xx/evil.jpg', '../evil.jpg');
    }),
    says: /^slip\.aglbundle .*\.\.\/evil\.jpg/,
  });
  out.push({
    name: 'bomb.zip',
    data: await file('bomb.zip', async (p) => {
      const files = bundleFiles({
        images: [
          { index: 1, file: 'images/0001.jpg', data: good },
          { index: 2, file: 'images/0002.jpg', data: Buffer.alloc(0) },
        ],
      });
      await writeZip(p, [
        ...Object.entries(files)
          .filter(([n]) => n !== 'images/0002.jpg')
          .map(([name, data]) => ({ name, data })),
        { name: 'images/0002.jpg', zeros: 20_000_000 },
      ]);
    }),
    says: /^bomb\.zip .*zip bomb/,
  });
  out.push({
    name: 'future.aglbundle',
    data: await file('future.aglbundle', (p) =>
      writeBundleZip(p, bundleFiles({ manifest: { format_version: 2, project: 'Future' }, images: [{ index: 1, file: 'images/0001.jpg', data: good }] })),
    ),
    says: /^future\.aglbundle .*format_version 2/,
  });
  out.push({
    name: 'corrupt.aglbundle',
    data: await file('corrupt.aglbundle', (p) =>
      writeBundleZip(p, bundleFiles({ images: [{ index: 1, file: 'images/0001.jpg', data: Buffer.concat([good.subarray(0, 20), Buffer.alloc(500, 0x55)]) }] })),
    ),
    says: /images\/0001\.jpg is not an image/,
  });
  const pdf = await onePagePdf();
  const plain = join(dir, 'plain.pdf');
  await import('node:fs/promises').then((fs) => fs.writeFile(plain, pdf));
  execFileSync('qpdf', ['--encrypt', 'user', 'owner', '256', '--', plain, join(dir, 'locked.pdf')]);
  out.push({ name: 'locked.pdf', data: await readFile(join(dir, 'locked.pdf')), says: /^locked\.pdf .*(password|encrypt)/i });
  out.push({ name: 'truncated.pdf', data: pdf.subarray(0, Math.floor(pdf.length / 2)), says: /^truncated\.pdf / });
  out.push({ name: 'empty.pdf', data: Buffer.alloc(0), says: /^empty\.pdf / });
  out.push({ name: 'empty.aglbundle', data: Buffer.alloc(0), says: /^empty\.aglbundle / });
  return out;
}

it('fails each bad upload with one sentence, keeps serving, and runs the next job normally', async () => {
  const uploads = await badUploads(t.dir);
  const ids: string[] = [];
  for (const u of uploads) {
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: u.name, data: u.data }],
      ]),
    });
    expect(res.statusCode, u.name).toBe(200);
    ids.push(res.json<{ job_id: string }>().job_id);
  }
  const good = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['file', { name: 'sample.aglbundle', data: await readFile(SAMPLE) }],
    ]),
  });
  const goodId = good.json<{ job_id: string }>().job_id;

  for (let i = 0; i < uploads.length; i++) {
    expect(await t.server.processor.tick(), uploads[i].name).toEqual({ jobId: ids[i], status: 'failed' });
    const check = (await t.server.app.inject({ url: `/check/${ids[i]}?api_key=${key}` })).json<{ status: string; error: string }>();
    expect(check.status).toBe('failed');
    // One sentence for a person: it names the upload as they did, never the server's path.
    expect(check.error, uploads[i].name).toMatch(uploads[i].says);
    expect(check.error).toMatch(/^[^\n]+\.$/);
    expect(check.error).not.toContain(t.dataDir);
    expect((await t.server.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await t.server.app.inject({ url: `/download/${ids[i]}/pdf` })).statusCode).toBe(404);
  }
  expect(await t.server.processor.tick()).toEqual({ jobId: goodId, status: 'done' });

  // Uploads go when their jobs end (the default retention): a failed job keeps nothing, the good one its PDF.
  const tree = await listTree(t.dataDir);
  ids.forEach((id) => {
    expect(tree.filter((p) => p.startsWith(`${id}/`))).toEqual([]);
  });
  expect(tree.filter((p) => p.startsWith(`${goodId}/`))).toEqual([`${goodId}/`, `${goodId}/output.pdf`]);
  expect(tree.some((p) => p.includes('proj'))).toBe(false);

  const { jobs } = (await t.server.app.inject({ url: `/list?api_key=${key}` })).json<{
    jobs: Array<{ job_id: string; status: string; error: string | null }>;
  }>();
  expect(jobs[0]).toMatchObject({ job_id: goodId, status: 'done', error: null });
  expect(jobs.slice(1).every((j) => j.status === 'failed' && j.error)).toBe(true);
});

it('names a document without a name of its own after the file the client sent', async () => {
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['file', { name: 'Carnet de voyage.pdf', data: await onePagePdf() }],
    ]),
  });
  const id = res.json<{ job_id: string }>().job_id;
  expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
  const pdf = await t.server.app.inject({ url: `/download/${id}/pdf` });
  expect(pdf.statusCode).toBe(200);
  expect(pdf.headers['content-disposition']).toContain('filename="Carnet de voyage.pdf"');
  expect((await listTree(t.dataDir)).filter((p) => p.startsWith(`${id}/`))).toEqual([`${id}/`, `${id}/output.pdf`]);
});
