/**
 * Where tesseract's language data lives: the `@tesseract.js-data/<lang>` npm packages, installed
 * by `npm ci` alone. Nothing is ever fetched at run time; a language whose package is missing is
 * simply not installed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

const DATA_SCOPE = '@tesseract.js-data';
/** The LSTM-only integer models: smallest download, same accuracy as `best` in our measurements. */
const MODEL_FOLDER = '4.0.0_best_int';

/** The `node_modules` folders Node would search for our dependencies, nearest first. */
function nodeModulesFolders(): string[] {
  return require.resolve.paths(DATA_SCOPE) ?? [];
}

/** Tesseract code → absolute path of its `<code>.traineddata.gz`, for every installed package. */
export function findLanguageData(): Map<string, string> {
  const found = new Map<string, string>();
  for (const folder of nodeModulesFolders()) {
    const scope = join(folder, DATA_SCOPE);
    let names: string[];
    try {
      names = readdirSync(scope);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (found.has(name)) continue;
      const file = join(scope, name, MODEL_FOLDER, `${name}.traineddata.gz`);
      if (existsSync(file)) found.set(name, file);
    }
  }
  return found;
}

/** Tesseract codes of the installed language packages, sorted. */
export function listInstalledLanguages(): string[] {
  return [...findLanguageData().keys()].sort();
}

/**
 * A folder holding `<code>.traineddata.gz` for the given languages, to use as tesseract.js's
 * `langPath`. Tesseract reads every language of a set (`fra+lat`) from ONE folder, while npm
 * installs each in its own package, so we gather symlinks in a folder of our own.
 */
export interface LanguageFolder {
  readonly path: string;
  /** Link the data of these languages into the folder (idempotent); throws on a language that is not installed. */
  ensure(languages: readonly string[]): Promise<void>;
  remove(): Promise<void>;
}

export async function createLanguageFolder(parent: string = tmpdir()): Promise<LanguageFolder> {
  await mkdir(parent, { recursive: true });
  const path = await mkdtemp(join(parent, 'quire-tessdata-'));
  const linked = new Set<string>();
  return {
    path,
    async ensure(languages) {
      const missing = languages.filter((code) => !linked.has(code));
      if (missing.length === 0) return;
      // Scanned again each time something new is asked for: a package installed while a server runs is found.
      const data = findLanguageData();
      for (const code of missing) {
        const file = data.get(code);
        if (!file) throw new Error(`no installed data for language ${code}`);
        await symlink(file, join(path, `${code}.traineddata.gz`)).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        linked.add(code);
      }
    },
    async remove() {
      await rm(path, { recursive: true, force: true });
    },
  };
}
