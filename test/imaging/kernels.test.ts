import { describe, expect, it } from 'vitest';
import { kernelsWithRoom } from '../../src/imaging/kernels.js';

describe('kernelsWithRoom', () => {
  it('gives room for nothing (an empty page) too', () => {
    expect(kernelsWithRoom(0, 0).at).toEqual([0, 0]);
  });

  it('lays out aligned ranges one after the other', () => {
    const { at, buffer } = kernelsWithRoom(5, 16, 1, 100);
    expect(at).toEqual([0, 16, 32, 48]);
    expect(buffer.byteLength).toBeGreaterThanOrEqual(148);
  });

  it('never detaches a buffer it handed out when a call needs more room (a detached buffer slows every typed-array loop of the thread)', () => {
    const small = kernelsWithRoom(1024).buffer;
    const large = kernelsWithRoom(small.byteLength + 3 * 65536).buffer;
    expect(large.byteLength).toBeGreaterThan(small.byteLength + 3 * 65536);
    expect(small.byteLength).toBeGreaterThan(0);
    expect(kernelsWithRoom(16).buffer).toBe(large);
  });
});

/** The row interpolation as threshold.ts wrote it in JavaScript before it moved to the kernels: the reference. */
function interpolateRow(line: Float64Array, f: number, width: number): Float32Array {
  const out = new Float32Array(width);
  const cols = line.length;
  const half = (f - 1) / 2;
  const firstCentre = Math.min(width, Math.ceil(half));
  out.fill(line[0], 0, firstCentre);
  let x = firstCentre;
  for (let i = 0; i < cols - 1 && x < width; i++) {
    const end = Math.min(width, Math.ceil((i + 1) * f + half));
    const step = (line[i + 1] - line[i]) / f;
    let t = line[i] + step * (x - (i * f + half));
    for (; x < end; x++) {
      out[x] = t;
      t += step;
    }
  }
  if (x < width) out.fill(line[cols - 1], x, width);
  return out;
}

describe('thresholdRow and levelRow', () => {
  it('give, to the last bit, what the interpolation and the comparison written plainly in JavaScript give', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (const width of [1, 2, 15, 16, 17, 31, 100, 1001]) {
      for (const f of [1, 2, 4, 5, 9]) {
        const cols = Math.ceil(width / f);
        const row = Uint8Array.from({ length: width }, () => Math.floor(random() * 256));
        // Whole thresholds half of the time, so pixels fall exactly on them (ink is strictly below).
        const line = Float64Array.from({ length: cols }, () => (f % 2 ? Math.floor(20 + random() * 220) : 20 + random() * 220));
        const gains = Float64Array.from({ length: cols }, () => 0.9 + random() * 3);
        const { kernels, at, buffer } = kernelsWithRoom(width, width, 8 * cols, 4 * width);
        const [src, out, lineAt, scratch] = at;
        new Uint8Array(buffer, src, width).set(row);

        new Float64Array(buffer, lineAt, cols).set(line);
        kernels.thresholdRow(src, out, width, lineAt, cols, f, scratch);
        const thresholds = interpolateRow(line, f, width);
        expect([...new Uint8Array(buffer, out, width)]).toEqual([...row].map((v, x) => (v < thresholds[x] ? 0 : 255)));

        new Float64Array(buffer, lineAt, cols).set(gains);
        kernels.levelRow(src, out, width, lineAt, cols, f, scratch);
        const factors = interpolateRow(gains, f, width);
        expect([...new Uint8Array(buffer, out, width)]).toEqual(
          [...row].map((v, x) => {
            const level = v * factors[x] + 0.5;
            return level >= 255 ? 255 : level | 0;
          }),
        );
      }
    }
  });
});
