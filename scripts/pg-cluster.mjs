// A throwaway PostgreSQL cluster on loopback, for the tests and `npm run bench:server`: Debian's `postgresql`
// (initdb and pg_ctl), in a temporary folder, on a free port, trusting local connections. PostgreSQL refuses to run as
// root, so as root the cluster runs as the `postgres` user. Run alone (`node scripts/pg-cluster.mjs`) it prints the
// URL and keeps the cluster until interrupted.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The newest PostgreSQL's programs in Debian's layout, or null when none is installed. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a cluster; resolves with its URL (database `postgres`, superuser `postgres`, no password) and `stop()`.
 * Durability is traded for speed (no fsync): it lives as long as one test run.
 */
export async function startPgCluster() {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed: apt-get install postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'quire-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const run = (program, args) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, program), args, { stdio: 'pipe' });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  // The free port is found by closing a listener on it, so another process can take it before the postmaster binds
  // it; then the start fails with "could not bind", and a new port is tried.
  let port;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const settings = [
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
      '-c max_connections=500 -c shared_buffers=64MB',
    ].join(' ');
    try {
      run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '120', '-o', settings, 'start']);
      break;
    } catch (e) {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : '';
      if (attempt < 3 && /could not bind|address already in use/i.test(log)) {
        rmSync(join(dir, 'log'), { force: true });
        continue;
      }
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL did not start: ${e.stderr?.toString() ?? e}\n${log}`, { cause: e });
    }
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const cluster = await startPgCluster();
  process.stdout.write(`${cluster.url}\n`);
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  setInterval(() => undefined, 1 << 30);
}
