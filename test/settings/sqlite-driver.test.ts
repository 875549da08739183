// The SQLite driver Quire loads under the running Node: better-sqlite3 12 aborted the whole process on Node 24 (a native assertion,
// no error to catch) when the garbage collector freed a prepared statement, and 13 crashes the same way on Node 20 — in the job server, any time. A process
// that prepares many statements and collects them must live on and exit cleanly.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// The driver as Quire loads it (src/settings/sqlite-driver.ts, built): 13 on Node 22+, 12 on Node 20.
const SCRIPT = `
import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'settings', 'sqlite-driver.js')).href)}).then(({ SqliteDatabase: Database }) => {
const db = new Database(':memory:');
db.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY, status TEXT)');
setTimeout(() => {
  for (let i = 0; i < 20000; i++) db.prepare('SELECT ' + (i % 50) + ' AS n FROM jobs').all();
  setImmediate(() => {
    globalThis.gc();
    setImmediate(() => {
      db.close();
      console.log('alive after collecting 20000 statements');
    });
  });
}, 10);
});
`;

describe('the SQLite driver', () => {
  it(`survives its statements being garbage-collected on Node ${process.versions.node}`, async () => {
    const result = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--expose-gc', '-e', SCRIPT], { cwd: ROOT }, (_e, stdout, stderr) =>
        resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect({ code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({
      code: 0,
      signal: null,
      stdout: 'alive after collecting 20000 statements\n',
    });
  });
});
