/**
 * The test suite's own document corpus, speaking the documented contract exactly (no public
 * implementation exists):
 *
 * - `GET /healthz`: 200, no key needed.
 * - `GET /openapi.json`: 200 with the right `X-API-Key`; 401 without one, 403 with a wrong one.
 * - `POST /book/upload`, `X-API-Key`, multipart `file` plus any of `title`, `author`, `publisher`,
 *   `language`, `year`, `pages`, `categories`: 201 `{id, path, bytes}` added; 200 when a book
 *   with the same title and author is already there; 400 for an extension not admitted or an
 *   empty file; 413 for a file over the limit (2 GiB, configurable here); 401/403 for the key.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

export const ADMITTED = ['pdf', 'md', 'txt', 'epub', 'html', 'textpack'];
export const METADATA_FIELDS = ['title', 'author', 'publisher', 'language', 'year', 'pages', 'categories'];

/** One request as the corpus saw it. */
export interface CorpusRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** For an upload: every form field name in order, with its value (the file as its name). */
  form?: Array<[string, string]>;
  status: number;
}

/** One stored book. */
export interface CorpusBook {
  id: string;
  fields: Record<string, string>;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface CorpusServer {
  url: string;
  requests: CorpusRequest[];
  books: CorpusBook[];
  stop(): Promise<void>;
}

const json = (status: number, body: unknown): { status: number; body: string } => ({ status, body: JSON.stringify(body) });

/** Start the corpus on 127.0.0.1 with one valid API key. */
export async function startCorpus(options: { apiKey: string; maxFileBytes?: number }): Promise<CorpusServer> {
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 ** 3;
  const requests: CorpusRequest[] = [];
  const books: CorpusBook[] = [];

  const keyProblem = (headers: IncomingHttpHeaders): { status: number; body: string } | undefined => {
    const key = headers['x-api-key'];
    if (key === undefined || key === '') return json(401, { detail: 'missing API key' });
    if (key !== options.apiKey) return json(403, { detail: 'invalid API key' });
    return undefined;
  };

  const upload = async (headers: IncomingHttpHeaders, body: Buffer, record: CorpusRequest): Promise<{ status: number; body: string }> => {
    const refused = keyProblem(headers);
    if (refused) return refused;
    let form: FormData;
    try {
      form = await new Response(Uint8Array.from(body), { headers: { 'content-type': headers['content-type'] ?? '' } }).formData();
    } catch {
      return json(400, { detail: 'not a multipart form' });
    }
    record.form = [...form.entries()].map(([name, value]) => [name, typeof value === 'string' ? value : value.name]);
    const file = form.get('file');
    if (file === null || typeof file === 'string') return json(400, { detail: 'no file' });
    const extension = file.name.includes('.') ? file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase() : '';
    if (!ADMITTED.includes(extension)) return json(400, { detail: `extension .${extension} not admitted` });
    if (file.size === 0) return json(400, { detail: 'empty file' });
    if (file.size > maxFileBytes) return json(413, { detail: 'file too large' });
    const fields: Record<string, string> = {};
    for (const name of METADATA_FIELDS) {
      const value = form.get(name);
      if (typeof value === 'string') fields[name] = value;
    }
    const same = books.find((b) => b.fields.title === fields.title && b.fields.author === fields.author);
    if (same) return json(200, { id: same.id, path: `books/${same.id}.${extension}`, bytes: same.bytes.length });
    const id = `bk-${books.length + 1}`;
    books.push({ id, fields, filename: file.name, contentType: file.type, bytes: Buffer.from(await file.arrayBuffer()) });
    return json(201, { id, path: `books/${id}.${extension}`, bytes: file.size });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const record: CorpusRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, status: 0 };
    requests.push(record);
    const answer = ({ status, body }: { status: number; body: string }): void => {
      record.status = status;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(body);
    };
    // A body far over the limit is not kept: drained, then refused. (Answering before the upload
    // ends and closing would be a TCP race the client can lose, a reset eating the reply.)
    if (Number(req.headers['content-length'] ?? 0) > maxFileBytes + 1024 * 1024) {
      req.resume();
      req.on('end', () => answer(json(413, { detail: 'file too large' })));
      return;
    }
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      if (route === 'GET /healthz') return answer(json(200, { status: 'ok' }));
      if (route === 'GET /openapi.json') return answer(keyProblem(req.headers) ?? json(200, { openapi: '3.1.0', paths: { '/book/upload': { post: {} } } }));
      if (route === 'POST /book/upload') {
        upload(req.headers, Buffer.concat(chunks), record).then(answer, () => answer(json(500, { detail: 'internal error' })));
        return;
      }
      answer(json(404, { detail: 'not found' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    books,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
