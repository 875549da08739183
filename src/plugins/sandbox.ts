/**
 * Run one plugin operation in a child Node process under the permission model.
 *
 * The child may read: the sandbox's own code and the API's installed modules, the plugin's code
 * directory, and (for a send) the private staging directory of the file. It may write only the
 * plugin's `files/` directory. Child processes, workers and native addons are refused (no
 * `--allow-child-process`, `--allow-worker`, `--allow-addons`). Its environment is empty, so it
 * inherits no tokens or `NODE_OPTIONS` from the host. Config and the plugin's own secrets are
 * in the IPC message; the keychain, `config.db` and `.env` stay out of its reach.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import type { BookMeta, FieldValue, SecretStoreKind } from '../plugin-api/index.js';
import { rewriteApiImports, type FoundImport } from './imports.js';
import { sandboxRuntime } from './runtime.js';
import type { ChildMessage, RunMessage, SandboxOperation } from './sandbox/protocol.js';

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
export type SandboxOutcome =
  | Exclude<ChildMessage, { type: 'log' }>
  | { type: 'crashed'; message: string; detail: string }
  | { type: 'timeout'; message: string; detail: string };

/** Node flags for the child: the permission model with exactly these reads and one write. */
export function permissionFlags(readPaths: readonly string[], writePath: string): string[] {
  return [
    '--experimental-permission',
    ...[...new Set(readPaths)].map((p) => `--allow-fs-read=${p}`),
    `--allow-fs-write=${writePath}`,
    '--disable-warning=ExperimentalWarning',
    '--max-old-space-size=512',
  ];
}

const STDERR_KEEP = 4000;

/** Run one operation; resolves with the child's answer, never rejects for the plugin's faults. */
export async function runInSandbox(request: SandboxRequest): Promise<SandboxOutcome> {
  const runtime = await sandboxRuntime();
  mkdirSync(request.filesDir, { recursive: true });
  const filesDir = realpathSync(request.filesDir);
  const reads = [...runtime.readPaths, realpathSync(request.plugin.codeDir), filesDir];
  if (request.file) reads.push(realpathSync(request.file));
  const message: RunMessage = {
    type: 'run',
    op: request.op,
    slug: request.plugin.slug,
    source: rewriteApiImports(request.plugin.source, request.plugin.imports, runtime.apiUrl),
    dataDir: filesDir,
    settings: request.settings ?? {},
    secrets: request.secrets ?? {},
    secretStore: request.secretStore ?? 'keychain',
    ...(request.file ? { file: realpathSync(request.file) } : {}),
    ...(request.meta ? { meta: request.meta } : {}),
  };
  const child = spawn(process.execPath, [...permissionFlags(reads, filesDir), runtime.childScript], {
    cwd: filesDir,
    env: {},
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let stderr = '';
  const keep = (chunk: Buffer): void => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
  };
  child.stderr?.on('data', keep);
  child.stdout?.on('data', keep);
  return new Promise<SandboxOutcome>((resolve) => {
    let outcome: SandboxOutcome | undefined;
    const timer = setTimeout(() => {
      outcome ??= {
        type: 'timeout',
        message: `it did not finish within ${Math.round(request.timeoutMs / 1000)} s and was stopped`,
        detail: `timeout ${request.timeoutMs} ms`,
      };
      child.kill('SIGKILL');
    }, request.timeoutMs);
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'log') request.onLog?.(m.line);
      else outcome ??= m;
    });
    child.on('error', (e) => {
      outcome ??= { type: 'crashed', message: 'its process could not start', detail: `${e.name}: ${e.message}` };
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(
        outcome ?? {
          type: 'crashed',
          message: 'its process ended without an answer',
          detail: `exit ${code ?? signal}; stderr: ${stderr.trim().slice(-1500)}`,
        },
      );
    });
    child.send(message);
  });
}
