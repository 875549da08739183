/**
 * Ingest: a scan bundle (zip or folder), a PDF or image files → an ordered list of frames, loaded one at a time.
 * Everything that can be refused is refused when opening, before a frame is loaded or anything written.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { openBundle } from './bundle.js';
import { openFolderSource } from './folder.js';
import { openImageFiles } from './images.js';
import { openPdf } from './pdf.js';
import { readHead, readHeadSync, sniff, type Magic } from './sniff.js';
import type { InputType, OpenedInput } from './types.js';
import { openZipSource } from './zip.js';

export type { FrameImage, FrameKind, OpenedInput, SourceFrame, TextLayerPage } from './types.js';
// A frame's pixels are an image primitive (its home is imaging/), offered here with the frames themselves.
export { frameSharp } from '../imaging/index.js';
export { openSlim } from './slim.js';

const EXTENSIONS: Record<string, InputType> = {
  '.aglbundle': 'bundle',
  '.zip': 'bundle',
  '.pdf': 'pdf',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.jpe': 'image',
  '.png': 'image',
  '.tif': 'image',
  '.tiff': 'image',
  '.webp': 'image',
  '.quire': 'project',
};

/**
 * Open a scan bundle (.aglbundle/.zip or an unpacked folder), a PDF, or one image file. `label` is how the user knows
 * the input (default: the path as typed): messages name it, and a document without a name of its own takes its stem.
 */
export async function openInput(path: string, label: string = path): Promise<OpenedInput> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new QuireError(ERROR_CODES.INPUT_NOT_FOUND, `${label} was not found.`, describeError(e));
  }
  const ext = extname(path).toLowerCase();
  if (info.isDirectory()) {
    if (ext === '.quire' || existsSync(join(path, 'project.json'))) throw projectGiven(label);
    return openBundle(await openFolderSource(path, label), stemOf(label));
  }
  if (ext === '.quire') throw projectGiven(label);
  // A pipe or a device would block the read below, or never end.
  if (!info.isFile()) throw new QuireError(ERROR_CODES.UNSUPPORTED_INPUT, `${label} is not a scan bundle, PDF or image that Quire can read.`);
  const type = typeOfFile(await readHead(path), ext);
  switch (type) {
    case 'bundle':
      return openBundle(await openZipSource(path, label), stemOf(label));
    case 'pdf':
      return openPdf(path, label);
    case 'image':
      return openImageFiles([path], label);
    default:
      throw new QuireError(ERROR_CODES.UNSUPPORTED_INPUT, `${label} is not a scan bundle, PDF or image that Quire can read.`);
  }
}

/** Several image files as one document, pages in the given order. */
export async function openImages(paths: string[]): Promise<OpenedInput> {
  return openImageFiles(paths);
}

/** What `path` is, by its content when it exists (a misnamed file still opens), else by its extension. */
export function inputType(path: string): 'bundle' | 'pdf' | 'image' | 'project' | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.quire') return 'project';
  let info;
  try {
    info = statSync(path);
  } catch {
    return EXTENSIONS[ext] ?? null;
  }
  if (info.isDirectory()) {
    if (existsSync(join(path, 'project.json'))) return 'project';
    return ext === '.aglbundle' || holdsManifest(path) ? 'bundle' : null;
  }
  try {
    return typeOfFile(readHeadSync(path), ext);
  } catch {
    return EXTENSIONS[ext] ?? null;
  }
}

function typeOfFile(head: Buffer, ext: string): InputType | null {
  const magic: Magic | null = sniff(head);
  if (magic === 'zip') return 'bundle';
  if (magic === 'pdf') return 'pdf';
  if (magic) return 'image';
  return EXTENSIONS[ext] ?? null;
}

/** manifest.json at the folder's root or in a folder at its root: the two places a bundle keeps it. */
function holdsManifest(folder: string): boolean {
  if (existsSync(join(folder, 'manifest.json'))) return true;
  try {
    return readdirSync(folder, { withFileTypes: true }).some((e) => e.isDirectory() && existsSync(join(folder, e.name, 'manifest.json')));
  } catch {
    return false;
  }
}

function projectGiven(path: string): QuireError {
  return new QuireError(ERROR_CODES.UNSUPPORTED_INPUT, `${path} is a Quire project, not a scan bundle, PDF or image to convert.`);
}

function stemOf(path: string): string {
  const name = basename(path.replace(/[\\/]+$/, ''));
  const ext = extname(name);
  return ext ? name.slice(0, -ext.length) : name;
}
