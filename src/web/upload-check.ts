/**
 * The server's side of `upload-kind.ts`: an upload stream checked on its first bytes as they arrive, so a file
 * Quire cannot open is refused before the rest of it is written to disk.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { type HttpError, httpError } from '../http/index.js';
import { mayOpen, notOpenable, SNIFF_BYTES } from './upload-kind.js';

/** Passes the bytes through once the first `SNIFF_BYTES` (or the whole of a shorter file) show a kind Quire opens. */
export function checkedUpload(name: string): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  const judge = (): HttpError | null => (head && head.length > 0 && !mayOpen(name, head) ? httpError('unsupported_input', notOpenable(name)) : null);
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < SNIFF_BYTES) return done();
      const refusal = judge();
      const all = head;
      head = null;
      return refusal ? done(refusal) : done(null, all);
    },
    flush(done: TransformCallback) {
      if (head === null) return done();
      const refusal = judge();
      if (refusal) return done(refusal);
      this.push(head);
      return done();
    },
  });
}
