/**
 * What a plugin's process gives up before the plugin's module is loaded. Node's permission model
 * confines files, processes, workers and addons, but not signals, the network or
 * `process.getBuiltinModule`; bubblewrap (when the system has it) confines signals and the
 * network from outside. This closes the same doors from inside, so they stay shut where bubblewrap
 * is missing too: the network and system modules answer every call with `ERR_ACCESS_DENIED`,
 * `process.kill` and its kin refuse, and `fetch` is gone (a plugin talks to servers through the
 * API's helpers, which go through the host). Every refused call is also reported to the host, so a
 * plugin that catches the error still has its send reported as not allowed.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

/** Node built-ins no plugin gets, however it asks: the network, processes, the system, code evaluation. */
export const CLOSED_MODULES: readonly string[] = [
  'child_process',
  'cluster',
  'dgram',
  'dns',
  'http',
  'http2',
  'https',
  'inspector',
  'net',
  'os',
  'repl',
  'tls',
  'trace_events',
  'v8',
  'vm',
  'wasi',
  'worker_threads',
];

/** Members of `process` that reach outside the process (signals, debuggers, bindings, reports). */
const CLOSED_PROCESS_MEMBERS = [
  'kill',
  '_kill',
  '_debugProcess',
  '_debugEnd',
  'getBuiltinModule',
  'binding',
  '_linkedBinding',
  'dlopen',
  'loadEnvFile',
  'setuid',
  'setgid',
  'seteuid',
  'setegid',
  'setgroups',
  'initgroups',
  'disconnect',
];

/** Globals that would open network connections of their own. */
const CLOSED_GLOBALS = ['fetch', 'WebSocket', 'EventSource'];

/** Methods of native stream handles (pipes, sockets) that open a new connection or listen. */
const CLOSED_HANDLE_METHODS = ['connect', 'connect6', 'bind', 'bind6', 'listen', 'open'];

export type RefusalReporter = (what: string) => void;

function refusal(what: string): Error & { code: string } {
  const e = new Error(
    `${what} is not available to a plugin: it runs without network, signals or system access of its own (use the HTTP and mail helpers of quire/plugin-api)`,
  ) as Error & { code: string };
  e.code = 'ERR_ACCESS_DENIED';
  return e;
}

function closedFunction(what: string, report: RefusalReporter): () => never {
  return function closed(): never {
    report(what);
    throw refusal(what);
  };
}

/** Replace `target[key]` for good (not writable, not configurable); false when Node does not let it. */
function seal(target: object, key: string | symbol, value: unknown): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor && !descriptor.configurable && !descriptor.writable) return false;
  try {
    Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: descriptor?.enumerable ?? false });
    return true;
  } catch {
    return false;
  }
}

/**
 * Close everything above, and `process.send` (the sandbox runner keeps its own copy, taken before).
 * Call once, after the runner's own imports and before the plugin's.
 */
export function lockDown(report: RefusalReporter): void {
  const require = createRequire(import.meta.url);
  // Load every closed module before changing any: some load others as they start.
  const modules = CLOSED_MODULES.map((name) => [name, require(name) as Record<string, unknown>] as const);
  for (const [name, exports] of modules) {
    for (const key of Object.getOwnPropertyNames(exports)) seal(exports, key, closedFunction(`${name}.${key}`, report));
  }
  const moduleApi = require('module') as Record<string, unknown>;
  for (const key of ['createRequire', 'register', 'syncBuiltinESMExports']) seal(moduleApi, key, closedFunction(`module.${key}`, report));

  // Native handles the process already holds (its IPC pipe) must not open new connections.
  const handles = Object.getOwnPropertySymbols(process).map((s) => (process as unknown as Record<symbol, unknown>)[s]);
  for (const handle of handles) {
    const proto = handle && typeof handle === 'object' ? (Object.getPrototypeOf(handle) as Record<string, unknown> | null) : null;
    if (!proto || proto === Object.prototype) continue;
    for (const method of CLOSED_HANDLE_METHODS)
      if (typeof proto[method] === 'function') seal(proto, method, closedFunction(`a native handle's ${method}`, report));
  }

  for (const member of CLOSED_PROCESS_MEMBERS) seal(process, member, closedFunction(`process.${member}`, report));
  seal(process, 'send', closedFunction('process.send', report));
  const processReport = (process as unknown as { report?: Record<string, unknown> }).report;
  if (processReport) for (const key of ['writeReport', 'getReport']) seal(processReport, key, closedFunction(`process.report.${key}`, report));
  for (const name of CLOSED_GLOBALS) {
    const closed = closedFunction(name, report);
    seal(globalThis, name, name === 'fetch' ? async (): Promise<never> => closed() : closed);
  }
  // `import … from 'node:net'` reads the same (now closed) exports.
  syncBuiltinESMExports();
}
