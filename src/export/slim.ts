import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PDFDocument } from 'pdf-lib';
import yazl from 'yazl';
import { describeError, isQuireError, QuireError } from '../errors.js';
import type { ProjectManifest, ProjectPageKind } from '../project/index.js';
import { extractZip, SLIM_LIMITS, unsafeEntryReason } from './archive.js';
import { replaceAtomically } from '../project/index.js';

const MANIFEST_NAME = 'project.json';
const PAGE_KINDS: readonly ProjectPageKind[] = ['bitonal', 'gray', 'color', 'pdf'];

/** JPEG and G4 data do not shrink under deflate: store them as they are. */
const ALREADY_COMPRESSED = /\.(jpe?g|tiff?)$/i;

/**
 * Write a slim project: a zip (`.quire`) of `project.json` and the final page images, hidden
 * pages included, the source PDF when pages are kept from it, nothing else (no intermediates).
 * The file appears whole or not at all.
 */
export async function writeSlim(projectDir: string, manifest: ProjectManifest, outPath: string): Promise<{ bytes: number }> {
  const files = slimFiles(manifest);
  await assertFilesPresent(projectDir, manifest);

  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), MANIFEST_NAME, { compress: true, mode: 0o644 });
  for (const file of files) {
    zip.addFile(join(projectDir, file), file, { compress: !ALREADY_COMPRESSED.test(file), mode: 0o644 });
  }
  try {
    await replaceAtomically(outPath, (temp) => pipeZip(zip, temp));
  } catch (e) {
    throw new QuireError('output', `Could not write the slim project "${outPath}".`, describeError(e));
  }
  return { bytes: (await stat(outPath)).size };
}

/**
 * Unpack a slim project into `workDir` (created if needed, and it must be empty) with the care
 * given to scan bundles, and check it is a complete project. On any error `workDir` is left as
 * it was found.
 */
export async function openSlim(path: string, workDir: string): Promise<{ dir: string; manifest: ProjectManifest }> {
  await prepareEmptyDir(workDir);
  try {
    await extractZip(path, workDir, SLIM_LIMITS, 'slim project');
    const manifest = parseManifest(await readManifest(workDir));
    await assertFilesPresent(workDir, manifest);
    await assertSourcePdfs(workDir, manifest);
    return { dir: workDir, manifest };
  } catch (e) {
    await emptyDir(workDir);
    throw e;
  }
}

/** The page image files a slim project carries, each checked to be a safe relative path. */
function slimFiles(manifest: ProjectManifest): string[] {
  const files = new Set<string>();
  for (const page of manifest.pages) {
    if (typeof page.file !== 'string' || unsafeEntryReason(page.file) || page.file === MANIFEST_NAME) {
      throw new QuireError('bad_project', `Page ${page.index} names an image outside the project.`, String(page.file));
    }
    files.add(page.file);
    if (page.ocr !== undefined) {
      if (typeof page.ocr !== 'string' || unsafeEntryReason(page.ocr) || page.ocr === MANIFEST_NAME) {
        throw new QuireError('bad_project', `Page ${page.index} names an OCR result outside the project.`, String(page.ocr));
      }
      files.add(page.ocr);
    }
  }
  return [...files];
}

async function assertFilesPresent(dir: string, manifest: ProjectManifest): Promise<void> {
  for (const page of manifest.pages) {
    const info = await stat(join(dir, page.file)).catch(() => undefined);
    const what = page.kind === 'pdf' ? 'source PDF' : 'image';
    if (!info?.isFile()) throw new QuireError('bad_project', `The ${what} of page ${page.index} is missing from the project.`, page.file);
    if (page.ocr !== undefined) {
      const ocr = await stat(join(dir, page.ocr)).catch(() => undefined);
      if (!ocr?.isFile()) throw new QuireError('bad_project', `The OCR result of page ${page.index} is missing from the project.`, page.ocr);
    }
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
      throw new QuireError('bad_project', `The source PDF of page ${index} in the slim project cannot be read.`, `${file}: ${describeError(e)}`);
    }
    if (page > count) {
      throw new QuireError('bad_project', `Page ${index} of the slim project is page ${page} of its source PDF, which has ${count} pages.`, file);
    }
  }
}

function pipeZip(zip: yazl.ZipFile, temp: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const out = createWriteStream(temp, { mode: 0o644 });
    // yazl reports unreadable input files on the ZipFile, not on its output stream.
    zip.on('error', (e: unknown) => {
      out.destroy();
      reject(e);
    });
    pipeline(zip.outputStream, out).then(resolve, reject);
    zip.end();
  });
}

async function readManifest(dir: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_NAME), 'utf8');
  } catch (e) {
    throw new QuireError('bad_project', 'The slim project has no project.json.', describeError(e));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new QuireError('bad_project', 'The project.json of the slim project is not valid JSON.', describeError(e));
  }
}

/** Check the parts of project.json that reopening and exporting rely on. */
export function parseManifest(value: unknown): ProjectManifest {
  const bad = (what: string): QuireError => new QuireError('bad_project', `The project.json of the slim project ${what}.`);
  if (!isRecord(value) || value.format !== 'quire-project') throw bad('is not a Quire project');
  if (value.version !== 1) throw bad(`has version ${JSON.stringify(value.version)}, and this Quire reads version 1`);
  if (typeof value.name !== 'string') throw bad('has no document name');
  if (!Array.isArray(value.pages) || value.pages.length === 0) throw bad('lists no pages');
  for (const [i, page] of value.pages.entries()) {
    const valid =
      isRecord(page) &&
      Number.isInteger(page.index) &&
      typeof page.file === 'string' &&
      unsafeEntryReason(page.file) === undefined &&
      PAGE_KINDS.includes(page.kind as ProjectPageKind) &&
      isPositive(page.width) &&
      isPositive(page.height) &&
      isPositive(page.dpi) &&
      (page.kind !== 'pdf' || (typeof page.pdfPage === 'number' && Number.isInteger(page.pdfPage) && page.pdfPage >= 1));
    if (!valid) throw bad(`has an unusable entry for page ${i + 1}`);
  }
  return value as unknown as ProjectManifest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositive(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

async function prepareEmptyDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const present = await readdir(dir);
    if (present.length > 0) throw new QuireError('output', `The folder to open the slim project in is not empty: ${dir}.`);
  } catch (e) {
    if (isQuireError(e)) throw e;
    throw new QuireError('output', `Could not create the folder to open the slim project in: ${dir}.`, describeError(e));
  }
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    await rm(join(dir, name), { recursive: true, force: true });
  }
}
