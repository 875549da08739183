import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
import { fileSystemError } from './file-errors.js';
import { workFolderPrefix } from './leftovers.js';
import { makeFolder } from './output-folder.js';
import type { OcrPage } from './ocr-model.js';
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
  const path = join(dir, PROJECT_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(manifest, null, 2) + '\n');
  await rename(tmp, path);
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

/** The OCR results of the visible pages, in page order; pages without OCR are left out. */
export async function loadOcrPages(dir: string, manifest: ProjectManifest): Promise<Map<number, OcrPage>> {
  const out = new Map<number, OcrPage>();
  for (const page of visiblePages(manifest)) {
    if (!page.ocr) continue;
    try {
      out.set(page.index, JSON.parse(await readFile(join(dir, page.ocr), 'utf8')) as OcrPage);
    } catch (e) {
      throw new QuireError(ERROR_CODES.BAD_PROJECT, `The OCR result of page ${page.index} cannot be read.`, describeError(e));
    }
  }
  return out;
}
