import { describe, expect, it } from 'vitest';
import { parseSize } from '../../src/cli/commands/server.js';

describe('--max-upload', () => {
  it('takes sizes in binary units', () => {
    expect(parseSize('2G')).toBe(2 * 1024 ** 3);
    expect(parseSize('500M')).toBe(500 * 1024 ** 2);
    expect(parseSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('64kb')).toBe(64 * 1024);
    expect(parseSize('1048576')).toBe(1048576);
    expect(() => parseSize('lots')).toThrow(/500M/);
    expect(() => parseSize('0')).toThrow();
  });
});
