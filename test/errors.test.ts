import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError } from '../src/errors.js';

describe('QuireError', () => {
  it('has unique, stable codes', () => {
    const codes = Object.values(ERROR_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(c).toMatch(/^[a-z_]+$/);
  });

  it('maps usage errors to exit code 2 and everything else to 1', () => {
    expect(new QuireError(ERROR_CODES.USAGE, 'x').exitCode).toBe(2);
    expect(new QuireError(ERROR_CODES.UNKNOWN_FORMAT, 'x').exitCode).toBe(2);
    expect(new QuireError(ERROR_CODES.BAD_IMAGE, 'x').exitCode).toBe(1);
  });
});
