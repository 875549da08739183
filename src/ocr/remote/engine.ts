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
import { ERROR_CODES, QuireError } from '../../errors.js';
import type { OcrBatchPoll, OcrDocument, OcrDocumentOptions, OcrEngine, OcrInput } from '../types.js';
import type { OcrBatchTicket, OcrPage } from '../../project/index.js';
import { makeChunks, planChunks, DEFAULT_CHUNK_LIMITS, type Chunk, type ChunkLimits } from './chunks.js';
import { createRemoteOcrClient, REMOTE_FAILED, type RemoteOcrClient, type RemoteOcrClientOptions } from './client.js';
import { cancelBatch, pollBatch, submitBatch } from './batch.js';
import { pageFromRemote, REMOTE_ENGINE } from './layout.js';
import { dataUrl, imageDataUrl, replyPage } from './requests.js';
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

export const MISSING_KEY_REASON = `The remote OCR engine has no API key; set one with quire config set-secret remoteocr.api_key, or the ${API_KEY_ENV} environment variable.`;

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
      const reply = await client.ocr(
        { model: settings.model, document: { type: 'image_url', image_url: await imageDataUrl(page.file) }, include_blocks: true },
        call?.signal,
      );
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
          const reply = await client.ocr(
            { model, document: { type: 'document_url', document_url: dataUrl('application/pdf', chunk.pdf) }, include_blocks: true },
            call?.signal,
          );
          for (let i = chunk.from; i < chunk.to; i++) {
            const remote = replyPage(reply, i - chunk.from);
            if (!remote) {
              throw new QuireError(
                REMOTE_FAILED,
                `The remote OCR service returned ${reply.pages.length} of the ${chunk.to - chunk.from} pages sent.`,
                `no page with index ${i - chunk.from} in the reply for pages ${chunk.from + 1}–${chunk.to}`,
              );
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
      const submission = {
        model: modelOf(settings, call),
        label: call?.label ?? 'document',
        timeoutHours: options.batchTimeoutHours ?? 24,
        signal: call?.signal,
      };
      return submitBatch(client, document, await chunksOf(document), submission);
    },
    async poll(ticket: OcrBatchTicket, document: OcrDocument, call?: { signal?: AbortSignal }): Promise<OcrBatchPoll> {
      const { settings, client } = connect();
      const model = typeof ticket.data?.model === 'string' ? ticket.data.model : settings.model;
      return pollBatch(client, model, ticket, document, call?.signal);
    },
    async cancel(ticket: OcrBatchTicket) {
      await cancelBatch(connect().client, ticket);
    },
  };
}
