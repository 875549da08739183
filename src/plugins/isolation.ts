/**
 * Isolation by the operating system around every plugin process: Debian's bubblewrap (`bwrap`,
 * unprivileged). Each plugin process gets its own PID namespace (it can signal nothing outside),
 * an empty network namespace (its only network is the host, over IPC), and a read-only view that
 * holds only Node and the libraries it links, the plugin API and sandbox runner, the plugin's code,
 * its `files/` folder (read-write) and the staged file; no `/proc`, no `/etc`, no home folder.
 * Node's permission model runs inside, as the second wall.
 *
 * Where bubblewrap is missing or cannot make namespaces (other systems, locked-down containers),
 * isolation is partial: the permission model and the in-process lockdown alone.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** How plugin processes are isolated on this machine. */
export interface Isolation {
  /** `full`: bubblewrap around Node's permission model; `partial`: the permission model alone. */
  level: 'full' | 'partial';
  /** The bwrap program in use (`full` only). */
  bwrap?: string;
  /** In the user's words: what isolates plugins, or why bubblewrap cannot. */
  summary: string;
}

/** The environment variable that names the bwrap program; `none` runs without it. */
export const BWRAP_VARIABLE = 'QUIRE_BWRAP';

/** Where bubblewrap is: `QUIRE_BWRAP`, else `bwrap` on the PATH (or in /usr/bin); `null` when none. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env[BWRAP_VARIABLE]?.trim();
  if (named !== undefined && named !== '') return named === 'none' ? null : named;
  const dirs = [...(env.PATH ?? '').split(delimiter).filter((d) => d !== ''), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The namespaces and safety switches of every plugin process. */
function namespaceArguments(): string[] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return [
    '--unshare-user-try',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'quire-plugin',
    '--die-with-parent',
    '--new-session',
    // Started as root, bwrap keeps no capability only when asked.
    ...(root ? ['--cap-drop', 'ALL'] : []),
    '--dev',
    '/dev',
  ];
}

let systemMounts: string[] | undefined;

/** Node itself: its program and the system libraries it links (read-only); merged-/usr links kept as links. */
function nodeMounts(): string[] {
  if (systemMounts) return systemMounts;
  const mounts: string[] = [];
  for (const path of ['/usr/lib', '/usr/lib64', '/usr/lib32', '/lib', '/lib64', '/lib32', '/libx32']) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) mounts.push('--symlink', readlinkSync(path), path);
    else if (stat.isDirectory()) mounts.push('--ro-bind', path, path);
  }
  if (existsSync('/etc/ld.so.cache')) mounts.push('--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache');
  const node = realpathSync(process.execPath);
  mounts.push('--ro-bind', node, node);
  systemMounts = mounts;
  return mounts;
}

/** What one plugin process sees, besides Node: paths bound at the same place as in the host. */
export interface SandboxView {
  /** Folders and files it may read. */
  readOnly: readonly string[];
  /** The one folder it may write (its `files/`), also its working directory. */
  writable: string;
}

/** The bwrap arguments (before `--` and the command) for a plugin process that sees `view`. */
export function bwrapArguments(view: SandboxView): string[] {
  const binds = [...new Set(view.readOnly)].flatMap((p) => ['--ro-bind', p, p]);
  return [...namespaceArguments(), ...nodeMounts(), ...binds, '--bind', view.writable, view.writable, '--chdir', view.writable];
}

const probes = new Map<string, Promise<Isolation>>();

/** The first line bwrap wrote, without its own name. */
function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').replace(/^bwrap:\s*/, '').trim();
}

/**
 * How plugins are isolated here, with `bwrap` (or `null`: without). Tried once per program and
 * process: bubblewrap starts `node --version` with the namespaces and view every plugin gets.
 */
export function detectIsolation(bwrap: string | null): Promise<Isolation> {
  if (process.platform !== 'linux') {
    return Promise.resolve({ level: 'partial', summary: "bubblewrap exists only on Linux; plugins run under Node's permission model alone" });
  }
  if (bwrap === null) {
    return Promise.resolve({
      level: 'partial',
      summary: "bubblewrap (bwrap) is not installed (on Debian: apt-get install bubblewrap); plugins run under Node's permission model alone",
    });
  }
  let probe = probes.get(bwrap);
  if (!probe) {
    probe = new Promise<Isolation>((resolve) => {
      const args = [...namespaceArguments(), ...nodeMounts(), '--', realpathSync(process.execPath), '--version'];
      execFile(bwrap, args, { env: {}, timeout: 15_000 }, (error, _stdout, stderr) => {
        if (!error) {
          resolve({
            level: 'full',
            bwrap,
            summary:
              "each plugin runs in bubblewrap, with its own process and network namespaces and a read-only view of only what it needs, under Node's permission model",
          });
          return;
        }
        const code = (error as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? `${bwrap} does not exist` : firstLine(String(stderr)) || error.message;
        resolve({ level: 'partial', summary: `bubblewrap cannot make a sandbox here (${why}); plugins run under Node's permission model alone` });
      });
    });
    probes.set(bwrap, probe);
  }
  return probe;
}

/** One line for a person: `isolation: full — …` or `isolation: partial — …`. */
export function describeIsolation(isolation: Isolation): string {
  return `isolation: ${isolation.level} — ${isolation.summary}`;
}
