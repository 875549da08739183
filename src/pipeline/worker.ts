// A worker thread of the frame pool: runs whole frames through the pipeline, one at a time.
import { parentPort } from 'node:worker_threads';
import sharp from 'sharp';
import { isQuireError, describeError } from '../errors.js';
import { processFrame, type FrameTask } from './process.js';

// Parallelism comes from the pool's threads; libvips threads on top would only fight over the cores.
sharp.concurrency(1);

parentPort?.on('message', async (message: { id: number; task: FrameTask }) => {
  const { id, task } = message;
  // Structured clone hands typed arrays over as Uint8Array; sharp wants a Buffer.
  const data = Buffer.from(task.frame.data.buffer, task.frame.data.byteOffset, task.frame.data.byteLength);
  try {
    const result = await processFrame({ ...task, frame: { ...task.frame, data } });
    parentPort?.postMessage({ id, result });
  } catch (e) {
    const error = isQuireError(e)
      ? { code: e.code, message: e.message, detail: e.detail }
      : { code: 'internal', message: `Processing ${task.input} failed unexpectedly.`, detail: describeError(e) };
    parentPort?.postMessage({ id, error });
  }
});
