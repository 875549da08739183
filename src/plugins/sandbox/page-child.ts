/**
 * The sandboxed process of a page plugin (a processor or an OCR engine). Started like a destination's (bubblewrap,
 * Node's permission model, the lockdown), but it serves a whole run: after `start` it loads the plugin once,
 * answers `ready` with what the plugin says about itself, then answers each `page` request. Pixels come and go as
 * raw files in the run's exchange folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  OcrEnginePlugin,
  Processor,
  registeredPagePlugins,
  routeNetworkThroughHost,
  type FieldValue,
  type PageFacts,
  type PageImage,
  type TesseractRequest,
} from '../../plugin-api/index.js';
import { lockDown } from './lockdown.js';
import { describeThrown, isSandboxRefusal } from './thrown.js';
import { changedRanges, PAGE_IN, PAGE_OUT, readPageFile, writePageFile, writePageRanges } from './page-files.js';
import type { PageChildMessage, PageHostMessage, PagePluginDescriptor, PageRequest, StartMessage } from './page-protocol.js';

const sendToHost = process.send?.bind(process);

function tell(message: PageChildMessage): void {
  sendToHost?.(message);
}

// A page plugin has no network at all: the API's helpers are refused here too.
routeNetworkThroughHost({
  http: () => Promise.reject(Object.assign(new Error('a page plugin has no network'), { code: 'ERR_ACCESS_DENIED' })),
  mail: () => Promise.reject(Object.assign(new Error('a page plugin has no network'), { code: 'ERR_ACCESS_DENIED' })),
});
lockDown((what) => tell({ type: 'refused', what }));

let plugin: Processor | OcrEnginePlugin | undefined;
/** The option values the plugin reads (`option(key)`): replaced by those each page request carries. */
const runOptions: Record<string, FieldValue> = {};
let exchangeDir = '';
const tesseractWaiting = new Map<number, { resolve: (tsv: string) => void; reject: (e: Error) => void }>();
let nextTesseract = 1;

function askTesseract(request: TesseractRequest): Promise<string> {
  const id = nextTesseract++;
  const file = `tess-${id}.raw`;
  writeFileSync(join(exchangeDir, file), request.page.pixels);
  return new Promise((resolve, reject) => {
    tesseractWaiting.set(id, { resolve, reject });
    tell({
      type: 'tesseract',
      id,
      file,
      width: request.page.width,
      height: request.page.height,
      dpi: request.page.dpi,
      model: String(request.model),
      psm: Number(request.psm ?? 3),
    });
  });
}

async function describe(instance: Processor | OcrEnginePlugin, message: StartMessage): Promise<PagePluginDescriptor> {
  const text = (value: unknown, member: string): string => {
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`its ${member} must be a non-empty text`);
    return value;
  };
  const name = text(instance.name, 'name');
  if (name !== message.slug) throw new Error(`it is named "${name}" but the plugin's slug is "${message.slug}"`);
  if (instance instanceof Processor) {
    return {
      kind: 'processor',
      name,
      display: text(instance.display, 'display'),
      summary: text(instance.summary, 'summary'),
      after: String(instance.after),
      options: Array.isArray(instance.OPTIONS) ? instance.OPTIONS.map((f) => ({ ...f })) : [],
      timeoutMs: Number(instance.timeoutMs),
      changesSize: instance.changesSize === true,
    };
  }
  const languages = await instance.languages();
  return {
    kind: 'ocr',
    name,
    display: text(instance.display, 'display'),
    summary: text(instance.description, 'description'),
    options: [],
    timeoutMs: Number(instance.timeoutMs),
    languages: Array.isArray(languages) ? languages.map(String) : [],
  };
}

async function start(message: StartMessage): Promise<void> {
  exchangeDir = message.exchangeDir;
  try {
    await import(`data:text/javascript;base64,${Buffer.from(message.source, 'utf8').toString('base64')}`);
    const registered = registeredPagePlugins();
    const classes = message.kind === 'processor' ? registered.processors : registered.engines;
    const call = message.kind === 'processor' ? 'registerProcessor' : 'registerOcrEnginePlugin';
    if (classes.length !== 1)
      throw new Error(
        classes.length === 0 ? `it registers nothing (${call} was never called)` : `it registers ${classes.length} classes, and a plugin registers exactly one`,
      );
    const init = {
      slug: message.slug,
      dataDir: message.dataDir,
      options: runOptions,
      log: (line: string) => tell({ type: 'log', line: String(line).slice(0, 2000) }),
      ...(message.tesseract ? { tesseract: askTesseract } : {}),
    };
    const instance = new classes[0](init);
    const expected = message.kind === 'processor' ? Processor : OcrEnginePlugin;
    if (!(instance instanceof expected)) throw new Error(`its registered class does not extend ${expected.name}`);
    plugin = instance;
    tell({ type: 'ready', descriptor: await describe(instance, message) });
  } catch (e) {
    tell({
      type: 'start-failed',
      message: e instanceof Error && !isSandboxRefusal(e) ? e.message : 'it failed while loading',
      detail: describeThrown(e, 'brief'),
      sandbox: isSandboxRefusal(e),
    });
  }
}

