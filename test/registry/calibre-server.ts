/**
 * A real calibre content server for the library destination's tests (Debian's `calibre`): a
 * fresh library, users made with `calibre-server --manage-users`, and `calibre-server
 * --enable-auth` on loopback, digest by default or `--auth-mode basic`.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HttpClient } from '../../src/plugin-api/index.js';
import { freePort } from './helpers.js';

const run = promisify(execFile);

/** True when `calibre-server` can be started here. */
export function calibreInstalled(): boolean {
  return spawnSync('calibre-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface CalibreUser {
  name: string;
  password: string;
  /** `--readonly`: may read the library, not change it. */
  readonly?: boolean;
}

export interface CalibreServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The library's id: its folder name with spaces as `_`. */
  libraryId: string;
  /** The books a search finds (`title:"…"`), read with `/ajax/search` and `/ajax/book`: title, authors, formats (lower case). */
  findBooks(query: string, user: CalibreUser): Promise<Array<{ id: number; title: string; authors: string[]; formats: string[] }>>;
  /** The request lines calibre logged (`POST /cdb/add-book/…`). */
  requestLines(): string[];
  stop(): Promise<void>;
}

/**
 * calibre keeps its settings in its config folder: give each server its own, never the user's.
 * calibre-server also takes a per-user lock so that only one calibre program runs at a time; each
 * test server has its own library and config folder, so that lock protects nothing here and
 * would only stop the digest and basic servers (or a developer's open calibre) from coexisting.
 */
function calibreEnv(dir: string): NodeJS.ProcessEnv {
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  // calibre programs started together on one config folder race to create its plugins folder
  // (FileExistsError): make it first.
  mkdirSync(join(dir, 'config', 'plugins'), { recursive: true });
  return { ...process.env, CALIBRE_CONFIG_DIRECTORY: join(dir, 'config'), XDG_RUNTIME_DIR: runtime, CALIBRE_NO_SI_DANGER_DANGER: '1' };
}

/** Poll until the server answers HTTP at all (calibre takes a few seconds to start). */
async function waitForHttp(url: string, child: ChildProcess, log: () => string, timeoutMs = 45_000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`calibre-server exited with ${child.exitCode}: ${log()}`);
    const answered = await new Promise<boolean>((resolve) => {
      const req = request(`${url}/`, { method: 'GET', timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (answered) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`calibre-server did not answer within ${timeoutMs} ms: ${log()}`);
}

/**
 * Create a library folder named `libraryName` under `dir`, add the users, and start
 * `calibre-server --enable-auth` on a free loopback port.
 */
export async function startCalibre(dir: string, options: { users: CalibreUser[]; authMode?: 'digest' | 'basic'; libraryName?: string }): Promise<CalibreServer> {
  if (!calibreInstalled()) throw new Error("calibre-server was not found; install Debian's calibre (.ci/run does)");
  const env = calibreEnv(dir);
  const libraryName = options.libraryName ?? 'Library';
  const library = join(dir, libraryName);
  const userdb = join(dir, 'users.sqlite');
  mkdirSync(library, { recursive: true });
  const makeUsers = async (): Promise<void> => {
    for (const u of options.users) {
      await run('calibre-server', ['--userdb', userdb, '--manage-users', '--', 'add', ...(u.readonly ? ['--readonly'] : []), u.name, u.password], { env });
    }
  };
  // Any calibredb call on an empty folder creates the library's metadata.db.
  await Promise.all([run('calibredb', ['--library-path', library, 'list'], { env }), makeUsers()]);
  const accessLog = join(dir, 'access.log');
  // The free port is found by closing a listener on it, so another process can take it before calibre-server binds
  // it: calibre-server then exits at once ("Address already in use"), and a new port is tried.
  const listen = async (): Promise<{ url: string; child: ChildProcess }> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const args = ['--userdb', userdb, '--enable-auth', '--listen-on', '127.0.0.1', '--port', String(port), '--disable-use-bonjour', '--access-log', accessLog];
      if (options.authMode === 'basic') args.push('--auth-mode', 'basic');
      const child = spawn('calibre-server', [...args, library], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      try {
        await waitForHttp(url, child, () => output.slice(-2000));
        return { url, child };
      } catch (e) {
        child.kill('SIGKILL');
        if (attempt < 3 && /address already in use|errno 98/i.test(output)) continue;
        throw e;
      }
    }
  };
  const { url, child } = await listen();
  const libraryId = libraryName.replace(/ /g, '_');
  const clientFor = (user: CalibreUser): HttpClient => new HttpClient({ auth: { username: user.name, password: user.password, mode: options.authMode ?? 'digest' } });
  return {
    url,
    libraryId,
    async findBooks(query, user) {
      const client = clientFor(user);
      const search = await client.request({ url: `${url}/ajax/search/${encodeURIComponent(libraryId)}?query=${encodeURIComponent(query)}` });
      if (search.status !== 200) throw new Error(`search answered ${search.status}: ${search.text()}`);
      const ids = (search.json() as { book_ids: number[] }).book_ids;
      const books: Array<{ id: number; title: string; authors: string[]; formats: string[] }> = [];
      for (const id of ids) {
        const book = (await client.request({ url: `${url}/ajax/book/${id}/${encodeURIComponent(libraryId)}` })).json() as { title: string; authors: string[]; formats: string[] };
        books.push({ id, title: book.title, authors: book.authors, formats: book.formats });
      }
      return books;
    },
    requestLines() {
      try {
        return readFileSync(accessLog, 'utf8').split('\n').filter((l) => l.trim() !== '');
      } catch {
        return [];
      }
    },
    stop() {
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(hard);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}
