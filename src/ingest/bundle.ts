import sharp from 'sharp';
import { ERROR_CODES, QuireError } from '../errors.js';
import { checkImagePixels } from '../imaging/index.js';
import { formatBytes } from '../util/index.js';
import { unsafeEntryReason } from '../project/index.js';
import { declaredImageSize, sniffImage } from './sniff.js';
import type { OpenedInput, SourceFrame } from './types.js';

/**
 * A scan bundle, zipped or unpacked, seen as a flat list of files. The zip and folder readers check paths, links
 * and sizes while listing; everything about the bundle's contents is checked here, the same way for both.
 */
export interface BundleSource {
  /** The bundle as the user named it, for messages. */
  label: string;
  /** Every file (not folder) by its '/'-separated path from the archive or folder root, with its size in bytes. */
  files: ReadonlyMap<string, number>;
  /** The whole file; `name` is a key of `files`. */
  read(name: string): Promise<Buffer>;
  /** The first `length` bytes of the file. */
  readHead(name: string, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export const FORMAT_VERSION = 1;
/** Shared by the zip and folder readers: a capture app writes two files per page at most. */
export const MAX_ENTRIES = 10_000;
/** manifest.json and pages.jsonl are read whole; real ones are a few hundred bytes and ~100 bytes per page. */
const MAX_MANIFEST_BYTES = 1 << 20;
const MAX_PAGES_BYTES = 16 << 20;
/**
 * The start of a page image read to find its size: a camera JPEG's EXIF (with its thumbnail) stays under 64 KB, so
 * its frame header is well inside this; a TIFF that keeps its header at the end is read whole.
 */
const IMAGE_HEAD_BYTES = 256 * 1024;
/** A manifest resolution outside this range is a typo, not a capture. */
const MIN_DPI = 50;
const MAX_DPI = 4800;

export interface BundleManifest {
  project?: string;
  pageCount?: number;
  dpi?: number;
}

export interface BundlePage {
  index: number;
  /** Path of the image relative to the bundle root (after any wrapping folder). */
  file: string;
  line: number;
}

/** Open a listed bundle: check everything, then hand out frames that read one image each. */
export async function openBundle(source: BundleSource, fallbackName: string): Promise<OpenedInput> {
  const { label } = source;
  const prefix = findBundleRoot(label, source.files);
  const manifestName = `${prefix}manifest.json`;
  const pagesName = `${prefix}pages.jsonl`;
  const manifest = parseManifest(label, await readSmallText(source, manifestName, MAX_MANIFEST_BYTES));
  if (!source.files.has(pagesName)) {
    throw new QuireError(ERROR_CODES.BUNDLE_MISSING, `${label} is not a scan bundle: it has no pages.jsonl beside its manifest.json.`);
  }
  const pages = parsePages(label, await readSmallText(source, pagesName, MAX_PAGES_BYTES));
  if (manifest.pageCount !== undefined && manifest.pageCount !== pages.length) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_MISSING,
      `${label} is incomplete: its manifest.json says ${manifest.pageCount} pages, but pages.jsonl lists ${pages.length}.`,
    );
  }
  for (const page of pages) await checkPageImage(source, prefix, page);

  const dpi = manifest.dpi === undefined ? undefined : { value: manifest.dpi, source: 'manifest' as const };
  const frames: SourceFrame[] = pages.map((page, i) => ({
    index: i + 1,
    input: page.file,
    kind: 'camera',
    ...(dpi ? { dpi } : {}),
    load: async () => ({ data: await source.read(prefix + page.file) }),
  }));
  return { name: manifest.project ?? fallbackName, kind: 'bundle', frames, close: () => source.close() };
}

/**
 * Where manifest.json is: '' at the root, or 'folder/' when the bundle was zipped with its folder around it
 * (what "Compress" in a file manager does). macOS adds `__MACOSX/` and dot files beside it; they do not count.
 */
