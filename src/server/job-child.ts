/**
 * One job's process: the job server forks this file for each conversion, OCR batch poll or cancel, runs the one
 * request it is sent, answers, and exits. A hostile input that exhausts memory or crashes a native library ends
 * this process and its job, never the server. The parent sets the memory ceiling (see `engine.ts`).
 */
import { cancelProjectOcr, checkProjectOcr, convert, useOcrPlugin, type ProgressEvent } from '../convert/index.js';
import { describeError, isQuireError } from '../errors.js';
import type { ChildReply, ChildRequest } from './engine.js';

if (!process.send) throw new Error('job-child.js runs as a child process of the job server');
const controller = new AbortController();

function reply(message: ChildReply): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });
}

function failed(e: unknown): ChildReply {
  const error = isQuireError(e)
    ? { code: e.code, message: e.message, detail: e.detail }
    : { code: null, message: describeError(e), detail: e instanceof Error ? e.stack : undefined, errno: (e as NodeJS.ErrnoException | null)?.code };
  return { type: 'error', error };
}

async function run(request: ChildRequest): Promise<ChildReply> {
  if (request.type === 'check-ocr') return { type: 'checked', check: await checkProjectOcr(request.projectDir) };
  if (request.type === 'cancel-ocr') {
    await cancelProjectOcr(request.projectDir);
    return { type: 'cancelled' };
  }
  // `ocr=<name>` may name an OCR engine plugin the operator installed (and accepted) in this server's app data.
  const ocr = request.options.ocr;
  if (typeof ocr === 'string') await useOcrPlugin(ocr, {}, (message) => void reply({ type: 'progress', event: { type: 'warning', message } }));
  const result = await convert(request.input, {
    ...request.options,
    signal: controller.signal,
    onProgress: (event: ProgressEvent) => void reply({ type: 'progress', event }),
  });
  return { type: 'done', result };
}

let started = false;
process.on('message', (msg: ChildRequest | { type: 'abort'; reason: string }) => {
  if (msg.type === 'abort') return controller.abort(msg.reason);
  if (started) return;
  started = true;
  run(msg)
    .catch(failed)
    .then(reply)
    // Pipeline threads and OCR workers would keep the process alive: its one job is over.
    .finally(() => process.exit(0));
});
// The server went away (killed, or shut down past its grace period): so does its job.
process.on('disconnect', () => process.exit(0));