/**
 * One page buffer, kept while pages keep their size: reading into memory already touched costs a copy and no page
 * faults. The pixels a plugin gets are therefore its own only until it returns.
 */
let kept: Uint8Array | undefined;
function pageBuffer(length: number): Uint8Array {
  if (kept?.length !== length) kept = new Uint8Array(length);
  return kept;
}

/**
 * The page as it came, to send back only what the plugin changed: a copy in memory and a comparison cost less than
 * writing the whole page to the file and the host reading it back. A plugin that changes most of each page gets no
 * such copy after the first page that shows it (it would be work for nothing); it is tried again every 16 pages.
 */
let original: Uint8Array | undefined;
let wholePages = 0;
function snapshot(pixels: Uint8Array): Uint8Array | undefined {
  if (wholePages > 0 && wholePages++ % 16 !== 0) return undefined;
  if (original?.length !== pixels.length) original = new Uint8Array(pixels.length);
  original.set(pixels);
  return original;
}

async function page(request: PageRequest): Promise<void> {
  try {
    for (const key of Object.keys(runOptions)) delete runOptions[key];
    Object.assign(runOptions, request.options ?? {});
    const image: PageImage = {
      width: request.width,
      height: request.height,
      channels: 1,
      dpi: request.dpi,
      pixels: pageBuffer(request.width * request.height),
    };
    if (!readPageFile(join(exchangeDir, PAGE_IN), image.pixels)) throw new Error('the page file is shorter than its image');
    if (plugin instanceof Processor) {
      const facts: PageFacts = request.facts ?? { kind: 'gray', plugins: {} };
      const before = snapshot(image.pixels);
      const result = await plugin.process(image, facts);
      const out = result?.image;
      if (!out || !(out.pixels instanceof Uint8Array)) throw new Error('process() returned no image');
      const sameSize = Number(out.width) === request.width && Number(out.height) === request.height && out.pixels.length === before?.length;
      const changed = before && sameSize ? changedRanges(before, out.pixels) : undefined;
      if (before && sameSize) wholePages = changed ? 0 : 1;
      if (changed) writePageRanges(join(exchangeDir, PAGE_OUT), out.pixels, changed);
      else writePageFile(join(exchangeDir, PAGE_OUT), out.pixels);
      tell({
        type: 'processed',
        id: request.id,
        width: Number(out.width),
        height: Number(out.height),
        bytes: out.pixels.length,
        facts: { ...(result.facts ?? {}) },
        ...(changed ? { changed } : {}),
      });
    } else if (plugin instanceof OcrEnginePlugin) {
      const read = await plugin.recognize(image, request.languages ?? []);
      tell({ type: 'recognized', id: request.id, page: JSON.parse(JSON.stringify(read ?? null)) });
    }
  } catch (e) {
    // An allocation refused by the process's memory cap surfaces as a RangeError.
    const memory = e instanceof RangeError && /allocation failed|out of memory|Invalid typed array length|Array buffer/i.test(e.message);
    tell({ type: 'page-failed', id: request.id, detail: describeThrown(e, 'brief'), sandbox: isSandboxRefusal(e), memory });
  }
}

process.on('uncaughtException', (e) => tell({ type: 'start-failed', message: 'it failed', detail: describeThrown(e, 'brief'), sandbox: isSandboxRefusal(e) }));
process.on('unhandledRejection', (e) => tell({ type: 'start-failed', message: 'it failed', detail: describeThrown(e, 'brief'), sandbox: isSandboxRefusal(e) }));
process.on('message', (message: PageHostMessage) => {
  if (message.type === 'start' && !plugin && !exchangeDir) void start(message);
  else if (message.type === 'page') void page(message);
  else if (message.type === 'tesseract-reply') {
    const waiting = tesseractWaiting.get(message.id);
    tesseractWaiting.delete(message.id);
    if (message.ok) waiting?.resolve(String(message.tsv ?? ''));
    else waiting?.reject(new Error(String(message.error ?? 'tesseract failed')));
  }
});
