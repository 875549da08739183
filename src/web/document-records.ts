/** A document and its record in the library (`document.json`): written after each change, read again at start. */
import { basename, join, relative, sep } from 'node:path';
import { loadManifest } from '../project/index.js';
import type { GuiDocument } from './document-model.js';
import { reopenInputs } from './document-open.js';
import { type DocumentRecord, type KeptDocument, removeStaleProjects } from './library.js';

/** What `document.json` keeps of a document: what a restart lists again. */
export function recordOf(doc: GuiDocument): DocumentRecord {
  return {
    format: 'quire-gui-document',
    version: 1,
    id: doc.id,
    name: doc.name,
    inputs: doc.inputs.map((p) => basename(p)),
    preset: doc.preset,
    openedAt: doc.openedAt,
    ...(doc.projectDir ? { project: relative(doc.dir, doc.projectDir).split(sep).join('/') } : {}),
    imageRevision: doc.imageRevision,
    textRevision: doc.textRevision,
    exportedTextRevision: doc.exportedTextRevision,
    written: [...doc.written],
    ...(doc.lastExport ? { lastExport: doc.lastExport } : {}),
  };
}

/**
 * A document kept from an earlier session, as it was: its pages, hidden pages, corrections and preset. One whose
 * first pages were never made (Quire stopped while opening it) comes back as cancelled, ready to be made with
 * Rerun. `offer` makes the last export's files downloadable again.
 */
export async function restoredDocument({ record, dir }: KeptDocument, offer: (path: string, fileName: string) => string): Promise<GuiDocument> {
  const inputDir = join(dir, 'input');
  const inputs = record.inputs.map((name) => join(inputDir, name));
  const projectDir = record.project ? join(dir, record.project) : undefined;
  await removeStaleProjects(dir, record.project);
  const manifest = projectDir ? await loadManifest(projectDir).catch(() => undefined) : undefined;
  const opened = await reopenInputs(inputs).catch(() => null);
  const lastExport =
    record.lastExport?.files && record.lastExport.folder
      ? {
          ...record.lastExport,
          files: record.lastExport.files.map((f) => ({ ...f, url: offer(join(record.lastExport?.folder ?? '', f.fileName), f.fileName) })),
        }
      : record.lastExport;
  return {
    id: record.id,
    name: record.name,
    dir,
    inputs,
    inputDir,
    opened,
    preset: record.preset,
    status: manifest ? 'ready' : 'cancelled',
    revision: 0,
    imageRevision: record.imageRevision,
    frames: new Map(),
    openedAt: record.openedAt,
    textRevision: record.textRevision,
    exportedTextRevision: record.exportedTextRevision,
    written: new Set(record.written),
    counts: new Map(),
    editing: Promise.resolve(),
    keeping: Promise.resolve(),
    ...(lastExport ? { lastExport } : {}),
    ...(manifest && projectDir
      ? { manifest, projectDir }
      : { lastTask: { kind: 'open' as const, outcome: 'cancelled' as const, message: 'Quire was stopped before its pages were made.' } }),
  };
}
