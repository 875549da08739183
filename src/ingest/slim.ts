/**
 * A slim project (`.quire`, written by the `slim` export) opened again: unpacked with the care given to scan bundles
 * (the same safe zip reader and limits) into a folder, then checked to be a whole project.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { describeError, ERROR_CODES, isQuireError, QuireError } from '../errors.js';
import { assertProjectFiles, parseProjectManifest, PROJECT_FILE, type ProjectManifest } from '../project/index.js';
import { openZipSource } from './zip.js';

/**
 * Unpack a slim project into `workDir` (created if needed, and it must be empty) and check it is a complete project.
 * `label` names the file in messages (default: its path). On any error `workDir` is left as it was found.
 */
export async function openSlim(path: string, workDir: string, label: string = path): Promise<{ dir: string; manifest: ProjectManifest }> {
  await prepareEmptyDir(workDir);
  try {
    await unpack(path, workDir, label);
    const manifest = parseProjectManifest(await readManifest(workDir), 'the slim project');
    await assertProjectFiles(workDir, manifest);
    await assertSourcePdfs(workDir, manifest);
    return { dir: workDir, manifest };
  } catch (e) {
    await emptyDir(workDir);
    throw e;
  }
}

async function unpack(path: string, workDir: string, label: string): Promise<void> {
  const source = await openZipSource(path, label, 'slim project');
  try {
    for (const name of source.files.keys()) {
      const target = join(workDir, name);
      await mkdir(dirname(target), { recursive: true });
      // `wx`: nothing already there (a file planted by an earlier entry) is ever followed or overwritten.
      await writeFile(target, await source.read(name), { flag: 'wx', mode: 0o644 });
    }
  } catch (e) {
    if (isQuireError(e)) throw e;
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} could not be unpacked.`, describeError(e));
  } finally {
    await source.close();
  }
}

async function readManifest(dir: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(join(dir, PROJECT_FILE), 'utf8');
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PROJECT, 'The slim project has no project.json.', describeError(e));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PROJECT, 'The project.json of the slim project is not valid JSON.', describeError(e));
  }
}

/** Each source PDF that pages are kept from reads as a PDF and holds the pages the manifest names in it. */
async function assertSourcePdfs(dir: string, manifest: ProjectManifest): Promise<void> {
  const highest = new Map<string, { page: number; index: number }>();
  for (const page of manifest.pages) {
    if (page.kind !== 'pdf') continue;
    const seen = highest.get(page.file);
    if (!seen || (page.pdfPage ?? 0) > seen.page) highest.set(page.file, { page: page.pdfPage ?? 0, index: page.index });
  }
  for (const [file, { page, index }] of highest) {
    let count: number;
    try {
      const bytes = await readFile(join(dir, file));
      count = (await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false })).getPageCount();
    } catch (e) {
      throw new QuireError(ERROR_CODES.BAD_PROJECT, `The source PDF of page ${index} in the slim project cannot be read.`, `${file}: ${describeError(e)}`);
    }
    if (page > count) {
      throw new QuireError(ERROR_CODES.BAD_PROJECT, `Page ${index} of the slim project is page ${page} of its source PDF, which has ${count} pages.`, file);
    }
  }
}

async function prepareEmptyDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const present = await readdir(dir);
    if (present.length > 0) throw new QuireError(ERROR_CODES.OUTPUT, `The folder to open the slim project in is not empty: ${dir}.`);
  } catch (e) {
    if (isQuireError(e)) throw e;
    throw new QuireError(ERROR_CODES.OUTPUT, `Could not create the folder to open the slim project in: ${dir}.`, describeError(e));
  }
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    await rm(join(dir, name), { recursive: true, force: true });
  }
}
