/**
 * The conversion thread of the job server: `convert` runs here, off the thread that answers HTTP, so reading a
 * PDF or writing one never stalls an upload or a `/check`. The thread lives as long as the server, which keeps the
 * engine's modules loaded ("warm") between jobs; one job at a time.
 */
import { parentPort } from 'node:worker_threads';
import { cancelProjectOcr, checkProjectOcr, convert, type ConvertOptions, type ProgressEvent } from '../convert/index.js';
import { describeError, isQuireError } from '../errors.js';
import type { EngineReply, EngineRequest } from './engine.js';

const port = parentPort;
if (!port) throw new Error('convert-thread.js runs as a worker thread');
const running = new Map<number, AbortController>();

function failed(id: number, e: unknown): EngineReply {
  const error = isQuireError(e) ? { code: e.code, message: e.message, detail: e.detail } : { code: null, message: describeError(e), detail: e instanceof Error ? e.stack : undefined };
  return { type: 'error', id, error };
}

port.on('message', (msg: EngineRequest) => {
  if (msg.type === 'abort') {
    running.get(msg.id)?.abort(msg.reason);
    return;
  }
  if (msg.type === 'check-ocr') {
    checkProjectOcr(msg.projectDir).then(
      (check) => port.postMessage({ type: 'checked', id: msg.id, check } satisfies EngineReply),
      (e: unknown) => port.postMessage(failed(msg.id, e)),
    );
    return;
  }
  if (msg.type === 'cancel-ocr') {
    cancelProjectOcr(msg.projectDir).then(
      () => port.postMessage({ type: 'cancelled', id: msg.id } satisfies EngineReply),
      (e: unknown) => port.postMessage(failed(msg.id, e)),
    );
    return;
  }
  const controller = new AbortController();
  running.set(msg.id, controller);
  const options: ConvertOptions = {
    ...msg.options,
    signal: controller.signal,
    onProgress: (event: ProgressEvent) => port.postMessage({ type: 'progress', id: msg.id, event } satisfies EngineReply),
  };
  convert(msg.input, options).then(
    (result) => port.postMessage({ type: 'done', id: msg.id, result } satisfies EngineReply),
    (e: unknown) => port.postMessage(failed(msg.id, e)),
  ).finally(() => running.delete(msg.id));
});
