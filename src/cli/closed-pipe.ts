/**
 * A reader that stops early (`quire plugins list | head -1`) closes the pipe under stdout: what is left to print has
 * nobody to read it, so it is dropped and the command ends as it would have, without Node's `write EPIPE` stack.
 */
let listening = false;

/** From now on, a closed stdout drops further output quietly instead of failing the process. */
export function dropOutputOnClosedPipe(): void {
  if (listening) return;
  listening = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') return;
    throw e;
  });
}
