import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { QUIRE_BIN } from '../helpers.js';
import { waitFor } from './helpers.js';
import { storeEnv } from './stores.js';

/** `quire server` as its own process (the built CLI: `npm run build` first), as a user runs it. */
export interface ServerProcess {
  child: ChildProcess;
  address: string;
  /** What it printed on standard output and error so far. */
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resident and peak resident size of the server's own process, from /proc (bytes). */
  memory(): { rss: number; peak: number };
  stop(): Promise<number | null>;
}

const BIN = process.env.QUIRE_SERVER_BIN ?? QUIRE_BIN;

/** `quire server` on `home`, and its database: SQLite in it, or its PostgreSQL schema in the `postgres` test project. */
export async function startServer(home: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'server', '--port', '0', '--workers', '1', ...args], {
    env: { ...process.env, QUIRE_HOME: home, ...(await storeEnv(home)), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(async () => /Admin panel: .*\n[^\n]*\n/.test(out) || child.exitCode !== null, 90_000);
  const address = /^Quire server listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
  if (!address) throw new Error(`server did not start:\n${out}\n${err}`);
  const memory = (): { rss: number; peak: number } => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  };
  return {
    child,
    address,
    stdout: () => out,
    stderr: () => err,
    exited,
    memory,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The admin link a start printed, with its secret (only the start that made the secret prints one). */
export function adminSecretIn(stdout: string): string | null {
  return /^Admin panel: \S+\/admin\?secret=([A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1] ?? null;
}

/** Run `quire …` with this home (and its database); resolves with its exit code and output. */
export async function quire(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, QUIRE_HOME: home, ...(await storeEnv(home)) };
  return new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { env }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })),
  );
}
