/**
 * The remote OCR API (Mistral-style), as far as Quire uses it — see `spec/external-apis.md`, "remote OCR engine":
 *
 * - `POST /v1/ocr` `{model, document, pages?, include_blocks?}` → `{pages: [{index, markdown, dimensions, blocks?}], model, usage_info}`
 * - `POST /v1/files` (multipart `file`, `purpose`) → `{id, …}`; `GET /v1/files/{id}/content`
 * - `POST /v1/batch/jobs` `{input_files, endpoint, model, metadata, timeout_hours}` → `{id, status, …}`;
 *   `GET /v1/batch/jobs/{id}`; `POST /v1/batch/jobs/{id}/cancel`
 * - batch input lines `{custom_id, body}`, output lines `{custom_id, response: {status_code, body}}`
 *
 * Replies are checked here, once, into these types; anything else is "a reply Quire cannot read".
 *
 * Blocks (`include_blocks`) are typed regions with corner coordinates, in the pixels of the page's `dimensions`:
 * `{type, text | content | markdown, top_left_x, top_left_y, bottom_right_x, bottom_right_y}` (the corner names the
 * API uses for images) or `bbox: [x0, y0, x1, y1]`. Coordinates that are all within 0–1 are read as fractions of
 * the page.
 */

export const BATCH_STATUSES = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT_EXCEEDED', 'CANCELLATION_REQUESTED', 'CANCELLED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export interface RemoteBlock {
  type: string;
  text: string;
  /** Corners in the page's `dimensions` pixels. */
  box: { x0: number; y0: number; x1: number; y1: number };
}

export interface RemotePage {
  index: number;
  markdown: string;
  dimensions: { dpi: number; width: number; height: number } | null;
  blocks: RemoteBlock[] | null;
}

export interface OcrReply {
  pages: RemotePage[];
}

export interface BatchJob {
  id: string;
  status: BatchStatus;
  outputFile: string | null;
  errorFile: string | null;
  errors: unknown[];
  totalRequests: number | null;
  succeededRequests: number | null;
  failedRequests: number | null;
}

/** One line of a batch's output or error file. */
export interface BatchResultLine {
  customId: string;
  statusCode: number | null;
  /** The OCR reply when the request succeeded. */
  reply: OcrReply | null;
  /** What the service said when it did not. */
  error: string | null;
}

/** Thrown for a reply that does not have the documented shape; the client turns it into a `QuireError`. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function parseBlock(raw: unknown, dims: RemotePage['dimensions']): RemoteBlock | null {
  if (!isObject(raw)) return null;
  const text = str(raw.text) ?? str(raw.content) ?? str(raw.markdown) ?? '';
  let corners: number[] | null = null;
  const named = [raw.top_left_x, raw.top_left_y, raw.bottom_right_x, raw.bottom_right_y].map(num);
  if (named.every((v) => v !== null)) corners = named as number[];
  else if (Array.isArray(raw.bbox) && raw.bbox.length === 4 && raw.bbox.every((v) => num(v) !== null)) corners = raw.bbox as number[];
  if (!corners) return null;
  let [x0, y0, x1, y1] = corners;
  // Fractions of the page: scale them to its pixels so every block is in one frame.
  if (dims && corners.every((v) => v >= 0 && v <= 1) && dims.width > 1 && dims.height > 1) {
    [x0, y0, x1, y1] = [x0 * dims.width, y0 * dims.height, x1 * dims.width, y1 * dims.height];
  }
  if (!(x1 > x0 && y1 > y0)) return null;
  return { type: (str(raw.type) ?? 'text').toLowerCase(), text, box: { x0, y0, x1, y1 } };
}

function parsePage(raw: unknown): RemotePage {
  if (!isObject(raw)) throw new ProtocolError('a page is not an object');
  const index = num(raw.index);
  if (index === null) throw new ProtocolError('a page has no index');
  const d = isObject(raw.dimensions) ? raw.dimensions : null;
  const dimensions = d && num(d.width) && num(d.height) ? { dpi: num(d.dpi) ?? 0, width: num(d.width)!, height: num(d.height)! } : null;
  const blocks = Array.isArray(raw.blocks) ? raw.blocks.map((b) => parseBlock(b, dimensions)).filter((b): b is RemoteBlock => b !== null) : null;
  return { index, markdown: str(raw.markdown) ?? '', dimensions, blocks };
}

export function parseOcrReply(raw: unknown): OcrReply {
  if (!isObject(raw) || !Array.isArray(raw.pages)) throw new ProtocolError('the OCR reply has no pages');
  return { pages: raw.pages.map(parsePage) };
}

export function parseFileId(raw: unknown): string {
  const id = isObject(raw) ? str(raw.id) : null;
  if (!id) throw new ProtocolError('the file upload reply has no id');
  return id;
}

export function parseBatchJob(raw: unknown): BatchJob {
  if (!isObject(raw)) throw new ProtocolError('the batch job reply is not an object');
  const id = str(raw.id);
  const status = str(raw.status)?.toUpperCase();
  if (!id) throw new ProtocolError('the batch job reply has no id');
  if (!status || !(BATCH_STATUSES as readonly string[]).includes(status))
    throw new ProtocolError(`the batch job has an unknown status ${JSON.stringify(raw.status)}`);
  return {
    id,
    status: status as BatchStatus,
    outputFile: str(raw.output_file),
    errorFile: str(raw.error_file),
    errors: Array.isArray(raw.errors) ? raw.errors : [],
    totalRequests: num(raw.total_requests),
    succeededRequests: num(raw.succeeded_requests),
    failedRequests: num(raw.failed_requests),
  };
}

/** The text of an error object or string as services write them (`{message}`, `{error: {message}}`, `{detail}`). */
export function errorText(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (!isObject(raw)) return JSON.stringify(raw) ?? String(raw);
  for (const key of ['message', 'detail', 'error']) {
    const v = raw[key];
    if (typeof v === 'string') return v;
    if (isObject(v)) return errorText(v);
  }
  return JSON.stringify(raw);
}

/** The lines of a batch output or error file; a line that is not JSON is an error of the whole file. */
export function parseBatchResults(jsonl: string): BatchResultLine[] {
  const out: BatchResultLine[] = [];
  for (const [n, line] of jsonl.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new ProtocolError(`line ${n + 1} of the batch output is not JSON`);
    }
    if (!isObject(raw) || !str(raw.custom_id)) throw new ProtocolError(`line ${n + 1} of the batch output has no custom_id`);
    const response = isObject(raw.response) ? raw.response : null;
    const statusCode = response ? num(response.status_code) : null;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300 && raw.error == null;
    let reply: OcrReply | null = null;
    let error: string | null = null;
    if (ok) {
      try {
        reply = parseOcrReply(response!.body);
      } catch (e) {
        error = `unreadable reply: ${(e as Error).message}`;
      }
    } else {
      error = raw.error != null ? errorText(raw.error) : response ? `HTTP ${statusCode ?? '?'}: ${errorText(response.body)}` : 'no response';
    }
    out.push({ customId: raw.custom_id as string, statusCode, reply, error });
  }
  return out;
}
