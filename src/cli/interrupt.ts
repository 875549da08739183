/**
 * Ctrl-C and `kill`: the first SIGINT or SIGTERM stops the conversion through its AbortSignal — the pipeline's
 * threads and the OCR processes are ended, the working folder and any staged output removed — and the command
 * exits with 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once; what that leaves behind is removed by
 * the next run.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import { closeOcrEngines } from '../convert/index.js';

const EXIT_CODES: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/** The conversion was stopped by a signal; the exit code is the shell's for that signal. */
export class Interrupted extends QuireError {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(ERROR_CODES.CANCELLED, signal === 'SIGINT' ? 'Interrupted (Ctrl-C); nothing more was written.' : 'Stopped (SIGTERM); nothing more was written.');
  }

  override get exitCode(): number {
    return EXIT_CODES[this.signal];
  }
}

/**
 * Run `work` with a signal that SIGINT and SIGTERM abort (the abort reason is an `Interrupted`). `onStop` is told
 * when the first signal arrives (to say that cleaning up has begun).
 */
export async function withInterruption<T>(work: (signal: AbortSignal) => Promise<T>, onStop?: (signal: 'SIGINT' | 'SIGTERM') => void): Promise<T> {
  const controller = new AbortController();
  let received: 'SIGINT' | 'SIGTERM' | undefined;
  const handler = (sig: 'SIGINT' | 'SIGTERM'): void => {
    if (received) {
      // Asked twice: no more waiting. Ending the engines sends the kill to their OCR processes right away.
      void closeOcrEngines();
      process.exit(EXIT_CODES[sig]);
    }
    received = sig;
    onStop?.(sig);
    controller.abort(new Interrupted(sig));
  };
  const onInt = (): void => handler('SIGINT');
  const onTerm = (): void => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}

/** The `Interrupted` a signal's abort carries, if `signal` was aborted by one. */
export function interruptionOf(signal: AbortSignal): Interrupted | undefined {
  return signal.aborted && signal.reason instanceof Interrupted ? signal.reason : undefined;
}

/**
 * A long-running service's two-stage shutdown: the first SIGTERM or SIGINT runs `close` (stop taking work, put
 * running jobs back), a second one quits at once. The handlers are in place from this call, so a signal that comes
 * while the service is still printing its start is never the default, abrupt one. Resolves once `close` is done.
 */
export function untilStopped(program: string, doing: string, close: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      process.stderr.write(`${program}: ${signal} received, ${doing} (again to quit at once)\n`);
      for (const again of ['SIGTERM', 'SIGINT'] as const) process.once(again, () => process.exit(130));
      close().then(resolve, (e: unknown) => {
        process.stderr.write(`${program}: shutdown failed: ${String(e)}\n`);
        resolve();
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
