import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { contentTypeFor } from './text.js';

/** One file part of a multipart form. @since API 1 */
export interface MultipartFile {
  /** Form field name (`file`). */
  name: string;
  /** Path of the file to send; streamed from disk, never read whole. */
  path: string;
  /** File name announced to the server; defaults to the path's base name. */
  filename?: string;
  /** Defaults to the type of the file name's extension. */
  contentType?: string;
}

/**
 * A `multipart/form-data` body with a known length, streamed from disk: pass it as
 * {@link HttpRequestOptions.body}. It can be streamed more than once (a Digest retry re-sends it).
 *
 * @since API 1
 */
export interface MultipartBody {
  readonly kind: 'multipart';
  /** The `Content-Type` header value, with its boundary. */
  readonly contentType: string;
  /** Total length in bytes, for `Content-Length`. */
  readonly length: number;
  /** A fresh stream of the whole body. */
  stream(): Readable;
}

/** What each multipart body was built from: the sandbox hands these to the host, which builds the form again. */
const sources = new WeakMap<MultipartBody, { fields: Record<string, string>; files: MultipartFile[] }>();

/** The fields and files `body` was built from; `undefined` for an object {@link multipartBody} did not make. */
export function multipartSource(body: MultipartBody): { fields: Record<string, string>; files: MultipartFile[] } | undefined {
  return sources.get(body);
}

/** Quote a form name or file name for a Content-Disposition header (RFC 7578: escape `"`, drop line breaks). */
function dispositionValue(text: string): string {
  return text.replace(/[\r\n]/g, ' ').replace(/"/g, '%22');
}

/**
 * Build a `multipart/form-data` body from text fields and files. Fields are sent in the order
 * given, files after them. Leave out a field to not send it (the corpus rule: only fields that
 * have a value) — this function sends every field it is given, empty or not.
 *
 * @since API 1
 */
export function multipartBody(fields: Readonly<Record<string, string>>, files: readonly MultipartFile[] = []): MultipartBody {
  const boundary = `----quire${randomBytes(12).toString('hex')}`;
  const head = (disposition: string, type?: string): Buffer =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`, 'utf8');
  const chunks: Array<Buffer | { path: string; size: number }> = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(head(`name="${dispositionValue(name)}"`), Buffer.from(value, 'utf8'), Buffer.from('\r\n'));
  }
  for (const file of files) {
    const filename = file.filename ?? basename(file.path);
    chunks.push(head(`name="${dispositionValue(file.name)}"; filename="${dispositionValue(filename)}"`, file.contentType ?? contentTypeFor(filename)));
    chunks.push({ path: file.path, size: statSync(file.path).size }, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const length = chunks.reduce((n, c) => n + (Buffer.isBuffer(c) ? c.length : c.size), 0);
  const body: MultipartBody = Object.freeze({
    kind: 'multipart' as const,
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    stream: (): Readable =>
      Readable.from(
        (async function* parts(): AsyncGenerator<Buffer> {
          for (const c of chunks) {
            if (Buffer.isBuffer(c)) yield c;
            else for await (const piece of createReadStream(c.path)) yield piece as Buffer;
          }
        })(),
      ),
  });
  sources.set(body, { fields: { ...fields }, files: files.map((f) => ({ ...f })) });
  return body;
}
