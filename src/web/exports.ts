/**
 * The Export panel: one list of exporter cards, the built-in formats and one `send:<slug>` card per
 * installed destination, run by the same Export button. A normal export writes its file into the
 * export folder (named after the document; never over another document's file) and lists it, to
 * show in the folder or download; a send writes the export into a private staging folder made for
 * this send alone, hands it to the plugin under the name a save dialog would propose, and removes
 * it whatever happened.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { exportRegistry, listExports, readyOcr, recognize, send, writeExports, type ExportRequest } from '../convert/index.js';
import { safeFileName, visiblePages, type ProjectManifest } from '../project/index.js';
import { CHECK_KIND_LABELS, type InstalledDestination, type PluginHostOptions } from '../plugins/index.js';
import { missingSettings } from '../settings/index.js';
import { formatBytes } from '../util/index.js';
import type { ExporterCard, ExportResult, GuiSettings, StageProgress } from './api-types.js';
import type { GuiDocument, TaskReporter } from './documents.js';
import { httpError } from '../http/index.js';
import { FORMAT_TITLES, ocrStage, sendStage, writeStage } from './stages.js';

const TITLES = FORMAT_TITLES;
const OPTION_LABELS: Record<string, string> = { profile: 'PDF profile', pages: 'Page markers' };

/**
 * The formats of `accepts` Quire can write as a document to send, in the destination's order; formats Quire cannot
 * write are never offered (nor a slim project, which is not a document).
 */
export function writableFormats(accepts: readonly string[]): string[] {
  return accepts.filter((f) => exportRegistry.get(f)?.sendable === true);
}

/** The cards, built-in formats first, then each installed destination with its state. */
export function exporterCards(destinations: readonly InstalledDestination[], host: PluginHostOptions): ExporterCard[] {
  const formats: ExporterCard[] = listExports().map((e) => {
    const options = Object.entries(e.options)
      .filter(([, o]) => o.values && o.values.length > 0)
      .map(([name, o]) => ({
        name,
        label: OPTION_LABELS[name] ?? name,
        values: [...(o.values ?? [])],
        default: o.values?.[0] ?? '',
        description: o.description,
      }));
    return {
      key: e.name,
      title: TITLES[e.name] ?? e.name,
      description: e.description,
      kind: 'format',
      ...(options.length > 0 ? { options } : {}),
      ...(e.needsOcr ? { needsOcr: true } : {}),
    };
  });
  const sends = destinations.map((d): ExporterCard => {
    if (d.state === 'refused') {
      return {
        key: `send:${d.slug}`,
        title: d.manifest?.name ?? d.slug,
        description: d.manifest?.description ?? '',
        kind: 'destination',
        state: 'refused',
        reason: d.reason,
      };
    }
    const writable = writableFormats(d.descriptor.accepts);
    const missing = missingSettings(d.descriptor, host);
    const state = writable.length === 0 ? 'no-format' : missing.length > 0 ? 'needs-settings' : 'ready';
    return {
      key: `send:${d.slug}`,
      title: d.descriptor.display,
      description: d.descriptor.description,
      kind: 'destination',
      formats: writable,
      state,
      ...(missing.length > 0 ? { missing } : {}),
    };
  });
  return [...formats, ...sends];
}

export interface ExportAsk {
  /** A format name, or `send:<slug>`. */
  target: string;
  /** Format options (`profile`). */
  options?: Record<string, string>;
  /** For a destination taking several formats: the one to write. */
  as?: string;
  /** More formats written by the same export, beside `target` (a format too), under the same name: PDF, Markdown and EPUB in one go. */
  also?: Array<{ target: string; options?: Record<string, string> }>;
}

export interface ExportContext {
  host: PluginHostOptions;
  settings: GuiSettings;
  destinations: () => Promise<InstalledDestination[]>;
  /** The folder exports are written to. */
  exportFolder: string;
  /** Let the page download a written file; returns its address. */
  offerDownload: (path: string, fileName: string) => string;
  stagingRoot: string;
  /** The person's dictionary: the correction step leaves its words alone. */
  userWords?: readonly string[];
}

