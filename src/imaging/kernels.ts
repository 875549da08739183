/**
 * The per-pixel loops that JavaScript runs several times slower than the machine can: written in WebAssembly with
 * its 128-bit SIMD (`kernels.wat`), one instance with its own memory in each thread that imports this module.
 *
 * Written by hand because no library does these loops in the arithmetic the pages depend on: libvips enlarges with an
 * affine interpolator that makes every pixel from its own 16 taps; the threshold, the block sums and the sharpening's
 * table mix are Quire's own. Every kernel gives the bytes the JavaScript it replaced gave (see the tests). The build
 * assembles `kernels.wat` into `dist/imaging/kernels.wasm` (`scripts/copy-assets.mjs`, with the `wabt` assembler);
 * run from the sources (the tests), the text is assembled here, once, by the same assembler.
 */
import { existsSync, readFileSync } from 'node:fs';

interface KernelExports {
  /** Bicubic enlargement (see `enlargeBicubic`): every argument after the sizes is a byte offset in the memory. */
  enlarge(
    src: number,
    w: number,
    h: number,
    out: number,
    W: number,
    H: number,
    firstX: number,
    weightsX: number,
    firstY: number,
    weightsY: number,
    weights: number,
    padded: number,
    ring: number,
    slots: number,
  ): void;
  /** One row of the threshold (see `sauvolaBinarize`): byte offsets but for the sizes and the block size `f`. */
  thresholdRow(src: number, out: number, width: number, line: number, cols: number, f: number, scratch: number): void;
  /** Per-block sums (see `blockSums`): byte offsets but for the sizes and the block side `f`. */
  blockSums(src: number, width: number, height: number, f: number, columns: number, columnsSq: number, sum: number, sumSq: number, count: number): void;
  /** The sharpening's mix (see `unsharpMaskNative`): `n` pixels and their blur through a 64 KiB table, in place. */
  mix(src: number, blurred: number, table: number, n: number): void;
  /** One row of the levelled page (see `levelBackground`), the same arguments. */
  levelRow(src: number, out: number, width: number, line: number, cols: number, f: number, scratch: number): void;
}

async function compile(): Promise<WebAssembly.Module> {
  const binary = new URL('./kernels.wasm', import.meta.url);
  if (existsSync(binary)) return new WebAssembly.Module(readFileSync(binary));
  const text = new URL('./kernels.wat', import.meta.url);
  if (!existsSync(text)) throw new Error(`The imaging kernels are missing (${binary.pathname}): run \`npm run build\`.`);
  const { default: wabt } = await import('wabt');
  const module = (await wabt()).parseWat('kernels.wat', readFileSync(text, 'utf8'), { simd: true, bulk_memory: true });
  const bytes = module.toBinary({}).buffer;
  module.destroy();
  return new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
}

const compiled = await compile();
let instance: { kernels: KernelExports; memory: WebAssembly.Memory } | undefined;

/**
 * Room in the kernels' memory for one call: each size in bytes gets its own 16-byte aligned range. Returns the
 * kernels, the ranges' offsets and the memory's buffer.
 *
 * The memory is never grown: growing a WebAssembly memory detaches its old `ArrayBuffer`, and the first detached
 * buffer in a thread makes V8 check for detachment in every typed-array loop it optimises from then on (the
 * threshold and the sharpening ran 10–20 % slower). A call that needs more room gets a new instance with a larger
 * memory instead (the old one is left to the collector); it stays the size of the largest page the thread has seen.
 */
export function kernelsWithRoom(...sizes: number[]): { kernels: KernelExports; at: number[]; buffer: ArrayBuffer } {
  const at: number[] = [];
  let end = 0;
  for (const size of sizes) {
    at.push(end);
    end += (size + 15) & ~15;
  }
  if (!instance || instance.memory.buffer.byteLength < end) {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil((end * 1.125) / 65536)) });
    const kernels = new WebAssembly.Instance(compiled, { quire: { memory } }).exports as unknown as KernelExports;
    instance = { kernels, memory };
  }
  return { kernels: instance.kernels, at, buffer: instance.memory.buffer };
}
