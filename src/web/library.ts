/**
 * The documents `quire gui` keeps between sessions, in the app's data folder (`<app data>/documents/<id>/`): each
 * document's folder holds its upload (`input/`), its project folder (pages, hidden pages, OCR with the person's
 * corrections), its previews, and `document.json`, what the window needs to list it again after a restart (its
 * name, inputs, preset, which text was exported last and where). The record is written atomically after each change
 * that matters (a task's end, an edit, a page hidden, an export); progress is not kept.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomically } from '../project/index.js';
import type { ExportResult, PresetChoice } from './api-types.js';

export const RECORD_FILE = 'document.json';

/** The library folder inside the app's data folder. */
export function libraryFolder(appData: string): string {
  return join(appData, 'documents');
}

/** What `document.json` holds. */
export interface DocumentRecord {
  format: 'quire-gui-document';
  version: 1;
  id: string;
  name: string;
  /** The uploaded files, by name, in `input/`. */
  inputs: string[];
  preset: PresetChoice;
  openedAt: number;
  /** The project folder in use (`project-3`, or `project-1/project` for a slim project unpacked), absent while the first pages are still being made. */
  project?: string;
  imageRevision: number;
  textRevision: number;
  exportedTextRevision: number;
  /** Files this document wrote into the export folder (exporting again replaces them). */
  written: string[];
  /** The last export: where it went, what it wrote or sent (its download addresses die with the session). */
  lastExport?: ExportResult;
}

/** A kept document as read back: its record and its folder. */
export interface KeptDocument {
  record: DocumentRecord;
  dir: string;
}

export async function saveRecord(dir: string, record: DocumentRecord): Promise<void> {
  await writeFileAtomically(join(dir, RECORD_FILE), Buffer.from(JSON.stringify(record, null, 2) + '\n'));
}

/** A project folder inside the document's folder, never one outside it. */
const PROJECT_PATH = /^project-\d+(\/[\w.-]+)?$/;

function isRecord(value: unknown, id: string): value is DocumentRecord {
  const r = value as Partial<DocumentRecord> | null;
  return (
    r !== null &&
    typeof r === 'object' &&
    r.format === 'quire-gui-document' &&
    r.version === 1 &&
    r.id === id &&
    typeof r.name === 'string' &&
    Array.isArray(r.inputs) &&
    r.inputs.every((i) => typeof i === 'string' && i === basename(i)) &&
    typeof r.openedAt === 'number' &&
    (r.project === undefined || (typeof r.project === 'string' && PROJECT_PATH.test(r.project)))
  );
}

/**
 * The documents kept in `library`, oldest first. A folder without a readable record (a crash between the upload and
 * the first record, a record from another version) is left as it is and named in `skipped`, never deleted: it may
 * hold someone's work.
 */
export async function readLibrary(library: string): Promise<{ kept: KeptDocument[]; skipped: string[] }> {
  const names = await readdir(library).catch(() => [] as string[]);
  const kept: KeptDocument[] = [];
  const skipped: string[] = [];
  for (const id of names) {
    if (!/^[0-9a-f]{12}$/.test(id)) continue;
    const dir = join(library, id);
    try {
      const record: unknown = JSON.parse(await readFile(join(dir, RECORD_FILE), 'utf8'));
      if (!isRecord(record, id) || !record.inputs.every((i) => existsSync(join(dir, 'input', i)))) throw new Error('not a record');
      kept.push({ record, dir });
    } catch {
      skipped.push(dir);
    }
  }
  return { kept: kept.sort((a, b) => a.record.openedAt - b.record.openedAt), skipped };
}

/** Project folders of a document other than the one in use: a rerun that a stop cut short leaves one. */
export async function removeStaleProjects(dir: string, inUse: string | undefined): Promise<void> {
  const kept = inUse?.split('/')[0];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (/^project-\d+$/.test(name) && name !== kept) await rm(join(dir, name), { recursive: true, force: true });
  }
}