/** An export asked for, checked: what to write, and where it goes when it is a send. */
export interface ResolvedExport {
  /** What to write: one format for a send, one or more for the export folder. */
  requests: ExportRequest[];
  title: string;
  slug?: string;
  display?: string;
}

/** The export request a card and its choices stand for; a usage error in a sentence otherwise. */
/** One format asked for, with its options checked. */
function resolveFormat(target: string, asked: Record<string, string> = {}): ExportRequest {
  const exporter = listExports().find((e) => e.name === target);
  if (!exporter) throw httpError('unknown_format', `There is no export format called ${target}.`);
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(asked)) {
    const allowed = exporter.options[key]?.values;
    if (!allowed) throw httpError('bad_request', `The ${exporter.name} export has no option ${key}.`);
    if (!allowed.includes(value)) throw httpError('bad_request', `The ${exporter.name} option ${key} must be one of: ${allowed.join(', ')}.`);
    options[key] = value;
  }
  return { format: exporter.name, options };
}

/** "PDF", "PDF and Markdown", "PDF, Markdown and EPUB". */
function titleOf(requests: ExportRequest[]): string {
  const titles = requests.map((r) => TITLES[r.format] ?? r.format);
  return titles.length === 1 ? titles[0] : `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

export async function resolveExport(ask: ExportAsk, ctx: Pick<ExportContext, 'destinations' | 'host'>): Promise<ResolvedExport> {
  if (ask.also && ask.also.length > 0 && ask.target.startsWith('send:'))
    throw httpError('bad_request', 'A destination is sent one format at a time; choose more formats only for the export folder.');
  if (!ask.target.startsWith('send:')) {
    const requests = [resolveFormat(ask.target, ask.options)];
    for (const more of ask.also ?? []) {
      if (more.target.startsWith('send:'))
        throw httpError('bad_request', 'A destination is sent one format at a time; choose more formats only for the export folder.');
      if (requests.some((r) => r.format === more.target)) throw httpError('bad_request', `The ${more.target} export was asked for twice.`);
      requests.push(resolveFormat(more.target, more.options));
    }
    return { requests, title: titleOf(requests) };
  }
  const slug = ask.target.slice('send:'.length);
  const found = (await ctx.destinations()).find((d) => d.slug === slug);
  if (!found) throw httpError('not_found', `The destination ${slug} is not installed.`);
  if (found.state === 'refused') throw httpError('refused', `The destination ${slug} cannot be used: ${found.reason}.`);
  const missing = missingSettings(found.descriptor, ctx.host);
  if (missing.length > 0)
    throw httpError(
      'not_set_up',
      `${found.descriptor.display} is not set up yet; it needs ${missing.join(', ')}: open Plugins → ${found.descriptor.display} → Settings.`,
      { missing },
    );
  const formats = writableFormats(found.descriptor.accepts);
  if (formats.length === 0) throw httpError('no_format', `${found.descriptor.display} takes no format Quire writes.`);
  const format = ask.as ?? formats[0];
  if (!formats.includes(format)) throw httpError('bad_request', `${found.descriptor.display} can be sent ${formats.join(', ')}, not ${format}.`);
  return { requests: [{ format, options: {} }], slug, title: found.descriptor.display, display: found.descriptor.display };
}

/** The OCR an export needs: none when the pages have text, else the default engine (auto when that is none). */
function ocrFor(requests: ExportRequest[], manifest: ProjectManifest, settings: GuiSettings): { ocr?: string; ocrLang?: string } {
  const needsText = requests.some((r) => exportRegistry.get(r.format)?.needsOcr === true);
  const hasText = visiblePages(manifest).every((p) => p.ocr);
  if (!needsText || hasText) return {};
  return { ocr: settings.ocrEngine === 'none' ? 'auto' : settings.ocrEngine, ocrLang: settings.ocrLanguages };
}

/** The stages an export goes through: OCR when it needs text the pages lack, writing the format, sending it. */
export function exportStages(resolved: ResolvedExport, manifest: ProjectManifest, settings: GuiSettings): StageProgress[] {
  const stages: StageProgress[] = [];
  if (ocrFor(resolved.requests, manifest, settings).ocr) stages.push(ocrStage());
  for (const r of resolved.requests) stages.push(writeStage(r.format));
  if (resolved.slug) stages.push(sendStage(resolved.slug, resolved.display ?? resolved.slug));
  return stages;
}

/**
 * The file stem an export of `doc` writes under in `folder`: the document's name, or `name (2)`, `name (3)`… when a
 * file of that name is there that this document did not write (another document of the same name, an older file).
 */
export function exportStem(doc: Pick<GuiDocument, 'written'>, folder: string, name: string, extensions: readonly string[]): string {
  const base = safeFileName(name);
  for (let n = 1; ; n++) {
    const stem = n === 1 ? base : `${base} (${n})`;
    // Every file of one export shares its stem: the PDF, the Markdown and the EPUB of a document keep one name.
    const free = extensions.every((extension) => {
      const path = join(folder, `${stem}${extension}`);
      return !existsSync(path) || doc.written.has(path);
    });
    if (free) return stem;
  }
}

/** Write the export (OCR first when it needs text and the pages have none); then list it for the page, or send it. */
export async function runExport(
  doc: GuiDocument,
  projectDir: string,
  resolved: ResolvedExport,
  ctx: ExportContext,
  signal: AbortSignal,
  report: TaskReporter,
): Promise<ExportResult> {
  const { requests, slug } = resolved;
  const manifest = doc.manifest as ProjectManifest;
  const project = { dir: projectDir, manifest };
  const { ocr, ocrLang } = ocrFor(requests, manifest, ctx.settings);
  if (ocr) {
    const spec = await readyOcr(ocr, ocrLang);
    report.start('ocr');
    await recognize(project, spec, { signal, onProgress: report.onProgress, timeLeft: true, userWords: ctx.userWords ?? [] });
  }
  const onWritten = (o: { format: string; path: string }): void => {
    report.onProgress({ type: 'export', format: o.format, path: o.path });
    const next = requests[requests.findIndex((r) => r.format === o.format) + 1];
    if (next) report.start(`write:${next.format}`);
  };
  const base = { title: resolved.title, at: 0, stages: [] as StageProgress[] };
  report.start(`write:${requests[0].format}`);
  if (!slug) {
    await mkdir(ctx.exportFolder, { recursive: true });
    const extensions = requests.map((r) => exportRegistry.get(r.format)?.extension ?? '');
    const fileStem = exportStem(doc, ctx.exportFolder, manifest.name, extensions);
    const written = await writeExports(project, requests, ctx.exportFolder, { fileStem, signal, onWritten });
    const files = written.map((w) => {
      doc.written.add(w.path);
      const fileName = basename(w.path);
      return { fileName, format: w.format, bytes: w.bytes, size: formatBytes(w.bytes), url: ctx.offerDownload(w.path, fileName) };
    });
    return { ...base, kind: 'files', at: Date.now(), folder: ctx.exportFolder, files };
  }
  const staging = await mkdtemp(join(ctx.stagingRoot, 'export-'));
  try {
    const written = await writeExports(project, requests, staging, { onWritten });
    report.start(`send:${slug}`);
    const converted = { name: manifest.name, pages: visiblePages(manifest).length, outputs: written, ...(manifest.ocr ? { ocr: manifest.ocr } : {}) };
    const outcomes = await send(converted, [slug], ctx.host);
    report.finish(`send:${slug}`);
    return {
      ...base,
      kind: 'send',
      at: Date.now(),
      sends: outcomes.map((o) => ({
        ok: o.result.ok,
        alreadyThere: o.result.alreadyThere,
        message: o.result.message,
        ...(o.result.kind ? { kindLabel: CHECK_KIND_LABELS[o.result.kind] } : {}),
        fileName: o.fileName,
        display: o.display,
      })),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
