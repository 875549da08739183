// What a command loads before it does anything: every module costs start-up time a user waits through on each command
// (`quire --version` took about a second when it loaded the whole engine). Runs the built CLI (`npm run build`) with a
// module hook that names each package and each folder of `dist/` it resolves.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUIRE_BIN, ROOT, withTempDir } from '../helpers.js';

const HOOK = `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  const pkg = found.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/);
  const own = found.url.match(/\\/dist\\/([^/]+)\\//);
  const name = pkg ? pkg[1] : own ? 'dist/' + own[1] : undefined;
  if (name) process.stderr.write('loaded: ' + name + '\\n');
  return found;
}
`;

/**
 * The hook in the command's own thread where Node has `registerHooks` (22.15 and later): `register`'s hooks run on a
 * thread of their own, whose writes to stderr were lost on Node 24 when the command exits at once (as `--help` does).
 */
const REGISTER = `import * as nodeModule from 'node:module';
if (typeof nodeModule.registerHooks === 'function') {
  nodeModule.registerHooks({
    resolve(specifier, context, next) {
      const found = next(specifier, context);
      const pkg = found.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/);
      const own = found.url.match(/\\/dist\\/([^/]+)\\//);
      const name = pkg ? pkg[1] : own ? 'dist/' + own[1] : undefined;
      if (name) process.stderr.write('loaded: ' + name + '\\n');
      return found;
    },
  });
} else {
  nodeModule.register(HOOK_URL);
}
`;

/** The packages and `dist/` folders `quire <args>` loads, with what it printed. */
async function loadedBy(args: string[]): Promise<{ code: number; stdout: string; loaded: Set<string> }> {
  return withTempDir(async (dir) => {
    const hook = join(dir, 'hook.mjs');
    const register = join(dir, 'register.mjs');
    await writeFile(hook, HOOK);
    await writeFile(register, REGISTER.replace('HOOK_URL', JSON.stringify(pathToFileURL(hook).href)));
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', pathToFileURL(register).href, QUIRE_BIN, ...args], { cwd: ROOT }, (err, stdout, stderr) => {
        const loaded = new Set([...stderr.matchAll(/^loaded: (.+)$/gm)].map((m) => m[1]!));
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, loaded });
      });
    });
  });
}

/**
 * Loaded by the job server, the web app, the JavaScript OCR engine, remote OCR, zips, the keychain and the correction's
 * dictionaries only. (SQLite is not among them: the settings and installed plugins every command reads are kept there.)
 */
const NOT_FOR_OCR = ['fastify', 'pg', 'tesseract.js', 'undici', 'yauzl', 'yazl', '@napi-rs/keyring', 'hunspell-asm', 'dist/web', 'dist/server'];

describe('start-up: a command loads what it uses', () => {
  it('quire --version and quire version print the version and load neither the engine nor its image library', async () => {
    for (const args of [['--version'], ['version']]) {
      const r = await loadedBy(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^(quire )?\d+\.\d+\.\d+\n$/);
      for (const heavy of ['sharp', 'pdf-lib', 'pdfjs-dist', 'franc', 'dist/convert', 'dist/project', ...NOT_FOR_OCR]) expect(r.loaded).not.toContain(heavy);
    }
  }, 60_000);

  it('quire ocr and quire run load the engine but not the server, the web app, zips, remote OCR or tesseract.js', async () => {
    for (const command of ['ocr', 'run']) {
      const r = await loadedBy([command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: quire ${command}`);
      expect(r.loaded).toContain('dist/convert');
      for (const heavy of NOT_FOR_OCR) expect(r.loaded).not.toContain(heavy);
    }
  }, 60_000);
});
