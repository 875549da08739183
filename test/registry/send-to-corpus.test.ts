/**
 * send-to-corpus against the suite's own corpus server (the documented contract), installed
 * from the registry and run through the host's sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, configure, expectPlainMessage, exportFile, freePort, install, onePagePdf, startedTogether, sendOne, type Installation } from './helpers.js';
import { startCorpus, type CorpusServer } from './corpus-server.js';

const KEY = 'corpus-key-1';

describe('send-to-corpus with the documented corpus API', () => {
  let corpus: CorpusServer;
  let inst: Installation;

  beforeAll(async () => {
    await startedTogether([startCorpus({ apiKey: KEY, maxFileBytes: 64 * 1024 }).then((c) => (corpus = c)), install('send-to-corpus').then((i) => (inst = i))]);
  });
  afterAll(async () => {
    await corpus?.stop();
    inst?.remove();
  });

  const setUp = (extra: Record<string, string> = {}, key = KEY): void => configure(inst, { base_url: corpus.url, ...extra }, { api_key: key });
  const uploads = (): number => corpus.requests.filter((r) => r.path === '/book/upload').length;

  it('checks reachability, then the key', async () => {
    setUp();
    expect(await check(inst)).toMatchObject({ ok: true, message: 'The corpus is reachable and accepts the API key.' });
    expect(corpus.requests.slice(-2).map((r) => [r.method, r.path, r.headers['x-api-key']])).toEqual([
      ['GET', '/healthz', undefined],
      ['GET', '/openapi.json', KEY],
    ]);
    setUp({}, 'stale-key');
    const refused = await check(inst);
    expect(refused).toMatchObject({ ok: false, kind: 'AUTH', message: 'The corpus refused the API key.' });
    expect(refused.detail).toMatch(/^HTTP 403/);
    const port = await freePort();
    setUp({ base_url: `http://127.0.0.1:${port}/` });
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'NETWORK', message: `The corpus at http://127.0.0.1:${port} cannot be reached.` });
  });

  it('adds a book with its metadata (201), and reports the same title and author as already there (200)', async () => {
    setUp({ headers: 'X-Proxy-Auth: let-me-in' });
    const pdf = await onePagePdf('The Quiet Orchard');
    const meta = {
      title: 'The Quiet Orchard',
      authors: ['A. Gardener', 'B. Botanist'],
      publisher: 'Leaf & Root',
      language: 'en',
      year: 1999,
      pages: 212,
      categories: ['Gardening', 'Essays'],
    };
    const added = await sendOne(inst, exportFile(inst, 'The Quiet Orchard.pdf', pdf), meta);
    const book = corpus.books.at(-1);
    expect(added).toMatchObject({ ok: true, alreadyThere: false, message: `"The Quiet Orchard" was added to the corpus as ${book?.id}.` });
    expectPlainMessage(added, '201');
    expect(added.detail).toMatch(/^HTTP 201/);
    expect(book).toMatchObject({
      filename: 'The Quiet Orchard.pdf',
      contentType: 'application/pdf',
      fields: { title: 'The Quiet Orchard', author: 'A. Gardener, B. Botanist', publisher: 'Leaf & Root', language: 'en', year: '1999', pages: '212', categories: 'Gardening, Essays' },
    });
    expect(Buffer.compare(book?.bytes ?? Buffer.alloc(0), Buffer.from(pdf))).toBe(0);
    expect(corpus.requests.at(-1)?.headers).toMatchObject({ 'x-api-key': KEY, 'x-proxy-auth': 'let-me-in' });

    const again = await sendOne(inst, exportFile(inst, 'The Quiet Orchard.md', '# The Quiet Orchard\n'), meta);
    expect(again).toMatchObject({ ok: true, alreadyThere: true, message: '"The Quiet Orchard" is already in the corpus (same title and author), so it was not added again.' });
    expectPlainMessage(again, '200');
  });

  it('sends only the metadata fields that have a value', async () => {
    setUp();
    await sendOne(inst, exportFile(inst, 'Sparse Notes.txt', 'notes'), { title: 'Sparse Notes', authors: ['', ' '], publisher: '', language: '  ', categories: [] });
    expect(corpus.requests.at(-1)?.form).toEqual([
      ['title', 'Sparse Notes'],
      ['file', 'Sparse Notes.txt'],
    ]);
    expect(corpus.requests.at(-1)?.status).toBe(201);
  });

  it('takes an OCR textpack', async () => {
    setUp();
    const result = await sendOne(inst, exportFile(inst, 'Orchard_OCR.textpack', 'PK\u0003\u0004 textpack'), { title: 'Orchard (OCR)' });
    expect(result).toMatchObject({ ok: true, alreadyThere: false });
    expect(corpus.books.at(-1)).toMatchObject({ filename: 'Orchard_OCR.textpack', contentType: 'application/zip' });
  });

  it('reports an empty file refused with 400, with the reason in its own words', async () => {
    setUp();
    const result = await sendOne(inst, exportFile(inst, 'Empty.pdf', ''), { title: 'Empty' });
    expect(result).toMatchObject({ ok: false, kind: 'SERVER', message: 'The corpus refused Empty.pdf: it is empty.' });
    expectPlainMessage(result, '400', 'empty file');
    expect(result.detail).toMatch(/^HTTP 400 .*empty file/);
  });

  it('reports a file over the limit (413), naming the limit', async () => {
    setUp();
    const over = await sendOne(inst, exportFile(inst, 'Huge Scan.pdf', Buffer.alloc(100_000, 7)), { title: 'Huge Scan' });
    expect(over).toMatchObject({ ok: false, kind: 'SERVER', message: 'The corpus refused Huge Scan.pdf (97.7 KiB) as too large; it takes files up to 2.0 GiB.' });
    expectPlainMessage(over, '413');
    // Far over the limit the corpus does not even keep the upload.
    const far = await sendOne(inst, exportFile(inst, 'Huger Scan.pdf', Buffer.alloc(3_000_000, 7)), { title: 'Huger Scan' });
    expect(far).toMatchObject({ ok: false, kind: 'SERVER', message: 'The corpus refused Huger Scan.pdf (2.9 MiB) as too large; it takes files up to 2.0 GiB.' });
    expect(far.detail).toMatch(/^HTTP 413/);
  });

  it('reports a wrong key on upload as AUTH, and stores nothing', async () => {
    setUp({}, 'stale-key');
    const stored = corpus.books.length;
    const result = await sendOne(inst, exportFile(inst, 'Locked.pdf', await onePagePdf('Locked')), { title: 'Locked' });
    expect(result).toMatchObject({ ok: false, kind: 'AUTH', message: 'The corpus refused the API key.' });
    expectPlainMessage(result, '403', 'invalid API key');
    expect(corpus.books).toHaveLength(stored);
  });

  it('refuses an extension the corpus does not admit before any request', async () => {
    setUp();
    const before = uploads();
    const result = await sendOne(inst, exportFile(inst, 'Notes.rtf', '{\\rtf1 notes}', 'txt'), { title: 'Notes' });
    expect(result).toMatchObject({ ok: false, kind: 'CONFIG', message: 'The corpus admits only pdf, md, txt, epub, html, textpack files, so Notes.rtf was not sent.' });
    expect(uploads()).toBe(before);
  });

  it('checks the settings before any request (CONFIG)', async () => {
    configure(inst, {});
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'CONFIG', message: 'Send to corpus is not set up yet: set Corpus address, API key.' });
    const before = corpus.requests.length;
    // An address that is not one is refused when it is set, and nothing is stored.
    expect(() => setUp({ base_url: 'corpus.example.org' })).toThrow('base_url must be an http or https URL such as https://example.org.');
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'CONFIG', message: 'Send to corpus is not set up yet: set Corpus address, API key.' });
    setUp({ headers: 'X-Proxy-Auth let-me-in' });
    const result = await sendOne(inst, exportFile(inst, 'Held.pdf', await onePagePdf('Held')), { title: 'Held' });
    expect(result).toMatchObject({ ok: false, kind: 'CONFIG', message: 'The extra headers setting needs one "Name: value" per line.' });
    expect(corpus.requests).toHaveLength(before);
  });
});
