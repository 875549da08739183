import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where Quire keeps its data: `QUIRE_HOME`, else the per-user data directory. */
export function appDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.QUIRE_HOME) return env.QUIRE_HOME;
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'quire');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'quire');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'quire');
}