export function findBundleRoot(label: string, files: ReadonlyMap<string, number>): string {
  if (files.has('manifest.json')) return '';
  const wrapped = new Set<string>();
  for (const name of files.keys()) {
    const parts = name.split('/');
    if (parts.length === 2 && parts[1] === 'manifest.json' && parts[0] !== '__MACOSX' && !parts[0].startsWith('.')) wrapped.add(parts[0]);
  }
  if (wrapped.size === 1) return `${[...wrapped][0]}/`;
  if (wrapped.size > 1) {
    const names = [...wrapped]
      .sort()
      .map((n) => `${n}/`)
      .join(', ');
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} holds several scan bundles (${names}); give them to Quire one at a time.`);
  }
  throw new QuireError(ERROR_CODES.BUNDLE_MISSING, `${label} is not a scan bundle: it has no manifest.json at its root or in a folder at its root.`);
}

async function readSmallText(source: BundleSource, name: string, maxBytes: number): Promise<string> {
  const size = source.files.get(name) ?? 0;
  if (size > maxBytes) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_TOO_LARGE,
      `${source.label} is not a scan bundle Quire will open: its ${baseName(name)} is ${formatBytes(size)}, far more than a capture writes.`,
    );
  }
  return (await source.read(name)).toString('utf8');
}

export function parseManifest(label: string, text: string): BundleManifest {
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable scan bundle: its manifest.json is not valid JSON.`, String(e));
  }
  if (!isRecord(value)) {
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable scan bundle: its manifest.json is not a JSON object.`);
  }
  const version = value.format_version;
  if (version !== FORMAT_VERSION) {
    const says = version === undefined ? 'has no format_version' : `says format_version ${JSON.stringify(version)}`;
    throw new QuireError(ERROR_CODES.BUNDLE_VERSION, `${label} is not a scan bundle: its manifest.json ${says}, and Quire reads version ${FORMAT_VERSION}.`);
  }
  const manifest: BundleManifest = {};
  if (typeof value.project === 'string' && value.project.trim() !== '') manifest.project = value.project.trim();
  if (value.page_count !== undefined) {
    if (!isCount(value.page_count)) {
      throw new QuireError(
        ERROR_CODES.BAD_ARCHIVE,
        `${label} is not a readable scan bundle: its manifest.json gives page_count ${JSON.stringify(value.page_count)}, which is not a number of pages.`,
      );
    }
    manifest.pageCount = value.page_count;
  }
  if (value.dpi !== undefined && value.dpi !== null) {
    const dpi = value.dpi;
    if (typeof dpi !== 'number' || !Number.isFinite(dpi) || dpi < MIN_DPI || dpi > MAX_DPI) {
      throw new QuireError(
        ERROR_CODES.BAD_ARCHIVE,
        `${label} is not a readable scan bundle: its manifest.json gives dpi ${JSON.stringify(dpi)}, which is not a resolution between ${MIN_DPI} and ${MAX_DPI}.`,
      );
    }
    manifest.dpi = dpi;
  }
  return manifest;
}

/** pages.jsonl, one page per line, in `index` order. */
export function parsePages(label: string, text: string): BundlePage[] {
  const pages: BundlePage[] = [];
  const lineOf = new Map<number, number>();
  const lines = stripBom(text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    const line = i + 1;
    const bad = (why: string) => new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable scan bundle: line ${line} of pages.jsonl ${why}.`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable scan bundle: line ${line} of pages.jsonl is not valid JSON.`, String(e));
    }
    if (!isRecord(value)) throw bad('is not a JSON object');
    if (!isCount(value.index) || value.index < 1) throw bad('has no page index (a whole number from 1)');
    if (typeof value.file !== 'string' || value.file === '') throw bad('names no image file');
    const unsafe = unsafeEntryReason(value.file);
    if (unsafe) {
      throw new QuireError(ERROR_CODES.BUNDLE_UNSAFE_PATH, `${label} is not safe to open: line ${line} of pages.jsonl names "${value.file}", which ${unsafe}.`);
    }
    const earlier = lineOf.get(value.index);
    if (earlier !== undefined) throw bad(`repeats page ${value.index}, already on line ${earlier}`);
    lineOf.set(value.index, line);
    pages.push({ index: value.index, file: value.file, line });
  }
  if (pages.length === 0) throw new QuireError(ERROR_CODES.BUNDLE_MISSING, `${label} has no pages: its pages.jsonl is empty.`);
  return pages.sort((a, b) => a.index - b.index);
}

async function checkPageImage(source: BundleSource, prefix: string, page: BundlePage): Promise<void> {
  const { label } = source;
  if (!source.files.has(prefix + page.file)) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_MISSING,
      `${label} is incomplete: page ${page.index} in pages.jsonl names ${page.file}, which is not in the bundle.`,
    );
  }
  const name = prefix + page.file;
  const head = await source.readHead(name, IMAGE_HEAD_BYTES);
  if (!sniffImage(head)) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `${label} is not a usable scan bundle: ${page.file} (page ${page.index}) is not an image.`);
  }
  // Its size from its header, so that a decompression bomb is refused here, before anything decodes it.
  const size = (await imageSize(head)) ?? (head.length < (source.files.get(name) ?? 0) ? await imageSize(await source.read(name)) : null);
  if (!size)
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `${label} is not a usable scan bundle: on page ${page.index}, ${page.file} is not an image Quire can read.`);
  checkImagePixels(`${label}: page ${page.index} (${page.file})`, size.width, size.height);
}

/** Width and height as the image's header declares them (no pixel is decoded); null when the header cannot be read. */
async function imageSize(bytes: Buffer): Promise<{ width: number; height: number } | null> {
  const declared = declaredImageSize(bytes);
  if (declared && declared.width > 0 && declared.height > 0) return declared;
  try {
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}
