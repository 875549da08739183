import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createApp, inProcessEngine, type CreateAppOptions, type QuireServer } from '../../src/server/index.js';
import { readZip, SAMPLE } from '../helpers.js';
import { bundleFiles, writeBundleZip } from '../ingest/fixtures.js';
import { databaseUrlFor, sqlIn } from './stores.js';

export interface TestServer {
  server: QuireServer;
  dir: string;
  dataDir: string;
  dbPath: string;
  /** The PostgreSQL database of this folder in the `postgres` test project; undefined with SQLite. */
  databaseUrl: string | undefined;
  /** Run one statement on this server's database directly (`?` placeholders), as a test that pokes at rows. */
  sql(text: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Create an API key through the admin endpoint, as an admin would; returns the raw key. */
  newKey(email?: string): Promise<string>;
  close(): Promise<void>;
}

/** The admin secret of each test database, shown only by the start that made it. */
const secrets = new Map<string, string>();

/** The admin secret of a test server's database, whichever start made it. */
export function adminSecretOf(t: Pick<TestServer, 'dir'>): string {
  const secret = secrets.get(t.dir);
  if (!secret) throw new Error(`no admin secret known for ${t.dir}`);
  return secret;
}

/**
 * A server on a fresh temporary database and data folder, its worker driven by hand unless asked. The database is
 * the folder's SQLite file, or its PostgreSQL schema in the `postgres` test project.
 */
export async function testServer(options: CreateAppOptions = {}, dir?: string): Promise<TestServer> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'quire-server-')));
  const dataDir = join(root, 'server_data');
  const dbPath = join(root, 'quire-server.db');
  const databaseUrl = await databaseUrlFor(root);
  // The tests run on the TypeScript sources, where no built job process exists: jobs convert in this process unless a
  // test brings a job process (`childScript`) or an engine of its own.
  const engine = options.engine ?? (options.childScript ? undefined : inProcessEngine());
  const server = await createApp({ dbPath, dataDir, startWorker: false, ...(databaseUrl ? { databaseUrl } : {}), ...options, ...(engine ? { engine } : {}) });
  if (server.adminSecret) secrets.set(root, server.adminSecret);
  return {
    server,
    dir: root,
    dataDir,
    dbPath,
    databaseUrl,
    sql: (text, params) => sqlIn(root, text, params),
    async newKey(email = 'reader@example.org') {
      const res = await server.app.inject({
        method: 'POST',
        url: `/admin/keys?email=${encodeURIComponent(email)}`,
        headers: { authorization: `Bearer ${secrets.get(root)}` },
      });
      if (res.statusCode !== 200) throw new Error(`key creation failed: ${res.statusCode} ${res.body}`);
      return res.json<{ api_key: string }>().api_key;
    },
    async close() {
      await server.close();
      if (!dir) await rm(root, { recursive: true, force: true });
    },
  };
}

export interface FormFile {
  name: string;
  data: Buffer | (() => Readable);
}

/** A multipart/form-data body, fields and file in the order given (clients choose the order; the server must not care). */
export function multipart(parts: Array<[string, string] | ['file', FormFile]>): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----quire${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      if (typeof value.data === 'function') throw new Error('use multipartStream for streamed files');
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
      );
      chunks.push(value.data, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A multipart body whose file part is `size` streamed bytes, never held in memory; length known in advance. */
export function multipartStream(
  fields: Array<[string, string]>,
  fileName: string,
  size: number,
): { stream: Readable; length: number; headers: Record<string, string> } {
  const boundary = `----quire${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    fields.map(([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(1 << 20, 0x41);
  let left = size;
  let sentHead = false;
  const stream = new Readable({
    read() {
      if (!sentHead) {
        sentHead = true;
        this.push(head);
        return;
      }
      if (left <= 0) {
        this.push(tail);
        this.push(null);
        return;
      }
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
  return { stream, length: head.length + size + tail.length, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Everything under a folder, as sorted relative paths (folders end with /). */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        out.push(`${prefix}${e.name}/`);
        await walk(join(d, e.name), `${prefix}${e.name}/`);
      } else out.push(`${prefix}${e.name}`);
    }
  };
  await walk(dir, '');
  return out.sort();
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The example bundle with its frames `times` over, as one bundle. */
export async function longerBook(times: number): Promise<Buffer> {
  return bookOfFrames(3 * times);
}

/** A bundle of `count` frames (two pages each): the example bundle's frames, cut short or taken over again. */
export async function bookOfFrames(count: number): Promise<Buffer> {
  const entries = await readZip(SAMPLE);
  const frames = ['images/0001.jpg', 'images/0002.jpg', 'images/0003.jpg'].map((f) => entries.get(f)!);
  const images = Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    file: `images/${String(i + 1).padStart(4, '0')}.jpg`,
    data: frames[i % frames.length],
  }));
  const dir = await mkdtemp(join(tmpdir(), 'quire-longer-'));
  try {
    await writeBundleZip(join(dir, 'longer.aglbundle'), bundleFiles({ images }));
    return await readFile(join(dir, 'longer.aglbundle'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
