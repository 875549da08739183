import { randomBytes } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { formatBytes } from '../util/index.js';
import { isDiskFull } from './disk.js';
import { apiError } from './http-errors.js';

/** Upload extensions `/run` takes, and how each is stored in the job folder. */
const UPLOAD_TYPES: Record<string, 'zip' | 'pdf'> = { '.aglbundle': 'zip', '.zip': 'zip', '.pdf': 'pdf' };

export function uploadType(filename: string): 'zip' | 'pdf' | null {
  return UPLOAD_TYPES[extname(filename).toLowerCase()] ?? null;
}

/** The uploaded file's own name, without any folder a client put in front of it, and printable. */
export function cleanUploadName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '').slice(-255) || 'upload';
}

/** Writes to disk in batches of this size: the parser hands out ~64 KiB chunks, and fewer, larger writes cost less. */
const WRITE_BYTES = 1 << 20;

/**
 * A file sink that gathers the parser's chunks and writes them `batch` bytes at a time with one `writev` each:
 * no copying in JavaScript, a twentieth of the system calls. The file is created exclusively (`wx`).
 */
export function fileSink(path: string, batch = WRITE_BYTES): Writable {
  let handle: FileHandle | null = null;
  let held: Buffer[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    let chunks = held;
    let left = bytes;
    held = [];
    bytes = 0;
    // A regular file takes all of a writev, short of a full disk, which the next call then reports.
    while (left > 0) {
      const { bytesWritten } = await handle!.writev(chunks);
      left -= bytesWritten;
      if (left > 0) chunks = after(chunks, bytesWritten);
    }
  };
  return new Writable({
    construct(done) {
      open(path, 'wx', 0o600).then((h) => {
        handle = h;
        done();
      }, done);
    },
    write(chunk: Buffer, _encoding, done) {
      held.push(chunk);
      bytes += chunk.length;
      if (bytes < batch) return done();
      flush().then(() => done(), done);
    },
    final(done) {
      flush()
        .then(() => handle!.close())
        .then(() => done(), done);
    },
    destroy(error, done) {
      const h = handle;
      handle = null;
      if (!h) return done(error);
      h.close().then(
        () => done(error),
        () => done(error),
      );
    },
  });
}

/** What is left of `chunks` once its first `n` bytes are written. */
function after(chunks: Buffer[], n: number): Buffer[] {
  const rest: Buffer[] = [];
  for (const c of chunks) {
    if (n >= c.length) n -= c.length;
    else {
      rest.push(n > 0 ? c.subarray(n) : c);
      n = 0;
    }
  }
  return rest;
}

export interface Upload {
  /** Where the complete file sits, under a temporary name, until it is moved into its job folder. */
  tempPath: string;
  name: string;
  type: 'zip' | 'pdf';
}

export interface RunForm {
  fields: Record<string, string>;
  upload: Upload | null;
}

/** Form limits: a job's form has a handful of short fields and one file. */
const FIELD_LIMITS = { fields: 10, fieldSize: 4096, fieldNameSize: 100, parts: 12, headerPairs: 100 };

/** Said to a client that sends its file before its key: the file is not read. */
export const KEY_FIRST =
  'A valid API key is needed before the file: send it in an Authorization: Bearer or X-API-Key header, or as the api_key field before the file.';

export interface RunFormOptions {
  tempDir: string;
  maxUpload: number;
  /** The key came in a header and was checked before the body: the form's api_key is not needed. */
  keyKnown: boolean;
  /** Check the form's api_key (and what the key may do); throws to refuse the upload. */
  checkKey: (apiKey: string) => Promise<void>;
  /** Nothing arrived for this long: the upload is cut. */
  idleMs: number;
  /** No valid key by then: the upload is refused and its connection closed. */
  keyWaitMs: number;
  /** The whole upload may not take longer than this. */
  deadlineMs: number;
  /** Fewer bytes than this a second, over any `idleMs`, and the upload is cut: a trickle holds a slot for nothing. */
  minBytesPerSecond: number;
}

/**
 * Read `/run`'s form, streaming the file to `tempDir`. The key must be known before the file: from a header, or
 * the `api_key` field sent before it; a file part before a verified key is refused at once, unread. An upload that
 * stalls (`idleMs`), trickles past `deadlineMs`, or has sent no key within `keyWaitMs` is cut. Any failure (bad
 * extension, size limit, full disk, dropped connection, refused key, timeout) removes the partial file before it
 * propagates.
 */
