/**
 * The remote OCR engine `remoteocr`, in two modes:
 *
 * - `streaming` (the default): the document goes to `POST /v1/ocr` in PDF chunks (≤ 1000 pages, ≤ 50 MB), and each
 *   page of the replies becomes an `OcrPage`, its text placed block by block (see `layout.ts`).
 * - `batch`: the chunks are uploaded (`POST /v1/files`, purpose `ocr`), then a JSONL input with one line per page
 *   (`custom_id` `page-<n>`, the chunk's `file_id` and the page in it), then a batch job is created, and the call
 *   returns a ticket at once. `poll` maps the job's status: QUEUED, RUNNING (and CANCELLATION_REQUESTED, still
 *   moving) are pending; SUCCESS downloads the output (and error) file and maps each line back to its page by
 *   `custom_id` — a page whose line failed is read again through `/v1/ocr`, once; FAILED, TIMEOUT_EXCEEDED and
 *   CANCELLED fail with the batch's errors in `detail`.
 *
 * Settings (base URL, model, API key) are read at each call, so a key set while a server runs is used at once; a
 * missing key fails before any request. The spec option `model=` overrides the stored model. Languages are not
 * the service's business: it reads any; the caller detects them from the text.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import sharp from 'sharp';
import { ERROR_CODES, QuireError } from '../../errors.js';
import type { OcrBatchPoll, OcrDocument, OcrDocumentOptions, OcrEngine, OcrInput } from '../types.js';
import type { OcrBatchTicket, OcrPage } from '../../project/index.js';
import { makeChunks, planChunks, DEFAULT_CHUNK_LIMITS, type Chunk, type ChunkLimits } from './chunks.js';
import { createRemoteOcrClient, REMOTE_FAILED, type RemoteOcrClient, type RemoteOcrClientOptions } from './client.js';
import { pageFromRemote, REMOTE_ENGINE } from './layout.js';
import type { BatchJob, BatchResultLine, BatchStatus, OcrReply } from './protocol.js';
import { API_KEY_ENV, readRemoteOcrSettings, readRemoteOcrTimeouts, type RemoteOcrSettings } from './settings.js';

export interface RemoteOcrEngineOptions {
  /** Where settings come from; default the stored ones (see `settings.ts`), read at each call. */
  settings?: () => RemoteOcrSettings;
  /** Retries, timeouts and waits of the HTTP client. */
  client?: Pick<RemoteOcrClientOptions, 'retry' | 'timeouts' | 'sleep'>;
  /** Chunk limits; default 1000 pages and 50 MB. */
  limits?: Partial<ChunkLimits>;
  /** `timeout_hours` of a batch job: the service gives up on it after this. Default 24. */
  batchTimeoutHours?: number;
}

type EngineCallOptions = OcrDocumentOptions & { engineOptions?: Record<string, string> };

const PENDING_STATUSES: readonly BatchStatus[] = ['QUEUED', 'RUNNING', 'CANCELLATION_REQUESTED'];

export const MISSING_KEY_REASON = `The remote OCR engine has no API key; set one with quire config set-secret remoteocr.api_key, or the ${API_KEY_ENV} environment variable.`;

function customId(page: number): string {
  return `page-${page + 1}`;
}

function pageOfCustomId(id: string): number | null {
  const m = /^page-(\d+)$/.exec(id);
  return m ? Number(m[1]) - 1 : null;
}

