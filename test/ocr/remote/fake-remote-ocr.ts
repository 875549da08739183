/**
 * A remote OCR service on loopback that speaks the documented protocol (spec/external-apis.md, "remote OCR
 * engine"): `/v1/ocr` with blocks, `/v1/files` and their content, batch jobs with the seven statuses, JSONL output
 * and error files, cancel, Bearer keys. The test steers it: keep batches RUNNING, make them FAIL or time out,
 * fail some batch lines, answer 429 / 500 or drop the connection on chosen requests.
 *
 * It reads nothing of the pictures: a page's text comes from `pageText`, given the page's size in points (tests
 * give pages different sizes to tell them apart) and its index in the document sent.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

/** One block of a page, in fractions of the page (the fake turns them into its pixels). */
export interface FakeBlock {
  type: string;
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageInfo {
  index: number;
  widthPts: number;
  heightPts: number;
}

export type Fault = { status: 429; retryAfter?: string } | { status: 500 | 502 | 503 } | { drop: true };

interface FaultRule {
  method: string;
  path: RegExp;
  fault: Fault;
  times: number;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: Buffer;
}

export interface FakeBatchJob {
  id: string;
  object: 'batch';
  status: 'QUEUED' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'TIMEOUT_EXCEEDED' | 'CANCELLATION_REQUESTED' | 'CANCELLED';
  input_files: string[];
  endpoint: string;
  model: string;
  metadata: Record<string, string>;
  timeout_hours: number;
  output_file: string | null;
  error_file: string | null;
  errors: Array<{ message: string; count?: number }>;
  total_requests: number;
  completed_requests: number;
  succeeded_requests: number;
  failed_requests: number;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
}

/** The fake's own resolution: its `dimensions` are the page in points at this dpi. */
const DPI = 200;

/** Text of a page: a title block at the top, a body block under it. */
export function defaultPageText(info: PageInfo): FakeBlock[] {
  const tag = Math.round(info.widthPts);
  return [
    { type: 'title', text: `# Chapter w${tag}`, x0: 0.1, y0: 0.08, x1: 0.9, y1: 0.16 },
    { type: 'text', text: `The harbour of page w${tag}\nwakes at dawn with **gulls**`, x0: 0.1, y0: 0.6, x1: 0.9, y1: 0.7 },
    { type: 'image', text: '![img-0.jpeg](img-0.jpeg)', x0: 0.2, y0: 0.3, x1: 0.8, y1: 0.5 },
  ];
}

export class FakeRemoteOcr {
  readonly apiKey = `sk-test-${randomBytes(6).toString('hex')}`;
  /** Every request, in order: method, path and (for JSON bodies) the body. */
  readonly requests: Array<{ method: string; path: string; body?: unknown; auth?: string }> = [];
  readonly files = new Map<string, StoredFile>();
  readonly batches = new Map<string, FakeBatchJob>();
  /** Ids of batches a cancel was asked for. */
  readonly cancelled: string[] = [];
  pageText: (info: PageInfo) => FakeBlock[] = defaultPageText;
  /** Leave `blocks` out of replies (a service without them). */
  noBlocks = false;
  /** Batches stay RUNNING while this is true. */
  holdRunning = false;
  /** How a batch ends once let go. */
  batchOutcome: 'SUCCESS' | 'FAILED' | 'TIMEOUT_EXCEEDED' = 'SUCCESS';
  /** Batch lines (custom ids) that fail inside a successful batch. */
  failLines = new Set<string>();
  /** `/v1/ocr` calls that fail for these page sizes (widths in points, rounded), as a batch line would. */
  failOcrWidths = new Set<number>();
  private faults: FaultRule[] = [];
  private server: Server | null = null;
  private seq = 0;

  /** Base URL, once started. */
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) this.json(res, 500, { message: `fake server error: ${String(e)}` });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  /** Fail the next `times` requests matching method and path. */
  fail(method: string, path: RegExp, fault: Fault, times = 1): void {
    this.faults.push({ method, path, fault, times });
  }

