// A worker thread of the frame pool: runs whole frames through the pipeline, one at a time.
import { parentPort } from 'node:worker_threads';
import sharp from 'sharp';
import { isQuireError, describeError } from '../errors.js';
import type { ExtraStepOutcome, ExtraStepRunner } from './extra-steps.js';
import { processFrame, type FrameTask } from './process.js';

// Parallelism comes from the pool's threads; libvips threads on top would only fight over the cores.
sharp.concurrency(1);

/** Added steps run in the main thread (which holds the plugin processes): pixels go there and back without a copy. */
const stepCalls = new Map<number, (outcome: ExtraStepOutcome) => void>();
let nextCall = 1;
const runExtra: ExtraStepRunner = (name, page, facts) =>
  new Promise((resolve) => {
    const call = nextCall++;
    stepCalls.set(call, resolve);
    const own = page.pixels.byteOffset === 0 && page.pixels.byteLength === page.pixels.buffer.byteLength;
    parentPort?.postMessage({ step: { call, name, page, facts } }, own ? [page.pixels.buffer as ArrayBuffer] : []);
  });

parentPort?.on('message', async (message: { id: number; task: FrameTask } | { stepReply: { call: number; outcome: ExtraStepOutcome } }) => {
  if ('stepReply' in message) {
    const resolve = stepCalls.get(message.stepReply.call);
    stepCalls.delete(message.stepReply.call);
    resolve?.(message.stepReply.outcome);
    return;
  }
  const { id, task } = message;
  // Structured clone hands typed arrays over as Uint8Array; sharp wants a Buffer.
  const data = Buffer.from(task.frame.data.buffer, task.frame.data.byteOffset, task.frame.data.byteLength);
  try {
    const result = await processFrame({ ...task, frame: { ...task.frame, data } }, runExtra);
    parentPort?.postMessage({ id, result });
  } catch (e) {
    const error = isQuireError(e)
      ? { code: e.code, message: e.message, detail: e.detail }
      : { code: 'internal', message: `Processing ${task.input} failed unexpectedly.`, detail: describeError(e) };
    parentPort?.postMessage({ id, error });
  }
});
