/**
 * Processor and OCR engine plugins in a run: `--steps +despeckle` resolved to installed, accepted processors (an
 * unaccepted one is skipped with one line saying how to accept it), their sessions opened for the run and handed to
 * the frame pool as its step runner; `--ocr <engine>` naming an installed OCR engine plugin registers it in the OCR
 * registry beside the built-ins, through the same call they use.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import { decodeGray } from '../imaging/index.js';
import { findOcrEngine, registerOcrEngine, type OcrEngine } from '../ocr/index.js';
import type { ExtraStep, ExtraStepRunner } from '../pipeline/index.js';
import {
  discoverPagePlugins,
  findPagePlugin,
  openPagePlugin,
  readStepOptions,
  unacceptedLine,
  type PagePluginEntry,
  type PagePluginSession,
  type PluginHostOptions,
} from '../plugins/index.js';
import type { OcrBlock, OcrLine, OcrPage } from '../project/index.js';

/** One `--steps` item: `+despeckle` or `+despeckle:max_speck_pct=20,min_isolation_pct=40`. */
export interface StepRequest {
  name: string;
  options: Record<string, string>;
}

/** Read `--steps`: processor names joined by `+` (a leading `+` says "added to the preset's"), each with `:key=value,…`. */
export function parseStepList(text: string): StepRequest[] {
  const items = text
    .trim()
    .replace(/^\+/, '')
    .split('+')
    .map((t) => t.trim());
  if (items.length === 0 || items.some((t) => t === ''))
    throw new QuireError(ERROR_CODES.USAGE, `The step list "${text}" has an empty entry; write --steps +despeckle or +despeckle:key=value.`);
  return items.map((item) => {
    const [name, rest] = [item.split(':')[0], item.includes(':') ? item.slice(item.indexOf(':') + 1) : ''];
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name))
      throw new QuireError(ERROR_CODES.USAGE, `"${name}" is not a step name; step names are lower-case words joined by hyphens.`);
    const options: Record<string, string> = {};
    for (const pair of rest === '' ? [] : rest.split(',')) {
      const m = /^([a-z][a-z0-9_]*)=(.*)$/.exec(pair.trim());
      if (!m) throw new QuireError(ERROR_CODES.USAGE, `The step option "${pair}" of ${name} is not key=value.`);
      options[m[1]] = m[2];
    }
    return { name, options };
  });
}

/** The processor steps of a run, their sessions open. */
export interface ProcessorSteps {
  steps: ExtraStep[];
  run: ExtraStepRunner;
  /** One line per requested step that was skipped (not accepted). */
  skipped: string[];
  close(): Promise<void>;
}

/**
 * Resolve and start the requested processors. A name no processor is installed under, a refused plugin or an option
 * that does not fit is a usage error before any work; a plugin not accepted (or changed since) is skipped with one
 * line.
 */
export async function openProcessorSteps(requests: readonly StepRequest[], host: PluginHostOptions = {}): Promise<ProcessorSteps> {
  const sessions = new Map<string, PagePluginSession>();
  const steps: ExtraStep[] = [];
  const skipped: string[] = [];
  const close = async (): Promise<void> => {
    await Promise.all([...sessions.values()].map((s) => s.close()));
  };
  try {
    for (const request of requests) {
      // The process that describes the step is the one that runs it: one start per run.
      const entry = await findPagePlugin('processor', request.name, host, { keepSession: true });
      if (!entry) throw new QuireError(ERROR_CODES.USAGE, `No processor step called ${request.name} is installed; see quire list pipelines.`);
      if (entry.state === 'unaccepted') {
        skipped.push(unacceptedLine(entry));
        continue;
      }
      if (entry.state === 'refused')
        throw new QuireError(ERROR_CODES.USAGE, `The processor ${request.name} cannot be used: ${entry.reason ?? 'it is refused'}.`, entry.detail);
      if (sessions.has(request.name)) {
        await entry.session?.close();
        throw new QuireError(ERROR_CODES.USAGE, `The step ${request.name} is named twice in --steps.`);
      }
      let values;
      try {
        values = readStepOptions(entry, request.options);
      } catch (e) {
        await entry.session?.close();
        throw e;
      }
      sessions.set(request.name, await openPagePlugin(entry, values, host));
      steps.push({ name: request.name, after: entry.descriptor?.after ?? 'binarize' });
    }
  } catch (e) {
    await close();
    throw e;
  }
  const run: ExtraStepRunner = async (name, page, facts) => {
    const session = sessions.get(name);
    if (!session) return { ok: false, message: 'it is not running' };
    const outcome = await session.process(page, facts);
    return outcome.ok ? outcome : { ok: false, message: outcome.message, detail: outcome.detail };
  };
  return { steps, run, skipped, close };
}

