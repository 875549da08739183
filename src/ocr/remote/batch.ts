/**
 * The remote OCR engine's batch mode: the chunks uploaded with a JSONL input of one line per page and a batch job
 * created (`submitBatch`); the job's status mapped, and once it succeeded its output read back page by page
 * (`pollBatch`); a running batch stopped (`cancelBatch`). See `engine.ts` for the whole protocol.
 */
import { ERROR_CODES, QuireError } from '../../errors.js';
import type { OcrBatchTicket, OcrPage } from '../../project/index.js';
import type { OcrBatchPoll, OcrDocument } from '../types.js';
import type { Chunk } from './chunks.js';
import { REMOTE_FAILED, type RemoteOcrClient } from './client.js';
import { pageFromRemote } from './layout.js';
import type { BatchJob, BatchResultLine, BatchStatus } from './protocol.js';
import { dataUrl, replyPage } from './requests.js';

const PENDING_STATUSES: readonly BatchStatus[] = ['QUEUED', 'RUNNING', 'CANCELLATION_REQUESTED'];

function customId(page: number): string {
  return `page-${page + 1}`;
}

function pageOfCustomId(id: string): number | null {
  const m = /^page-(\d+)$/.exec(id);
  return m ? Number(m[1]) - 1 : null;
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

/** Read one page again through `/v1/ocr` (a batch line that failed). */
async function readPageAgain(
  client: RemoteOcrClient,
  model: string,
  document: OcrDocument,
  i: number,
  languages: string[],
  signal?: AbortSignal,
): Promise<OcrPage> {
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
      return {
        state: 'failed',
        message: `The remote OCR service could not read page ${i + 1} of the batch.`,
        detail: `batch line ${customId(i)}: ${why}; read again: ${again}`,
      };
    }
  }
  return { state: 'done', pages: pages as OcrPage[] };
}

export interface BatchSubmission {
  model: string;
  /** The document's name, in the uploaded files' names and the job's metadata. */
  label: string;
  timeoutHours: number;
  signal?: AbortSignal | undefined;
}

/** Upload the chunks and the JSONL input, create the batch job; the ticket to poll it with. */
export async function submitBatch(client: RemoteOcrClient, document: OcrDocument, chunks: Chunk[], submission: BatchSubmission): Promise<OcrBatchTicket> {
  const { model, label, signal } = submission;
  const lines: string[] = [];
  const fileIds: string[] = [];
  for (const [k, chunk] of chunks.entries()) {
    const fileId = await client.uploadFile(`${label.replace(/[^\w.-]+/g, '_')}-${k + 1}.pdf`, chunk.pdf, 'application/pdf', 'ocr', signal);
    fileIds.push(fileId);
    for (let i = chunk.from; i < chunk.to; i++) {
      // The uploaded file, not a signed URL: a URL can expire before a day-long batch ends.
      lines.push(
        JSON.stringify({ custom_id: customId(i), body: { document: { type: 'file', file_id: fileId }, pages: [i - chunk.from], include_blocks: true } }),
      );
    }
  }
  const input = await client.uploadFile(`${label.replace(/[^\w.-]+/g, '_')}.jsonl`, Buffer.from(lines.join('\n') + '\n'), 'application/jsonl', 'batch', signal);
  const job = await client.createBatch(
    {
      input_files: [input],
      endpoint: '/v1/ocr',
      model,
      metadata: { project: label, pages: String(document.pages.length), source: 'quire' },
      timeout_hours: submission.timeoutHours,
    },
    signal,
  );
  return { batchIds: [job.id], submittedAt: new Date().toISOString(), data: { model, pages: document.pages.length, fileIds: [...fileIds, input] } };
}

/** Where a batch stands: pending, failed with the service's words, or done with every page (failed lines read again). */
export async function pollBatch(
  client: RemoteOcrClient,
  model: string,
  ticket: OcrBatchTicket,
  document: OcrDocument,
  signal?: AbortSignal,
): Promise<OcrBatchPoll> {
  const jobs: BatchJob[] = [];
  for (const id of ticket.batchIds) jobs.push(await client.getBatch(id, signal));
  const ended = jobs.find((j) => j.status === 'FAILED' || j.status === 'TIMEOUT_EXCEEDED' || j.status === 'CANCELLED');
  if (ended) return { state: 'failed', message: statusSentence(ended.status), detail: batchDetail(ended) };
  const running = jobs.find((j) => PENDING_STATUSES.includes(j.status));
  if (running) return { state: 'pending', status: running.status };
  return collect(client, model, jobs, document, signal);
}

/** Stop the batch's jobs that still run. */
export async function cancelBatch(client: RemoteOcrClient, ticket: OcrBatchTicket): Promise<void> {
  for (const id of ticket.batchIds) {
    const job = await client.getBatch(id);
    // A finished batch has nothing left to stop.
    if (PENDING_STATUSES.includes(job.status) && job.status !== 'CANCELLATION_REQUESTED') await client.cancelBatch(id);
  }
}
