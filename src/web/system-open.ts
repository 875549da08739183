/**
 * Showing a folder (or opening an address) with what the person's desktop uses: `xdg-open` on Linux, `open` on
 * macOS, `explorer` on Windows; `QUIRE_FILE_MANAGER` names another program, which gets the folder as its one
 * argument. Only ever for the computer Quire runs on.
 */
import { spawn } from 'node:child_process';

/** Shows a folder; resolves once the program started, rejects with a sentence when none could be. */
export type FolderOpener = (folder: string) => Promise<void>;

function command(target: string, env: NodeJS.ProcessEnv): [string, string[]] {
  const chosen = env.QUIRE_FILE_MANAGER?.trim();
  if (chosen) return [chosen, [target]];
  if (process.platform === 'darwin') return ['open', [target]];
  if (process.platform === 'win32') return ['explorer', [target]];
  return ['xdg-open', [target]];
}

/** Start the desktop's opener on `target` and leave it running on its own. */
export function systemOpen(target: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [program, args] = command(target, env);
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(program, args, { detached: true, stdio: 'ignore' });
    } catch {
      reject(new Error(`${program} could not be started`));
      return;
    }
    child.once('error', () => reject(new Error(`${program} could not be started`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