/** Lines of a recognised page grouped into paragraphs where the gap between lines is larger than a line. */
function toOcrPage(
  read: { lines: Array<{ box: OcrLine['box']; words: Array<{ text: string; box: OcrLine['box']; confidence: number; choices?: string[][] }> }> },
  page: { width: number; height: number; dpi: number },
  engine: string,
  languages: string[],
): OcrPage {
  const lines: OcrLine[] = read.lines
    .filter((l) => l.words.length > 0)
    .map((l) => ({
      box: { ...l.box },
      words: l.words.map((w) => ({
        text: w.text,
        box: { ...w.box },
        confidence: w.confidence,
        ...(w.choices && w.choices.length === [...w.text].length ? { alternatives: w.choices } : {}),
      })),
    }));
  const paragraphs: OcrLine[][] = [];
  for (const line of lines) {
    const last = paragraphs.at(-1)?.at(-1);
    const height = line.box.y1 - line.box.y0;
    if (last && line.box.y0 - last.box.y1 <= height) paragraphs.at(-1)?.push(line);
    else paragraphs.push([line]);
  }
  const union = (boxes: OcrLine['box'][]): OcrLine['box'] => ({
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  });
  const blocks: OcrBlock[] = paragraphs.map((p) => ({ box: union(p.map((l) => l.box)), paragraphs: [{ box: union(p.map((l) => l.box)), lines: p }] }));
  return { width: page.width, height: page.height, dpi: page.dpi, engine, languages, blocks };
}

/** An OCR engine plugin as an `OcrEngine`, and how to tell it that the plugin was described anew. */
interface PluginEngine {
  engine: OcrEngine;
  /** The plugin as discovered again: its languages now, or why it may no longer run. */
  update(entry: PagePluginEntry): void;
}

/** An OCR engine plugin as an `OcrEngine`: one session for the process, started on first use. */
function pluginEngine(first: PagePluginEntry, host: PluginHostOptions, onWarning: (line: string) => void): PluginEngine {
  let entry = first;
  let descriptor = first.descriptor!;
  let languages = descriptor.languages ?? [];
  let session: Promise<PagePluginSession> | undefined;
  // The process that described the engine reads the first pages; after a close, a new one starts when needed.
  let kept = entry.session;
  let fresh: PagePluginEntry = { ...entry, session: undefined };
  const stop = async (): Promise<void> => {
    await kept?.close();
    kept = undefined;
    const running = session;
    session = undefined;
    if (running) await (await running.catch(() => undefined))?.close();
  };
  const engine: OcrEngine = {
    name: entry.slug,
    display: descriptor.display,
    description: `${descriptor.summary} (plugin)`,
    options: [],
    async available() {
      if (entry.state === 'unaccepted') return { ok: false, reason: unacceptedLine(entry) };
      if (entry.state === 'refused') return { ok: false, reason: `the plugin ${entry.slug} cannot be used: ${entry.reason ?? 'it is refused'}.` };
      return languages.length > 0
        ? { ok: true }
        : { ok: false, reason: `the plugin ${entry.slug} has no language to read (see its description for where its model files go).` };
    },
    languages: () => [...languages],
    async recognize(input, wanted) {
      if (entry.state !== 'usable')
        throw new QuireError(
          ERROR_CODES.USAGE,
          entry.state === 'unaccepted' ? unacceptedLine(entry) : `The OCR engine plugin ${entry.slug} cannot be used: ${entry.reason ?? 'it is refused'}.`,
        );
      const chosen = wanted.filter((l) => languages.includes(l));
      const using = chosen.length > 0 ? chosen : languages.slice(0, 1);
      session ??= kept ? Promise.resolve(kept) : openPagePlugin(fresh, {}, host);
      kept = undefined;
      const image = await decodeGray(input.file);
      const outcome = await (await session).recognize({ width: image.width, height: image.height, dpi: input.dpi, pixels: image.data }, using);
      const page = { width: input.width, height: input.height, dpi: input.dpi };
      if (!outcome.ok) {
        onWarning(`${entry.slug} failed on ${input.file.split('/').pop() ?? 'a page'}, which has no text: ${outcome.message}.`);
        return { ...page, engine: entry.slug, languages: using, blocks: [] };
      }
      return toOcrPage(outcome.page, page, entry.slug, using);
    },
    close: stop,
  };
  return {
    engine,
    update(next) {
      const changed = next.sha256 !== entry.sha256 || next.state !== entry.state || JSON.stringify(next.descriptor?.languages) !== JSON.stringify(languages);
      entry = next;
      if (next.state === 'usable' && next.descriptor) {
        descriptor = next.descriptor;
        languages = descriptor.languages ?? [];
        fresh = { ...next, session: undefined };
      }
      // A process started for the plugin as it was reads no further page.
      if (changed) void stop();
    },
  };
}

