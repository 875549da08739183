/**
 * Page-sized byte buffers used again within a thread. A fresh 5-megapixel `Uint8Array` costs about 4 ms more than
 * one written over (the kernel's zeroed pages, and the old-space collections that external memory sets off: about
 * 18 ms a page of a pipeline thread went to the collector). The steps that make a whole page (enlargement, sharpening,
 * threshold, crop, levelled page) take their output from here; the pipeline gives a page back once no step holds it.
 */
import type { GrayImage } from './gray.js';

/** Smaller buffers are left to the allocator. */
const MIN_KEPT_BYTES = 1 << 20;
/** Spare buffers kept: a page on its way through the steps holds up to six (enlarged, sharpened, thresholded, levelled, and the two cropped). */
const KEPT = 6;
/** A new buffer is made this much larger than asked, so the next page, a little larger, can use it too. */
const HEADROOM = 1.125;

const spare: ArrayBuffer[] = [];
/** Buffers handed out and not given back: only those may come back (never a buffer something else made). */
const lent = new WeakSet<ArrayBuffer>();

/**
 * `length` bytes for a page, their content undefined (a spare buffer's old pixels): the caller writes every one.
 * The view may lie on a larger buffer (offset 0).
 */
export function pageBytes(length: number): Uint8Array {
  if (length < MIN_KEPT_BYTES) return new Uint8Array(length);
  let best = -1;
  for (let i = 0; i < spare.length; i++) {
    if (spare[i].byteLength >= length && (best < 0 || spare[i].byteLength < spare[best].byteLength)) best = i;
  }
  const buffer = best >= 0 ? spare.splice(best, 1)[0] : new ArrayBuffer(Math.ceil(length * HEADROOM));
  lent.add(buffer);
  return new Uint8Array(buffer, 0, length);
}

/**
 * Give back the pixels of pages nothing will read again (whatever holds them must drop them): buffers `pageBytes`
 * did not hand out, or already given back, are left alone.
 */
export function givePageBytes(...images: ReadonlyArray<GrayImage | undefined>): void {
  for (const image of images) {
    const buffer = image?.data.buffer;
    if (!(buffer instanceof ArrayBuffer) || !lent.has(buffer)) continue;
    lent.delete(buffer);
    // A buffer handed to another thread (an added step's pixels) is detached: nothing to keep.
    if (buffer.byteLength === 0) continue;
    spare.push(buffer);
    if (spare.length > KEPT) spare.shift();
  }
}
