/**
 * Where tesseract's language data lives: the `@tesseract.js-data/<lang>` npm packages, installed
 * by `npm ci` alone. Nothing is ever fetched at run time; a language whose package is missing is
 * simply not installed.
 */
import { createReadStream, createWriteStream, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { appDataDir, replaceAtomically } from '../project/index.js';

const require = createRequire(import.meta.url);

const DATA_SCOPE = '@tesseract.js-data';
/**
 * The integer-quantised `best` models. Debian's `tesseract-ocr-<lang>` packages ship the `fast` ones, which read
 * accented letters measurably worse on camera pages (ç as g, ê as é, â as a); these are what every engine uses.
 */
export const MODEL_FOLDER = '4.0.0_best_int';
/** Orientation and script detection data: a package of its own, not a language. */
export const ORIENTATION_DATA = 'osd';

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
      if (found.has(name) || name === ORIENTATION_DATA) continue;
      const file = join(scope, name, MODEL_FOLDER, `${name}.traineddata.gz`);
      if (existsSync(file)) found.set(name, file);
    }
  }
  return found;
}

/** The orientation data (`@tesseract.js-data/osd`), gzipped, if installed. */
export function findOrientationData(): string | undefined {
  for (const folder of nodeModulesFolders()) {
    const file = join(folder, DATA_SCOPE, ORIENTATION_DATA, MODEL_FOLDER, `${ORIENTATION_DATA}.traineddata.gz`);
    if (existsSync(file)) return file;
  }
  return undefined;
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
        const file = data.get(code) ?? (code === ORIENTATION_DATA ? findOrientationData() : undefined);
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

/**
 * The npm models unpacked for native tesseract, which cannot read gzipped data: one folder under the app data
 * folder (`<app data>/tessdata/4.0.0_best_int/`), filled once per language and reused by every later run, passed
 * to the program with `--tessdata-dir`. Languages that only the system has (a Debian `tesseract-ocr-<lang>` with no
 * npm package) are linked in beside them, so one folder serves any mix.
 */
export interface NativeDataFolder {
  readonly path: string;
  /**
   * Make sure the folder holds these languages (`osd` included): unpacked from npm where a package exists, else
   * linked from `systemDir`. Throws on a language neither has.
   */
  ensure(languages: readonly string[], systemDir?: string): Promise<void>;
}

export function nativeDataFolder(root: string = join(appDataDir(), 'tessdata', MODEL_FOLDER)): NativeDataFolder {
  const ready = new Set<string>();
  return {
    path: root,
    async ensure(languages, systemDir) {
      const missing = languages.filter((code) => !ready.has(code));
      if (missing.length === 0) return;
      await mkdir(root, { recursive: true });
      const npm = findLanguageData();
      const osd = findOrientationData();
      if (osd) npm.set(ORIENTATION_DATA, osd);
      for (const code of missing) {
        const packed = npm.get(code);
        const target = join(root, `${code}.traineddata`);
        if (packed) await unpackOnce(packed, target);
        else if (systemDir && existsSync(join(systemDir, `${code}.traineddata`))) await linkOnce(join(systemDir, `${code}.traineddata`), target);
        else throw new Error(`no installed data for language ${code}`);
        ready.add(code);
      }
    },
  };
}

/**
 * Unpack `gz` to `target` unless it already holds that very file: a small stamp beside it records the package
 * file's path inside node_modules, size and time, so an `npm update` of the models is picked up. The path is kept from
 * `node_modules/` on: two checkouts of Quire (each with its own node_modules, same packages) share the cache instead
 * of unpacking the models again each time the other one ran. Written under a temporary name and renamed: two
 * processes unpacking at once each leave a whole file.
 */
async function unpackOnce(gz: string, target: string): Promise<void> {
  const { size, mtimeMs } = statSync(gz);
  const stamp = `${target}.from`;
  const inPackages = gz.lastIndexOf('node_modules');
  const want = JSON.stringify({ file: inPackages < 0 ? gz : gz.slice(inPackages), size, mtimeMs });
  const have = await readFile(stamp, 'utf8').catch(() => '');
  if (have === want && existsSync(target)) return;
  await replaceAtomically(target, (temp) => pipeline(createReadStream(gz), createGunzip(), createWriteStream(temp)));
  await replaceAtomically(stamp, (temp) => writeFile(temp, want));
}

async function linkOnce(source: string, target: string): Promise<void> {
  if (existsSync(target)) return;
  await symlink(source, target).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
}
