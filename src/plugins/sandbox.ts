/**
 * Run one plugin operation in a child Node process, isolated twice.
 *
 * Outside: bubblewrap (when the system has it, see `isolation.ts`): its own PID namespace, no
 * network, a read-only view of only what it needs. Inside: Node's permission model, which lets it
 * read the sandbox's own code, the plugin's code directory and (for a send) the staged file, and
 * write only the plugin's `files/` directory; child processes, workers and native addons are
 * refused; and the lockdown (`sandbox/lockdown.ts`), which closes signals, network modules and
 * `fetch`. Its environment is empty, so it inherits no tokens or `NODE_OPTIONS` from the host.
 * Config and the plugin's own secrets are in the IPC message; its HTTP and mail requests come back
 * over IPC and the host makes them (`network.ts`). The keychain, `config.db` and `.env` stay out of
 * its reach.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BookMeta, FieldValue, SecretStoreKind } from '../plugin-api/index.js';
import { rewriteApiImports, type FoundImport } from './imports.js';
import { bwrapArguments, type Isolation } from './isolation.js';
import { serveNetworkRequest, type NetworkPolicy } from './network.js';
import { sandboxRuntime } from './runtime.js';
import type { ChildAnswer, ChildMessage, RunMessage, SandboxOperation } from './sandbox/protocol.js';

/** A plugin module ready to run: its import scan already passed. */
export interface LoadablePlugin {
  slug: string;
  codeDir: string;
  source: string;
  imports: readonly FoundImport[];
}

/** One operation to run. */
export interface SandboxRequest {
  op: SandboxOperation;
  plugin: LoadablePlugin;
  /** The plugin's `files/` directory, created when missing. */
  filesDir: string;
  /** How to isolate the process; default partial (the permission model and lockdown alone). */
  isolation?: Isolation;
  /** Whom the plugin may reach through the host; default nobody. */
  network?: NetworkPolicy;
  /** The plugin's name for messages ("Send to library"); default its slug. */
  display?: string;
  settings?: Record<string, FieldValue>;
  secrets?: Record<string, string>;
  secretStore?: SecretStoreKind;
  /** For `send`: the staged file (in a private directory the child may read) and its metadata. */
  file?: string;
  meta?: BookMeta;
  /** Kill the child after this long. */
  timeoutMs: number;
  /** Receives the plugin's log lines. */
  onLog?: (line: string) => void;
}

/** The child's final answer, or why there was none. */
export type SandboxOutcome = ChildAnswer | { type: 'crashed'; message: string; detail: string } | { type: 'timeout'; message: string; detail: string };

/** An outcome with what the sandbox refused on the way: any refusal makes the run `PERMISSION`. */
export type SandboxResult = SandboxOutcome & { refused: readonly string[] };

/**
 * The flag that turns the permission model on: `--permission` from Node 22.13 (Node 24 refuses the old name),
 * `--experimental-permission` on Node 20.
 */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';

/** Node flags for the child: the permission model with exactly these reads and one write. */
export function permissionFlags(readPaths: readonly string[], writePath: string): string[] {
  return [
    PERMISSION_FLAG,
    ...[...new Set(readPaths)].map((p) => `--allow-fs-read=${p}`),
    `--allow-fs-write=${writePath}`,
    '--disable-warning=ExperimentalWarning',
    '--max-old-space-size=512',
  ];
}

const STDERR_KEEP = 4000;
/** How many log lines and refusals of one run the host keeps; a plugin cannot flood it. */
const MAX_LINES = 2000;
/** How many network requests of one run the host makes at once; the others wait their turn. */
const MAX_REQUESTS_AT_ONCE = 8;

/** The end of what the child wrote to stderr. */
function tailOf(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-STDERR_KEEP).trim();
  } catch {
    return '';
  }
}