/** The OCR engine plugins this process registered, by name: the web app describes them again as they change. */
const registeredPlugins = new Map<string, PluginEngine>();

/**
 * Make `--ocr <name>` work for an installed OCR engine plugin: register it (once) when no built-in has that name.
 * An unaccepted or refused plugin is a usage error saying why (and how to accept it); a name that is neither a
 * built-in nor a plugin is left to the OCR spec's own message.
 */
export async function useOcrPlugin(spec: string | undefined, host: PluginHostOptions = {}, onWarning: (line: string) => void = () => {}): Promise<void> {
  const name = spec?.split(':')[0]?.trim().toLowerCase();
  if (!name || findOcrEngine(name) || name === 'auto') return;
  const entry = await findPagePlugin('ocr', name, host, { keepSession: true });
  if (!entry) return;
  if (entry.state === 'unaccepted') throw new QuireError(ERROR_CODES.USAGE, unacceptedLine(entry));
  if (entry.state === 'refused')
    throw new QuireError(ERROR_CODES.USAGE, `The OCR engine plugin ${name} cannot be used: ${entry.reason ?? 'it is refused'}.`, entry.detail);
  const made = pluginEngine(entry, host, onWarning);
  registeredPlugins.set(name, made);
  registerOcrEngine(made.engine);
}

/**
 * Register every installed, accepted OCR engine plugin that no engine of the registry is named after yet (the web
 * app, before it lists the engines it offers). Returns one line per plugin that is not run, saying how to accept it.
 */
export async function registerOcrPlugins(host: PluginHostOptions = {}, onWarning: (line: string) => void = () => {}): Promise<string[]> {
  const skipped: string[] = [];
  // Discovery starts no process for a plugin described before whose files (and files folder) are as they were.
  const found = await discoverPagePlugins('ocr', host);
  for (const entry of found) {
    if (entry.state === 'unaccepted') skipped.push(unacceptedLine(entry));
    const registered = registeredPlugins.get(entry.slug);
    if (registered) registered.update(entry);
    else if (entry.state === 'usable' && !findOcrEngine(entry.slug)) {
      const made = pluginEngine(entry, host, onWarning);
      registeredPlugins.set(entry.slug, made);
      registerOcrEngine(made.engine);
    }
  }
  for (const [slug, registered] of registeredPlugins) {
    if (!found.some((e) => e.slug === slug)) registered.update({ kind: 'ocr', slug, dir: '', state: 'refused', reason: 'it is no longer installed' });
  }
  return skipped;
}

/** What `quire list pipelines` and `quire list ocr` show of the installed page plugins. */
export async function listPagePlugins(kind: 'processor' | 'ocr', host: PluginHostOptions = {}): Promise<PagePluginEntry[]> {
  return discoverPagePlugins(kind, host);
}