  /** Requests seen for a method and path. */
  seen(method: string, path: RegExp): Array<{ method: string; path: string; body?: unknown }> {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  private id(prefix: string): string {
    return `${prefix}-${++this.seq}-${randomBytes(3).toString('hex')}`;
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const raw = await this.body(req);
    const type = req.headers['content-type'] ?? '';
    let parsed: unknown;
    if (type.startsWith('application/json') && raw.length > 0) parsed = JSON.parse(raw.toString('utf8'));
    this.requests.push({ method, path, ...(parsed !== undefined ? { body: parsed } : {}), auth: req.headers.authorization ?? '' });

    const rule = this.faults.find((f) => f.method === method && f.path.test(path) && f.times > 0);
    if (rule) {
      rule.times--;
      if ('drop' in rule.fault) {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = 'retryAfter' in rule.fault && rule.fault.retryAfter !== undefined ? { 'retry-after': rule.fault.retryAfter } : {};
      return this.json(res, rule.fault.status, { message: rule.fault.status === 429 ? 'Rate limit exceeded' : 'Internal error' }, headers);
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return this.json(res, 401, { message: 'Unauthorized' });

    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/ocr') {
      try {
        return this.json(res, 200, await this.ocr(parsed as Record<string, unknown>));
      } catch (e) {
        return this.json(res, 422, { message: `Document could not be processed: ${(e as Error).message}` });
      }
    }
    if (method === 'POST' && path === '/v1/files') return this.upload(req, raw, res);
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) {
      const file = this.files.get(decodeURIComponent(m[1]));
      if (!file) return this.json(res, 404, { message: 'No such file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
      res.end(file.bytes);
      return;
    }
    if (method === 'POST' && path === '/v1/batch/jobs') return this.createBatch(parsed as Record<string, unknown>, res);
    if (method === 'GET' && (m = /^\/v1\/batch\/jobs\/([^/]+)$/.exec(path))) {
      const job = this.batches.get(decodeURIComponent(m[1]));
      if (!job) return this.json(res, 404, { message: 'No such batch job' });
      await this.advance(job);
      return this.json(res, 200, job);
    }
    if (method === 'POST' && (m = /^\/v1\/batch\/jobs\/([^/]+)\/cancel$/.exec(path))) {
      const job = this.batches.get(decodeURIComponent(m[1]));
      if (!job) return this.json(res, 404, { message: 'No such batch job' });
      this.cancelled.push(job.id);
      if (job.status === 'QUEUED' || job.status === 'RUNNING') job.status = 'CANCELLATION_REQUESTED';
      return this.json(res, 200, job);
    }
    return this.json(res, 404, { message: `No route ${method} ${path}` });
  }

  /** The pages of a document reference: their sizes in points. */
  private async pagesOf(document: Record<string, unknown>): Promise<PageInfo[]> {
    const fromDataUrl = (url: string): Buffer => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    let bytes: Buffer;
    let isImage = false;
    if (document.type === 'document_url') bytes = fromDataUrl(String(document.document_url));
    else if (document.type === 'image_url') {
      bytes = fromDataUrl(String(document.image_url));
      isImage = true;
    } else if (document.type === 'file') {
      const file = this.files.get(String(document.file_id));
      if (!file) throw new Error(`no file ${String(document.file_id)}`);
      bytes = file.bytes;
    } else throw new Error(`unknown document type ${String(document.type)}`);
    if (isImage) {
      const meta = await sharp(bytes).metadata();
      const dpi = meta.density ?? 72;
      return [{ index: 0, widthPts: ((meta.width ?? 1) * 72) / dpi, heightPts: ((meta.height ?? 1) * 72) / dpi }];
    }
    const pdf = await PDFDocument.load(bytes);
    return pdf.getPages().map((p, index) => ({ index, widthPts: p.getWidth(), heightPts: p.getHeight() }));
  }

  /** An OCR reply as the service sends it. */
  private async ocr(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const all = await this.pagesOf(body.document as Record<string, unknown>);
    const wanted = Array.isArray(body.pages) ? all.filter((p) => (body.pages as number[]).includes(p.index)) : all;
    for (const p of wanted) if (this.failOcrWidths.has(Math.round(p.widthPts))) throw new Error(`cannot read page of width ${Math.round(p.widthPts)}`);
    const pages = wanted.map((p) => {
      const width = Math.round((p.widthPts * DPI) / 72);
      const height = Math.round((p.heightPts * DPI) / 72);
      const blocks = this.pageText(p);
      return {
        index: p.index,
        markdown: blocks.map((b) => b.text).join('\n\n'),
        images: [],
        dimensions: { dpi: DPI, width, height },
        ...(body.include_blocks && !this.noBlocks
          ? {
              blocks: blocks.map((b) => ({
                type: b.type,
                text: b.text,
                top_left_x: Math.round(b.x0 * width),
                top_left_y: Math.round(b.y0 * height),
                bottom_right_x: Math.round(b.x1 * width),
                bottom_right_y: Math.round(b.y1 * height),
              })),
            }
          : {}),
      };
    });
    return { pages, model: String(body.model), usage_info: { pages_processed: pages.length, doc_size_bytes: null } };
  }

  private async upload(req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const form = await new Request('http://fake/v1/files', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: new Uint8Array(raw),
    }).formData();
    const file = form.get('file');
    const purpose = String(form.get('purpose') ?? '');
    if (!(file instanceof Blob) || !['ocr', 'batch'].includes(purpose)) return this.json(res, 422, { message: 'file and purpose (ocr or batch) are required' });
    const stored: StoredFile = { id: this.id('file'), filename: (file as File).name, purpose, bytes: Buffer.from(await file.arrayBuffer()) };
    this.files.set(stored.id, stored);
    this.requests[this.requests.length - 1].body = { purpose, filename: stored.filename, bytes: stored.bytes.length };
    return this.json(res, 200, {
      id: stored.id,
      object: 'file',
      bytes: stored.bytes.length,
      created_at: Date.now(),
      filename: stored.filename,
      purpose: stored.purpose,
    });
  }

  private createBatch(body: Record<string, unknown>, res: ServerResponse): void {
    const inputs = Array.isArray(body.input_files) ? (body.input_files as string[]) : [];
    if (inputs.length === 0 || body.endpoint !== '/v1/ocr' || typeof body.model !== 'string')
      return this.json(res, 422, { message: 'input_files, endpoint /v1/ocr and model are required' });
    let total = 0;
    for (const id of inputs) {
      const file = this.files.get(id);
      if (!file || file.purpose !== 'batch') return this.json(res, 422, { message: `input file ${id} is not a batch file` });
      for (const line of file.bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')) {
        const parsed = JSON.parse(line) as { custom_id?: unknown; body?: { document?: unknown } };
        if (typeof parsed.custom_id !== 'string' || !parsed.body?.document)
          return this.json(res, 422, { message: 'each line needs custom_id and body.document' });
        total++;
      }
    }
    const job: FakeBatchJob = {
      id: this.id('batch'),
      object: 'batch',
      status: 'QUEUED',
      input_files: inputs,
      endpoint: '/v1/ocr',
      model: body.model as string,
      metadata: (body.metadata as Record<string, string>) ?? {},
      timeout_hours: Number(body.timeout_hours ?? 24),
      output_file: null,
      error_file: null,
      errors: [],
      total_requests: total,
      completed_requests: 0,
      succeeded_requests: 0,
      failed_requests: 0,
      created_at: Math.floor(Date.now() / 1000),
      started_at: null,
      completed_at: null,
    };
    this.batches.set(job.id, job);
    this.json(res, 200, job);
  }

  /** Each look at a batch moves it on: QUEUED → RUNNING → its outcome (unless held); a requested cancel ends CANCELLED. */
  private async advance(job: FakeBatchJob): Promise<void> {
    if (job.status === 'CANCELLATION_REQUESTED') {
      job.status = 'CANCELLED';
      return;
    }
    if (job.status === 'QUEUED') {
      job.status = 'RUNNING';
      job.started_at = Math.floor(Date.now() / 1000);
      return;
    }
    if (job.status !== 'RUNNING' || this.holdRunning) return;
    if (this.batchOutcome !== 'SUCCESS') {
      job.status = this.batchOutcome;
      job.errors = [{ message: this.batchOutcome === 'FAILED' ? 'The model could not process the input file' : 'Batch exceeded its timeout', count: 1 }];
      return;
    }
    const out: string[] = [];
    const errs: string[] = [];
    for (const id of job.input_files) {
      for (const line of this.files
        .get(id)!
        .bytes.toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')) {
        const request = JSON.parse(line) as { custom_id: string; body: Record<string, unknown> };
        if (this.failLines.has(request.custom_id)) {
          errs.push(
            JSON.stringify({
              id: this.id('line'),
              custom_id: request.custom_id,
              response: { status_code: 500, body: { message: 'Page could not be processed' } },
              error: null,
            }),
          );
          continue;
        }
        const reply = await this.ocr({ ...request.body, model: job.model });
        out.push(JSON.stringify({ id: this.id('line'), custom_id: request.custom_id, response: { status_code: 200, body: reply }, error: null }));
      }
    }
    const save = (lines: string[]): string => {
      const file: StoredFile = { id: this.id('file'), filename: `${job.id}.jsonl`, purpose: 'batch', bytes: Buffer.from(lines.join('\n') + '\n') };
      this.files.set(file.id, file);
      return file.id;
    };
    job.output_file = save(out);
    job.error_file = errs.length > 0 ? save(errs) : null;
    job.succeeded_requests = out.length;
    job.failed_requests = errs.length;
    job.completed_requests = out.length + errs.length;
    job.completed_at = Math.floor(Date.now() / 1000);
    job.status = 'SUCCESS';
  }
}
