import { randomBytes } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
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
      h.close().then(() => done(error), () => done(error));
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

/**
 * Read `/run`'s form, streaming the file to `tempDir`. `checkKey` runs as soon as `api_key` has arrived and before
 * any byte of the file is written when the key comes first (curl sends fields in the order given). Any failure
 * (bad extension, size limit, dropped connection, refused key) removes the partial file before it propagates.
 */
export async function readRunForm(
  request: FastifyRequest,
  options: { tempDir: string; maxUpload: number; checkKey: (apiKey: string) => Promise<void> },
): Promise<RunForm> {
  if (!request.isMultipart()) throw apiError('bad_request', 'The request body must be a multipart form with the file and api_key.');
  const fields: Record<string, string> = {};
  let upload: Upload | null = null;
  let tempPath: string | null = null;
  let keyChecked = false;
  try {
    const parts = request.parts({ limits: { ...FIELD_LIMITS, files: 1, fileSize: options.maxUpload } });
    for await (const part of parts) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        if (part.fieldname === 'api_key' && !keyChecked) {
          keyChecked = true;
          await options.checkKey(fields.api_key);
        }
        continue;
      }
      if (part.fieldname !== 'file') throw apiError('bad_request', `The form has a file in "${part.fieldname}"; send it as "file".`);
      const name = cleanUploadName(part.filename);
      const type = uploadType(name);
      if (!type) throw apiError('unsupported_file');
      tempPath = join(options.tempDir, `${randomBytes(12).toString('hex')}.part`);
      await pipeline(part.file, fileSink(tempPath));
      // With throwFileSizeLimit the stream errors first; `truncated` is the belt to those braces.
      if (part.file.truncated) throw apiError('too_large');
      upload = { tempPath, name, type };
    }
    if (!keyChecked) await options.checkKey(fields.api_key ?? '');
    return { fields, upload };
  } catch (e) {
    if (tempPath) await rm(tempPath, { force: true });
    throw e;
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
