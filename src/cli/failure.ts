/** How a failure reaches the person at the terminal: always as a `QuireError`, one sentence, and an exit code. */
import { describeError, ERROR_CODES, isQuireError, QuireError } from '../errors.js';

/** A failure already reported (on stderr, or in the --json array): only its exit code is left to give. */
export class Reported extends Error {
  constructor(readonly exitCode: number) {
    super('already reported');
  }
}

/** Any thrown value as a `QuireError`: a file-system failure nobody worded gets its path and reason in one sentence. */
export async function asQuireError(e: unknown): Promise<QuireError> {
  if (isQuireError(e)) return e;
  // Loaded here, not at the top: `quire --version` would otherwise load the project model and sharp with it.
  const { errnoOf, fileSystemError } = await import('../project/index.js');
  const path = (e as NodeJS.ErrnoException | null)?.path;
  if (errnoOf(e) && typeof path === 'string') {
    return fileSystemError(e, path, { action: (e as NodeJS.ErrnoException).syscall === 'open' ? 'read' : 'write' });
  }
  return new QuireError(ERROR_CODES.INTERNAL, `Something went wrong that Quire did not expect: ${describeError(e)}`, describeError(e));
}
