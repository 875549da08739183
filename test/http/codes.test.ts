// The one table of HTTP refusal codes: each code one status and one sentence, the same in the job server and the
// web app, and every refusal in src/ taken from it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { HTTP_ERRORS, httpError, statusOfQuireError } from '../../src/http/index.js';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the HTTP error codes', () => {
  it('gives each code a 4xx or 5xx status and one sentence', () => {
    for (const [code, { status, message }] of Object.entries(HTTP_ERRORS)) {
      expect(code, code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message, code).toMatch(/^\S.*\.$/);
      expect(message, code).not.toMatch(/\.\s+[A-Z]/);
    }
  });

  it('answers a code shared with a QuireError with the QuireError’s status', () => {
    const shared = Object.values(ERROR_CODES).filter((code) => code in HTTP_ERRORS);
    expect(shared.length).toBeGreaterThan(0);
    for (const code of shared) expect(HTTP_ERRORS[code as keyof typeof HTTP_ERRORS].status, code).toBe(statusOfQuireError(code));
  });

  it('builds a refusal with the table’s status, and its own sentence when it has a more precise one', () => {
    expect(httpError('slim_project')).toMatchObject({ statusCode: 409, code: 'slim_project', message: HTTP_ERRORS.slim_project.message });
    expect(httpError('no_captures').statusCode).toBe(404);
    expect(httpError('not_set_up', 'Calibre is not set up yet; it needs URL.', { missing: ['URL'] })).toMatchObject({
      statusCode: 409,
      message: 'Calibre is not set up yet; it needs URL.',
      missing: ['URL'],
    });
  });

  it('is where every refusal in src/ takes its code and status from', () => {
    const strays: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const where = relative(SRC, file);
      if (where.startsWith('http/') || where.startsWith('web/ui/')) continue;
      const text = readFileSync(file, 'utf8');
      // A status and a literal code written by hand, instead of httpError(code).
      for (const m of text.matchAll(/new HttpError\(\s*\d+\s*,\s*'(\w+)'/g)) strays.push(`${where}: new HttpError(…, '${m[1]}')`);
      for (const m of text.matchAll(/(?:httpError|apiError|retryLater|errorBody)\(\s*'(\w+)'/g))
        if (!(m[1] in HTTP_ERRORS)) strays.push(`${where}: '${m[1]}' is not in HTTP_ERRORS`);
    }
    expect(strays).toEqual([]);
  });
});
