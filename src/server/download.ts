import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { safeFileName } from '../project/index.js';
import { apiError } from './http-errors.js';
import type { ArtifactKind } from './layout.js';

export type ByteRange = { start: number; end: number };

/**
 * One `Range: bytes=…` range, inclusive, within a file of `size` bytes. Null means "send the whole file": no
 * header, a header this server does not honour (several ranges, other units) or one it cannot parse — all of
 * which HTTP allows answering with the full file. 'unsatisfiable' is a range wholly past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header || size === 0) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** A document name as a download's file name: the engine's own rule for its output files. */
export const downloadName = safeFileName;

/** `Content-Disposition` for a file named after its document, readable by old clients (ASCII) and new (UTF-8). */
export function contentDisposition(docName: string, kind: ArtifactKind): string {
  const name = `${downloadName(docName)}.${kind}`;
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const TYPES: Record<ArtifactKind, string> = { pdf: 'application/pdf', md: 'text/markdown; charset=utf-8' };

/** A strong validator of one version of a file: its size and modification time (outputs are written once, atomically). */
export function entityTag(size: number, mtimeMs: number): string {
  return `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
}

/** Whether `If-None-Match` names this version (`*` names any). */
function matchesAny(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * `If-Range`: resume only if the file is still the one the client has part of. A strong ETag must match exactly;
 * a date must be the file's own Last-Modified (HTTP allows nothing looser). Absent: the range stands.
 */
export function rangeStillValid(ifRange: string | undefined, etag: string, lastModified: string): boolean {
  if (ifRange === undefined) return true;
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return v === etag;
  return v === lastModified;
}

/** Send an artifact, whole or the one range asked for (when `If-Range` still holds), or 304 to a client that has it. */
export async function sendArtifact(
  reply: FastifyReply,
  path: string,
  kind: ArtifactKind,
  docName: string,
  headers: IncomingHttpHeaders,
): Promise<FastifyReply> {
  let size: number;
  let mtime: Date;
  try {
    ({ size, mtime } = await stat(path));
  } catch {
    throw apiError('no_artifact');
  }
  const etag = entityTag(size, mtime.getTime());
  const lastModified = mtime.toUTCString();
  reply
    .header('etag', etag)
    .header('last-modified', lastModified)
    // The job id in the URL is the credential: keep it out of shared caches and of Referer headers.
    .header('cache-control', 'private, no-cache')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff');
  if (matchesAny(headers['if-none-match'], etag)) return reply.code(304).send();
  const range = rangeStillValid(headerText(headers['if-range']), etag, lastModified) ? parseRange(headers.range, size) : null;
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw apiError('range');
  }
  reply.header('content-type', TYPES[kind]).header('content-disposition', contentDisposition(docName, kind)).header('accept-ranges', 'bytes');
  if (range === null) {
    reply.header('content-length', size);
    return reply.send(createReadStream(path));
  }
  reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', range.end - range.start + 1);
  return reply.send(createReadStream(path, { start: range.start, end: range.end }));
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
