import { describe, expect, it } from 'vitest';
import { kernelsWithRoom } from '../../src/imaging/kernels.js';

describe('kernelsWithRoom', () => {
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
