import { describe, expect, it } from 'vitest';
import { parseSize } from '../../src/cli/commands/server.js';
import { runQuire, withTempDir } from '../helpers.js';

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

describe('quire worker and quire server on PostgreSQL (built CLI)', () => {
  it('refuse a database URL that is not PostgreSQL, and bad counts, before starting', async () => {
    await withTempDir(async (home) => {
      const env = { QUIRE_HOME: home };
      expect(await runQuire(['worker', '--database-url', 'mysql://db.lan/quire'], { env })).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('give a PostgreSQL URL such as postgres://'),
      });
      expect(await runQuire(['worker', '--concurrency', '0'], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('from 1 to 64') });
      expect(await runQuire(['worker', '--lease', '0'], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('seconds from 1 to 3600') });
      expect(await runQuire(['worker', '--attempts', '0'], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('from 1 to 100') });
      expect(await runQuire(['worker', '--poll', '0'], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('seconds from 0.1 to 3600') });
    });
  }, 240_000);

  it('say in one sentence, without the password, that the database does not answer (flag or QUIRE_DATABASE_URL)', async () => {
    await withTempDir(async (home) => {
      const url = 'postgres://quire:s3cret@127.0.0.1:1/quire';
      const sentence = 'quire: Quire could not open the PostgreSQL database at postgres://quire:****@127.0.0.1:1/quire: connect ECONNREFUSED 127.0.0.1:1.\n';
      for (const [args, env] of [
        [['worker', '--database-url', url], {}],
        [['worker'], { QUIRE_DATABASE_URL: url }],
        [['server', '--no-worker', '--port', '0'], { QUIRE_DATABASE_URL: url }],
      ] as const) {
        const result = await runQuire([...args], { env: { QUIRE_HOME: home, ...env } });
        expect(result, args.join(' ')).toEqual({ code: 2, stdout: '', stderr: sentence });
      }
    });
  }, 240_000);
});