/** Run one operation; resolves with the child's answer, never rejects for the plugin's faults. */
export async function runInSandbox(request: SandboxRequest): Promise<SandboxResult> {
  const runtime = await sandboxRuntime();
  mkdirSync(request.filesDir, { recursive: true, mode: 0o700 });
  const filesDir = realpathSync(request.filesDir);
  const codeDir = realpathSync(request.plugin.codeDir);
  const staged = request.file ? realpathSync(request.file) : undefined;
  const reads = [...runtime.readPaths, codeDir, ...(staged ? [staged] : [])];
  const message: RunMessage = {
    type: 'run',
    op: request.op,
    slug: request.plugin.slug,
    source: rewriteApiImports(request.plugin.source, request.plugin.imports, runtime.apiUrl),
    dataDir: filesDir,
    settings: request.settings ?? {},
    secrets: request.secrets ?? {},
    secretStore: request.secretStore ?? 'keychain',
    ...(staged ? { file: staged } : {}),
    ...(request.meta ? { meta: request.meta } : {}),
  };
  const node = [...permissionFlags([...reads, filesDir], filesDir), runtime.childScript];
  const bwrap = request.isolation?.level === 'full' ? request.isolation.bwrap : undefined;
  // stderr goes to a file, not a pipe: a pipe would hand the plugin a socket-like handle to reopen.
  const logDir = mkdtempSync(join(tmpdir(), 'quire-plugin-log-'));
  const stderrPath = join(logDir, 'stderr');
  const stderrFd = openSync(stderrPath, 'w', 0o600);
  const child = bwrap
    ? spawn(bwrap, [...bwrapArguments({ readOnly: reads, writable: filesDir }), '--', realpathSync(process.execPath), ...node], {
        cwd: filesDir,
        env: {},
        stdio: ['ignore', stderrFd, stderrFd, 'ipc'],
        serialization: 'json',
      })
    : spawn(process.execPath, node, { cwd: filesDir, env: {}, stdio: ['ignore', stderrFd, stderrFd, 'ipc'], serialization: 'json' });
  closeSync(stderrFd);
  const display = request.display ?? request.plugin.slug;
  const refused: string[] = [];
  const policy: NetworkPolicy = request.network ?? { declared: false, hosts: [] };
  let lines = 0;
  let requests = 0;
  const waiting: Array<() => void> = [];
  const inTurn = async <T>(work: () => Promise<T>): Promise<T> => {
    if (requests >= MAX_REQUESTS_AT_ONCE) await new Promise<void>((go) => waiting.push(go));
    requests += 1;
    try {
      return await work();
    } finally {
      requests -= 1;
      waiting.shift()?.();
    }
  };
  return new Promise<SandboxResult>((resolve) => {
    let outcome: SandboxOutcome | undefined;
    const timer = setTimeout(() => {
      outcome ??= {
        type: 'timeout',
        message: `it did not finish within ${Math.round(request.timeoutMs / 1000)} s and was stopped`,
        detail: `timeout ${request.timeoutMs} ms`,
      };
      child.kill('SIGKILL');
    }, request.timeoutMs);
    const onRefused = (why: string): void => {
      if (refused.length < MAX_LINES) refused.push(why);
    };
    child.on('message', (m: ChildMessage) => {
      if (typeof m !== 'object' || m === null) return;
      switch (m.type) {
        case 'log':
          if (lines++ < MAX_LINES) request.onLog?.(String(m.line).slice(0, 2000));
          return;
        case 'refused':
          onRefused(`${display} tried to use ${String(m.what).slice(0, 200)}, which a plugin may not`);
          return;
        case 'net':
          void inTurn(() => serveNetworkRequest(m.id, m.request, { policy, files: { filesDir, ...(staged ? { staged } : {}) }, display, onRefused })).then(
            (reply) => {
              if (child.connected) child.send(reply, (e) => e && undefined);
            },
          );
          return;
        case 'described':
        case 'checked':
        case 'sent':
        case 'failed':
          outcome ??= m;
          return;
        default:
      }
    });
    child.on('error', (e) => {
      outcome ??= { type: 'crashed', message: 'its process could not start', detail: `${e.name}: ${e.message}` };
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = tailOf(stderrPath);
      rmSync(logDir, { recursive: true, force: true });
      resolve({
        ...(outcome ?? {
          type: 'crashed',
          message: 'its process ended without an answer',
          detail: `exit ${code ?? signal}; stderr: ${stderr.slice(-1500)}`,
        }),
        refused,
      });
    });
    child.send(message);
  });
}
