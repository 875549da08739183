/**
 * Where the sandboxed plugin process's code is: the child script, the plugin API module it hands
 * to plugins, and the folders the child must be allowed to read.
 *
 * From a build these are the compiled files `dist/plugins/sandbox/` and `dist/plugin-api/`. From
 * the TypeScript sources (tests run them directly) the child cannot run `.ts`, so the API and
 * sandbox sources are transpiled once into `node_modules/.cache/quire-plugin-runtime/<hash>/`,
 * laid out as under `src/`. The child needs nothing else: the API's one dependency, nodemailer,
 * runs in the host, which submits a sandboxed plugin's mail for it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The child's code, relative to `src/` (or `dist/`): the sandbox runner and the API module it imports. */
const API_FOLDER = 'plugin-api';
const SANDBOX_FOLDER = join('plugins', 'sandbox');
const RUNTIME_FOLDERS = [API_FOLDER, SANDBOX_FOLDER];

let cached: Promise<SandboxRuntime> | undefined;

/** The sandbox runtime for this host; found (or, from sources, built) once per process. */
export function sandboxRuntime(): Promise<SandboxRuntime> {
  cached ??= locateRuntime();
  return cached;
}

/** The runtime under `root` (`dist/`, or the transpiled copy of `src/`): the child reads only its two folders. */
function runtimeAt(root: string, extraReads: string[]): SandboxRuntime {
  const real = realpathSync(root);
  return {
    childScript: join(real, SANDBOX_FOLDER, 'child.js'),
    apiUrl: pathToFileURL(join(real, API_FOLDER, 'index.js')).href,
    readPaths: [...RUNTIME_FOLDERS.map((folder) => join(real, folder)), ...extraReads],
  };
}

async function locateRuntime(): Promise<SandboxRuntime> {
  const here = fileURLToPath(import.meta.url);
  const rootDir = join(dirname(here), '..');
  if (here.endsWith('.js')) {
    // `dist/`: the package.json above says these .js files are ES modules; the child reads it.
    const packageJson = join(rootDir, '..', 'package.json');
    return runtimeAt(rootDir, existsSync(packageJson) ? [realpathSync(packageJson)] : []);
  }
  const transpiled = await transpiledRuntime(rootDir);
  return runtimeAt(transpiled, [realpathSync(join(transpiled, 'package.json'))]);
}

/** Transpile the API and sandbox sources (`srcDir` is `src/`) into a cache folder named by their content hash. */
async function transpiledRuntime(srcDir: string): Promise<string> {
  const sources = RUNTIME_FOLDERS.flatMap((folder) =>
    readdirSync(join(srcDir, folder))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .sort()
      .map((f) => ({ rel: join(folder, f), text: readFileSync(join(srcDir, folder, f), 'utf8') })),
  );
  const hash = createHash('sha256');
  for (const s of sources) hash.update(s.rel).update('\0').update(s.text).update('\0');
  const packageRoot = join(srcDir, '..');
  const cacheRoot = join(packageRoot, 'node_modules', '.cache', 'quire-plugin-runtime');
  const target = join(cacheRoot, hash.digest('hex').slice(0, 16));
  if (existsSync(join(target, 'package.json'))) return target;
  const ts = (await import('typescript')).default;
  // Build beside the target and rename, so parallel test processes never see half a runtime.
  const building = `${target}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  for (const s of sources) {
    const out = ts.transpileModule(s.text, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
      fileName: s.rel,
    }).outputText;
    mkdirSync(join(building, dirname(s.rel)), { recursive: true });
    writeFileSync(join(building, s.rel.replace(/\.ts$/, '.js')), out);
  }
  writeFileSync(join(building, 'package.json'), '{ "type": "module" }\n');
  try {
    renameSync(building, target);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another process won the race
  }
  // Runtimes of older sources are of no use any more.
  for (const name of readdirSync(cacheRoot)) {
    if (join(cacheRoot, name) !== target && !name.endsWith('.tmp')) rmSync(join(cacheRoot, name), { recursive: true, force: true });
  }
  return target;
}
