/**
 * Running the tesseract program: one process, its stdin fed from memory, its output collected,
 * ended on timeout or cancellation; and a small queue so at most N run at once (each is held to
 * one thread, so N = cores keeps the machine busy without oversubscribing it).
 */
import { spawn } from 'node:child_process';
import { ERROR_CODES, QuireError } from '../errors.js';

export type ProcessOutcome =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  /** The program could not be started at all (`ENOENT`, `EACCES`). */
  | { kind: 'not-started'; error: NodeJS.ErrnoException }
  | { kind: 'timed-out'; stderr: string }
  | { kind: 'cancelled' };

export interface RunOptions {
  input?: Buffer;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Run `binary args`, never rejecting: every way it can end is an outcome the caller words for the user. */
export function runProgram(binary: string, args: readonly string[], options: RunOptions = {}): Promise<ProcessOutcome> {
  const { input, env, timeoutMs, signal } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise<ProcessOutcome>((resolve) => {
    const child = spawn(binary, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let ending: 'timed-out' | 'cancelled' | undefined;
    let settled = false;
    const finish = (outcome: ProcessOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const end = (why: 'timed-out' | 'cancelled'): void => {
      ending ??= why;
      child.kill('SIGKILL');
    };
    const onAbort = (): void => end('cancelled');
    const timer = timeoutMs && timeoutMs > 0 ? setTimeout(() => end('timed-out'), timeoutMs) : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A program that exits before reading all its input breaks the pipe; its exit status says what went wrong.
    child.stdin.on('error', () => undefined);
    // Emitted when the program cannot be started; 'close' may never follow.
    child.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'not-started', error }));
    child.on('close', (code, exitSignal) => {
      const errText = Buffer.concat(stderr).toString('utf8');
      if (ending === 'timed-out') finish({ kind: 'timed-out', stderr: errText });
      else if (ending === 'cancelled') finish({ kind: 'cancelled' });
      else finish({ kind: 'exited', code, signal: exitSignal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: errText });
    });
    child.stdin.end(input);
  });
}

export interface ProcessQueue {
  /** Wait for a free place, then run `task` in it; a cancelled wait leaves the queue at once. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** How many tasks run now (tests check the limit holds). */
  running(): number;
  /** How many tasks may run at once. */
  size(): number;
}

function cancelled(): QuireError {
  return new QuireError(ERROR_CODES.CANCELLED, 'OCR was cancelled.');
}

export function createProcessQueue(size: number): ProcessQueue {
  const limit = Math.max(1, Math.floor(size));
  let active = 0;
  const waiting: Array<() => void> = [];

  const next = (): void => {
    while (active < limit && waiting.length > 0) waiting.shift()?.();
  };

  return {
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(cancelled());
          return;
        }
        const start = (): void => {
          signal?.removeEventListener('abort', onAbort);
          active += 1;
          task()
            .then(resolve, reject)
            .finally(() => {
              active -= 1;
              next();
            });
        };
        const onAbort = (): void => {
          const at = waiting.indexOf(start);
          if (at >= 0) waiting.splice(at, 1);
          reject(cancelled());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(start);
        next();
      });
    },
    running() {
      return active;
    },
    size() {
      return limit;
    },
  };
}