export async function readRunForm(request: FastifyRequest, options: RunFormOptions): Promise<RunForm> {
  if (!request.isMultipart()) throw apiError('bad_request', 'The request body must be a multipart form with the file and api_key.');
  const fields: Record<string, string> = {};
  let upload: Upload | null = null;
  let tempPath: string | null = null;
  let keyChecked = options.keyKnown;
  const cut = new AbortController();
  const stop = (e: Error): void => {
    if (!cut.signal.aborted) cut.abort(e);
  };
  let idle: NodeJS.Timeout | undefined;
  const touch = (): void => {
    clearTimeout(idle);
    idle = setTimeout(
      () => stop(apiError('upload_timeout', `The upload stalled: nothing arrived for ${Math.round(options.idleMs / 1000)} seconds.`)),
      options.idleMs,
    );
  };
  const keyDeadline = keyChecked ? undefined : setTimeout(() => stop(apiError('unauthorized', KEY_FIRST)), options.keyWaitMs);
  // Counted window by window: a client sending a byte now and then is as stalled as one sending nothing.
  let windowBytes = 0;
  const windowMin = (options.minBytesPerSecond * options.idleMs) / 1000;
  const received = (chunk: Buffer): void => {
    windowBytes += chunk.length;
    touch();
  };
  const rate = setInterval(() => {
    if (windowBytes < windowMin)
      stop(apiError('upload_timeout', `The upload came slower than ${formatBytes(options.minBytesPerSecond)} a second, the least this server takes.`));
    windowBytes = 0;
  }, options.idleMs);
  const deadline = setTimeout(
    () => stop(apiError('upload_timeout', `The upload took longer than the ${Math.round(options.deadlineMs / 60_000)} minutes this server allows one.`)),
    options.deadlineMs,
  );
  const aborted = new Promise<never>((_resolve, reject) => cut.signal.addEventListener('abort', () => reject(cut.signal.reason as Error), { once: true }));
  // Only ever rejects; a race that lost to it is not an unhandled rejection.
  aborted.catch(() => undefined);
  try {
    const parts = request.parts({ limits: { ...FIELD_LIMITS, files: 1, fileSize: options.maxUpload } });
    touch();
    request.raw.on('data', received);
    const iterator = parts[Symbol.asyncIterator]();
    for (;;) {
      const next = iterator.next();
      next.catch(() => undefined);
      const { value: part, done } = await Promise.race([next, aborted]);
      if (done) break;
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        if (part.fieldname === 'api_key' && !keyChecked) {
          await Promise.race([options.checkKey(fields.api_key), aborted]);
          keyChecked = true;
          clearTimeout(keyDeadline);
        }
        continue;
      }
      // Not a byte of the file is read, let alone written, for a caller not known yet.
      if (!keyChecked) throw apiError('unauthorized', KEY_FIRST);
      if (part.fieldname !== 'file') throw apiError('bad_request', `The form has a file in "${part.fieldname}"; send it as "file".`);
      const name = cleanUploadName(part.filename);
      const type = uploadType(name);
      if (!type) throw apiError('unsupported_file');
      tempPath = join(options.tempDir, `${randomBytes(12).toString('hex')}.part`);
      try {
        await pipeline(part.file, fileSink(tempPath), { signal: cut.signal });
      } catch (e) {
        if (cut.signal.aborted) throw cut.signal.reason as Error;
        if (isDiskFull(e)) throw apiError('disk_full');
        throw e;
      }
      // With throwFileSizeLimit the stream errors first; `truncated` is the belt to those braces.
      if (part.file.truncated) throw apiError('too_large');
      upload = { tempPath, name, type };
    }
    if (!keyChecked) await options.checkKey(fields.api_key ?? '');
    return { fields, upload };
  } catch (e) {
    if (tempPath) await rm(tempPath, { force: true });
    throw e;
  } finally {
    clearTimeout(idle);
    clearTimeout(keyDeadline);
    clearTimeout(deadline);
    clearInterval(rate);
    request.raw.off('data', received);
  }
}

/** The fields of a small POST form (`/delete`, `/cancel`, admin forms): multipart, or URL-encoded from a plain HTML form. */
export async function readFields(request: FastifyRequest): Promise<Record<string, string>> {
  if (request.isMultipart()) {
    const fields: Record<string, string> = {};
    for await (const part of request.parts({ limits: { ...FIELD_LIMITS, files: 0 } })) {
      if (part.type === 'file') throw apiError('bad_request', 'This form takes no file.');
      fields[part.fieldname] = String(part.value);
    }
    return fields;
  }
  const body = request.body;
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  }
  return {};
}