function dataUrl(type: string, bytes: Uint8Array): string {
  return `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** A page image as the service takes images: JPEG and PNG as they are, anything else (G4 TIFF) as PNG. */
async function imageDataUrl(file: string): Promise<string> {
  const ext = extname(file).toLowerCase();
  const bytes = await readFile(file);
  if (ext === '.jpg' || ext === '.jpeg') return dataUrl('image/jpeg', bytes);
  if (ext === '.png') return dataUrl('image/png', bytes);
  return dataUrl('image/png', await sharp(bytes).png().toBuffer());
}

/** The reply's page for position `k` of a request: by its index, which the service counts from 0 in the document sent. */
function replyPage(reply: OcrReply, k: number): OcrReply['pages'][number] | undefined {
  return reply.pages.find((p) => p.index === k);
}

function statusSentence(status: BatchStatus): string {
  if (status === 'TIMEOUT_EXCEEDED') return 'The remote OCR batch took longer than the service allows, so the service stopped it.';
  if (status === 'CANCELLED') return 'The remote OCR batch was cancelled.';
  return 'The remote OCR service reported the batch as failed.';
}

function batchDetail(job: BatchJob): string {
  const counts = `${job.succeededRequests ?? '?'} of ${job.totalRequests ?? '?'} pages read, ${job.failedRequests ?? '?'} failed`;
  return `batch ${job.id} ${job.status}: ${counts}${job.errors.length > 0 ? `; errors: ${JSON.stringify(job.errors).slice(0, 2000)}` : ''}`;
}

export function createRemoteOcrEngine(options: RemoteOcrEngineOptions = {}): OcrEngine {
  const limits: ChunkLimits = { ...DEFAULT_CHUNK_LIMITS, ...options.limits };
  const readSettings = options.settings ?? (() => readRemoteOcrSettings());

  /** The settings and a client for this call; the missing-key error comes here, before any request. */
  function connect(): { settings: RemoteOcrSettings; client: RemoteOcrClient } {
    const settings = readSettings();
    if (!settings.apiKey) throw new QuireError(ERROR_CODES.USAGE, MISSING_KEY_REASON);
    const client = options.client ?? {};
    const timeouts = { ...(options.settings ? {} : readRemoteOcrTimeouts()), ...client.timeouts };
    return { settings, client: createRemoteOcrClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, ...client, timeouts }) };
  }

  const modelOf = (settings: RemoteOcrSettings, call?: EngineCallOptions): string => call?.engineOptions?.model ?? settings.model;

  async function chunksOf(document: OcrDocument): Promise<Chunk[]> {
    const chunks: Chunk[] = [];
    for (const range of planChunks(document.pageBytes, limits)) chunks.push(...(await makeChunks(document, range, limits)));
    return chunks;
  }

  /** Read one page again through `/v1/ocr` (a batch line that failed). */
  async function readPageAgain(client: RemoteOcrClient, model: string, document: OcrDocument, i: number, languages: string[], signal?: AbortSignal): Promise<OcrPage> {
    const pdf = await document.pdf(i, i + 1);
    const reply = await client.ocr({ model, document: { type: 'document_url', document_url: dataUrl('application/pdf', pdf) }, include_blocks: true }, signal);
    const page = replyPage(reply, 0) ?? reply.pages[0];
    if (!page) throw new QuireError(REMOTE_FAILED, `The remote OCR service returned no text for page ${i + 1}.`);
    return pageFromRemote(page, document.pages[i], languages);
  }

  /** The pages of a finished batch, by custom id; failed lines are read again, once. */
  async function collect(client: RemoteOcrClient, model: string, jobs: BatchJob[], document: OcrDocument, signal?: AbortSignal): Promise<OcrBatchPoll> {
    const lines: BatchResultLine[] = [];
    for (const job of jobs) {
      if (job.outputFile) lines.push(...(await client.batchResults(job.outputFile, signal)));
      if (job.errorFile) lines.push(...(await client.batchResults(job.errorFile, signal)));
    }
    const pages: Array<OcrPage | undefined> = new Array(document.pages.length);
    const problems = new Map<number, string>();
    for (const line of lines) {
      const i = pageOfCustomId(line.customId);
      if (i === null || i >= document.pages.length || pages[i]) continue;
      // One page was asked per line: the reply's only page, whatever index the service gives it.
      const page = line.reply?.pages[0];
      if (page) pages[i] = pageFromRemote(page, document.pages[i], []);
      else problems.set(i, line.error ?? 'no page in the reply');
    }
    for (let i = 0; i < pages.length; i++) {
      if (pages[i]) continue;
      const why = problems.get(i) ?? 'missing from the batch output';
      try {
        pages[i] = await readPageAgain(client, model, document, i, [], signal);
      } catch (e) {
        if (e instanceof QuireError && e.code === ERROR_CODES.CANCELLED) throw e;
        const again = e instanceof QuireError ? `${e.message} ${e.detail ?? ''}` : String(e);
        return { state: 'failed', message: `The remote OCR service could not read page ${i + 1} of the batch.`, detail: `batch line ${customId(i)}: ${why}; read again: ${again}` };
      }
    }
    return { state: 'done', pages: pages as OcrPage[] };
  }

  return {
    name: REMOTE_ENGINE,
    display: 'Remote OCR',
    description: 'A remote OCR service (Mistral-style API): whole documents in PDF chunks, streaming or as a batch.',
    options: [
      { name: 'model', description: 'the OCR model (default: the remoteocr.model setting)' },
      { name: 'layout', description: "a local engine (tesseract) whose word boxes the remote text is aligned onto; costs that engine's time" },
    ],
    modes: [
      { name: 'streaming', description: 'send the pages and wait for the text' },
      { name: 'batch', description: 'submit the pages as a batch job and finish later (cheaper, slower)' },
    ],
    async available() {
      try {
        return readSettings().apiKey ? { ok: true } : { ok: false, reason: MISSING_KEY_REASON };
      } catch (e) {
        return { ok: false, reason: `The remote OCR settings cannot be read: ${e instanceof Error ? e.message : String(e)}.` };
      }
    },
    languages() {
      return [];
    },
    async recognize(page: OcrInput, languages: string[], call?: { signal?: AbortSignal }) {
      const { settings, client } = connect();
      const reply = await client.ocr({ model: settings.model, document: { type: 'image_url', image_url: await imageDataUrl(page.file) }, include_blocks: true }, call?.signal);
      const remote = replyPage(reply, 0) ?? reply.pages[0];
      if (!remote) throw new QuireError(REMOTE_FAILED, 'The remote OCR service returned no page for the image.');
      return pageFromRemote(remote, page, languages);
    },
    async recognizeDocument(document, languages, call?: EngineCallOptions) {
      const { settings, client } = connect();
      const model = modelOf(settings, call);
      const out: OcrPage[] = [];
      for (const range of planChunks(document.pageBytes, limits)) {
        for (const chunk of await makeChunks(document, range, limits)) {
          if (call?.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
          const reply = await client.ocr({ model, document: { type: 'document_url', document_url: dataUrl('application/pdf', chunk.pdf) }, include_blocks: true }, call?.signal);
          for (let i = chunk.from; i < chunk.to; i++) {
            const remote = replyPage(reply, i - chunk.from);
            if (!remote) {
              throw new QuireError(REMOTE_FAILED, `The remote OCR service returned ${reply.pages.length} of the ${chunk.to - chunk.from} pages sent.`, `no page with index ${i - chunk.from} in the reply for pages ${chunk.from + 1}–${chunk.to}`);
            }
            out.push(pageFromRemote(remote, document.pages[i], languages));
            call?.onPage?.(out.length, document.pages.length);
          }
        }
      }
      return out;
    },
    async submitBatch(document, _languages, call?: EngineCallOptions) {
      const { settings, client } = connect();
      const model = modelOf(settings, call);
      const label = call?.label ?? 'document';
      const signal = call?.signal;
      const chunks = await chunksOf(document);
      const lines: string[] = [];
      const fileIds: string[] = [];
      for (const [k, chunk] of chunks.entries()) {
        const fileId = await client.uploadFile(`${label.replace(/[^\w.-]+/g, '_')}-${k + 1}.pdf`, chunk.pdf, 'application/pdf', 'ocr', signal);
        fileIds.push(fileId);
        for (let i = chunk.from; i < chunk.to; i++) {
          // The uploaded file, not a signed URL: a URL can expire before a day-long batch ends.
          lines.push(JSON.stringify({ custom_id: customId(i), body: { document: { type: 'file', file_id: fileId }, pages: [i - chunk.from], include_blocks: true } }));
        }
      }
      const input = await client.uploadFile(`${label.replace(/[^\w.-]+/g, '_')}.jsonl`, Buffer.from(lines.join('\n') + '\n'), 'application/jsonl', 'batch', signal);
      const job = await client.createBatch(
        {
          input_files: [input],
          endpoint: '/v1/ocr',
          model,
          metadata: { project: label, pages: String(document.pages.length), source: 'quire' },
          timeout_hours: options.batchTimeoutHours ?? 24,
        },
        signal,
      );
      return { batchIds: [job.id], submittedAt: new Date().toISOString(), data: { model, pages: document.pages.length, fileIds: [...fileIds, input] } };
    },
    async poll(ticket: OcrBatchTicket, document: OcrDocument, call?: { signal?: AbortSignal }): Promise<OcrBatchPoll> {
      const { settings, client } = connect();
      const model = typeof ticket.data?.model === 'string' ? ticket.data.model : settings.model;
      const jobs: BatchJob[] = [];
      for (const id of ticket.batchIds) jobs.push(await client.getBatch(id, call?.signal));
      const ended = jobs.find((j) => j.status === 'FAILED' || j.status === 'TIMEOUT_EXCEEDED' || j.status === 'CANCELLED');
      if (ended) return { state: 'failed', message: statusSentence(ended.status), detail: batchDetail(ended) };
      const running = jobs.find((j) => PENDING_STATUSES.includes(j.status));
      if (running) return { state: 'pending', status: running.status };
      return collect(client, model, jobs, document, call?.signal);
    },
    async cancel(ticket: OcrBatchTicket) {
      const { client } = connect();
      for (const id of ticket.batchIds) {
        const job = await client.getBatch(id);
        // A finished batch has nothing left to stop.
        if (PENDING_STATUSES.includes(job.status) && job.status !== 'CANCELLATION_REQUESTED') await client.cancelBatch(id);
      }
    },
  };
}
