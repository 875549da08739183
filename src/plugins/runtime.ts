/**
 * Where the sandboxed plugin process's code is: the child script, the plugin API module it hands
 * to plugins, and the folders the child must be allowed to read.
 *
 * These are always the build's files, `dist/plugins/sandbox/` and `dist/plugin-api/`, found from this file's place in
 * the package (`src/plugins/` and `dist/plugins/` both lie two folders under the package root): the child cannot run
 * `.ts`, so code run from the TypeScript sources (the tests) hands plugins the built runtime too: build first
 * (`npm test` does). The child needs nothing else: the API's one dependency, nodemailer, runs in the host, which
 * submits a sandboxed plugin's mail for it.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The sandbox's code and what it may read of the host. */
export interface SandboxRuntime {
  /** The child process's entry script. */
  childScript: string;
  /** The plugin API module as a `file:` URL: what `quire/plugin-api` is rewritten to. */
  apiUrl: string;
  /** Folders and files the child must read: its own code and the `package.json` that makes it ES modules. */
  readPaths: string[];
}

/** The child's code, relative to `dist/`: the sandbox runner and the API module it imports. */
const API_FOLDER = 'plugin-api';
const SANDBOX_FOLDER = join('plugins', 'sandbox');
const RUNTIME_FOLDERS = [API_FOLDER, SANDBOX_FOLDER];

let cached: Promise<SandboxRuntime> | undefined;

/** The sandbox runtime for this host, found once per process. */
export function sandboxRuntime(): Promise<SandboxRuntime> {
  cached ??= Promise.resolve().then(locateRuntime);
  return cached;
}

/** The runtime under the package's `dist/`, and the package.json above it that says its .js files are ES modules. */
function locateRuntime(): SandboxRuntime {
  const real = realpathSync(fileURLToPath(new URL('../../dist/', import.meta.url)));
  const packageJson = join(real, '..', 'package.json');
  return {
    childScript: join(real, SANDBOX_FOLDER, 'child.js'),
    apiUrl: pathToFileURL(join(real, API_FOLDER, 'index.js')).href,
    readPaths: [...RUNTIME_FOLDERS.map((folder) => join(real, folder)), ...(existsSync(packageJson) ? [realpathSync(packageJson)] : [])],
  };
}
