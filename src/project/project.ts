import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
import { unsafeEntryReason } from './entry-path.js';
import { fileSystemError } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import { workFolderPrefix } from './leftovers.js';
import { makeFolder } from './output-folder.js';
import type { OcrPage } from './ocr-model.js';
import { readOcrPage } from './ocr-page.js';
import { withoutRemovedWords } from './proofreading.js';
import type { ProjectManifest, ProjectPage } from './types.js';

export const PROJECT_FILE = 'project.json';

/** A project's working folder: `project.json` plus `pages/`. */
export interface ProjectFolder {
  dir: string;
  /** True when the folder was made for this run and is removed afterwards. */
  transient: boolean;
}

/**
 * Make the working folder: `keep` when the user asked to keep it, else a temporary one named after this process,
 * so that a run killed before it could clean up has its folder removed by the next (`removeStaleWorkFolders`).
 */
export async function createProjectFolder(keep?: string): Promise<ProjectFolder> {
  const dir = keep ? resolve(keep) : undefined;
  try {
    if (dir) {
      await makeFolder(join(dir, 'pages'));
      return { dir, transient: false };
    }
    const made = await mkdtemp(workFolderPrefix('project'));
    await mkdir(join(made, 'pages'));
    return { dir: made, transient: true };
  } catch (e) {
    throw await fileSystemError(e, dir ?? workFolderPrefix('project'), { action: 'create-folder' });
  }
}

export async function removeProjectFolder(folder: ProjectFolder): Promise<void> {
  if (folder.transient) await rm(folder.dir, { recursive: true, force: true });
}

export function newManifest(name: string, inputs: string[]): ProjectManifest {
  return { format: 'quire-project', version: 1, name, created: new Date().toISOString(), inputs, pages: [] };
}

/** Write `project.json` atomically, so a crash never leaves half a manifest. */
export async function saveManifest(dir: string, manifest: ProjectManifest): Promise<void> {
  await writeFileAtomically(join(dir, PROJECT_FILE), Buffer.from(JSON.stringify(manifest, null, 2) + '\n'));
}

export async function loadManifest(dir: string): Promise<ProjectManifest> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(dir, PROJECT_FILE), 'utf8'));
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PROJECT, `${dir} is not a Quire project: its project.json cannot be read.`, describeError(e));
  }
  const m = parsed as Partial<ProjectManifest>;
  if (m.format !== 'quire-project' || m.version !== 1 || !Array.isArray(m.pages)) {
    throw new QuireError(ERROR_CODES.BAD_PROJECT, `${dir} is not a Quire project of a version this Quire reads.`);
  }
  return m as ProjectManifest;
}

/** The pages an export writes: in order, hidden ones left out. */
export function visiblePages(manifest: ProjectManifest): ProjectPage[] {
  return manifest.pages.filter((p) => !p.hidden).sort((a, b) => a.index - b.index);
}

/**
 * The OCR results of the visible pages, in page order, as every export reads them: with a person's proofreading
 * edits (they are in the results) and without the words they removed; pages without OCR are left out.
 */
export async function loadOcrPages(dir: string, manifest: ProjectManifest): Promise<Map<number, OcrPage>> {
  const out = new Map<number, OcrPage>();
  for (const page of visiblePages(manifest)) {
    if (page.ocr) out.set(page.index, withoutRemovedWords(await readOcrPage(dir, page.ocr, page.index)));
  }
  return out;
}

const PAGE_KINDS: readonly string[] = ['bitonal', 'gray', 'color', 'pdf'];

/**
 * Check the parts of a `project.json` that reopening and exporting rely on; `whose` completes "The project.json of
 * …" in messages ("the slim project").
 */
export function parseProjectManifest(value: unknown, whose: string): ProjectManifest {
  const bad = (what: string): QuireError => new QuireError(ERROR_CODES.BAD_PROJECT, `The project.json of ${whose} ${what}.`);
  if (!isRecord(value) || value.format !== 'quire-project') throw bad('is not a Quire project');
  if (value.version !== 1) throw bad(`has version ${JSON.stringify(value.version)}, and this Quire reads version 1`);
  if (typeof value.name !== 'string') throw bad('has no document name');
  if (!Array.isArray(value.pages) || value.pages.length === 0) throw bad('lists no pages');
  for (const [i, page] of value.pages.entries()) {
    const valid =
      isRecord(page) &&
      Number.isInteger(page.index) &&
      typeof page.file === 'string' &&
      unsafeEntryReason(page.file) === null &&
      PAGE_KINDS.includes(page.kind as string) &&
      isPositive(page.width) &&
      isPositive(page.height) &&
      isPositive(page.dpi) &&
      (page.kind !== 'pdf' || (typeof page.pdfPage === 'number' && Number.isInteger(page.pdfPage) && page.pdfPage >= 1));
    if (!valid) throw bad(`has an unusable entry for page ${i + 1}`);
  }
  return value as unknown as ProjectManifest;
}

/** Every page's image (or source PDF) and OCR result named in the manifest is a file in the project folder. */
export async function assertProjectFiles(dir: string, manifest: ProjectManifest): Promise<void> {
  for (const page of manifest.pages) {
    const info = await stat(join(dir, page.file)).catch(() => undefined);
    const what = page.kind === 'pdf' ? 'source PDF' : 'image';
    if (!info?.isFile()) throw new QuireError(ERROR_CODES.BAD_PROJECT, `The ${what} of page ${page.index} is missing from the project.`, page.file);
    if (page.ocr !== undefined) {
      const ocr = await stat(join(dir, page.ocr)).catch(() => undefined);
      if (!ocr?.isFile()) throw new QuireError(ERROR_CODES.BAD_PROJECT, `The OCR result of page ${page.index} is missing from the project.`, page.ocr);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositive(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
