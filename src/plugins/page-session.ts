/**
 * One sandboxed process serving a page plugin for a whole run. Isolated as a destination's process is (bubblewrap
 * where it works, Node's permission model, the lockdown; no network at all), and bounded besides: its data
 * segment is capped (`prlimit --data`, 1 GiB) and its JS heap at 512 MiB, and every page has its own timeout. A page
 * the plugin fails — a throw, a wrong-sized image, malformed boxes, a timeout, a crash, an allocation past the cap,
 * a reach outside the sandbox — fails alone with one sentence; the process is started afresh for the next page.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FactValue, FieldValue, PageFacts, RecognizedPage } from '../plugin-api/index.js';
import { rewriteApiImports } from './imports.js';
import { bwrapArguments, type Isolation } from './isolation.js';
import type { LoadablePlugin } from './sandbox.js';
import { permissionFlags } from './sandbox.js';
import { sandboxRuntime } from './runtime.js';
import type { PageChildMessage, PagePluginDescriptor, PagePluginKindName, StartMessage } from './sandbox/page-protocol.js';
import { MAX_RANGES, PAGE_IN, PAGE_OUT, readPageFile, readPageRanges, writePageFile } from './sandbox/page-files.js';
import { runTesseractForPlugin } from './tesseract-broker.js';

/** A page as the host hands it over: one grey channel. */
export interface PagePixels {
  width: number;
  height: number;
  dpi: number;
  pixels: Uint8Array;
}

/** A page the plugin failed: `message` completes "<plugin> failed on this page: …". */
export interface PageFailure {
  ok: false;
  message: string;
  detail: string;
}

export type ProcessOutcome = { ok: true; image: PagePixels; facts: Record<string, FactValue> } | PageFailure;
export type RecognizeOutcome = { ok: true; page: RecognizedPage } | PageFailure;

/** What a session needs to start the plugin's process. */
export interface PageSessionRequest {
  kind: PagePluginKindName;
  plugin: LoadablePlugin;
  filesDir: string;
  isolation: Isolation;
  /** The plugin may ask the host to run tesseract. */
  tesseract?: boolean;
  /** How long loading may take. */
  loadTimeoutMs: number;
  onLog?: (line: string) => void;
}

/** The cap on a plugin process's data segment (`prlimit --data`): allocation past it fails that page. */
export const PAGE_PLUGIN_MEMORY_BYTES = 1024 * 1024 * 1024;
/** The longest page timeouts the host grants, whatever the plugin declares. */
const MAX_PROCESSOR_TIMEOUT_MS = 60_000;
const MAX_ENGINE_TIMEOUT_MS = 10 * 60_000;
const MAX_FACTS = 32;
/** The largest image a processor may return: 30000 × 30000 pixels, the pixel limit of the rest of Quire. */
const MAX_PIXELS = 30_000 * 30_000;

let prlimitPath: string | null | undefined;
function prlimit(): string | null {
  if (prlimitPath === undefined) prlimitPath = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? null;
  return prlimitPath;
}

/** Exchange folders not yet removed: a process that exits without closing its sessions (a job's) removes them. */
const openFolders = new Set<string>();
let exitHook = false;

/** A folder for page files: on the memory file system where there is one, so a page never touches a disk. */
function exchangeFolder(): string {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = realpathSync(mkdtempSync(join(base, 'quire-pages-')));
  openFolders.add(dir);
  if (!exitHook) {
    exitHook = true;
    // Memory, not disk: a folder left behind would hold a page's worth of RAM until the next reboot.
    process.once('exit', () => {
      for (const folder of openFolders) rmSync(folder, { recursive: true, force: true });
    });
  }
  return dir;
}

function removeFolder(dir: string): void {
  openFolders.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

interface Waiting {
  id: number;
  resolve: (m: PageChildMessage | { type: 'lost'; message: string; detail: string }) => void;
}

/** A running page plugin process. */
class PageProcess {
  readonly child: ChildProcess;
  readonly refused: string[] = [];
  private waiting: Waiting | undefined;
  private stderr = '';
  private readyWaiter: ((m: PageChildMessage | { type: 'lost'; message: string; detail: string }) => void) | undefined;
  private exited = false;

  constructor(
    child: ChildProcess,
    private readonly request: PageSessionRequest,
    private readonly exchangeDir: string,
    private readonly stderrPath: string,
  ) {
    this.child = child;
    child.on('message', (m: PageChildMessage) => this.onMessage(m));
    const lost = (detail: string): void => {
      this.exited = true;
      this.stderr = tailOf(this.stderrPath);
      rmSync(join(this.stderrPath, '..'), { recursive: true, force: true });
      const why = /heap out of memory|Array buffer allocation failed|Cannot allocate memory|std::bad_alloc/i.test(this.stderr)
        ? { type: 'lost' as const, message: 'it used more memory than a plugin may', detail: `${detail}; ${this.stderr.slice(-1000)}` }
        : { type: 'lost' as const, message: 'its process ended without an answer', detail: `${detail}; ${this.stderr.slice(-1000)}` };
      this.readyWaiter?.(why);
      this.waiting?.resolve(why);
    };
    child.on('error', (e) => lost(`${e.name}: ${e.message}`));
    child.on('close', (code, signal) => lost(`exit ${code ?? signal}`));
  }

  get alive(): boolean {
    return !this.exited;
  }

  private onMessage(m: PageChildMessage): void {
    if (typeof m !== 'object' || m === null) return;
    switch (m.type) {
      case 'log':
        this.request.onLog?.(String(m.line).slice(0, 2000));
        return;
      case 'refused':
        if (this.refused.length < 100) this.refused.push(String(m.what).slice(0, 200));
        return;
      case 'tesseract':
        void this.serveTesseract(m);
        return;
      case 'ready':
      case 'start-failed':
        if (this.readyWaiter) {
          this.readyWaiter(m);
          this.readyWaiter = undefined;
        } else if (m.type === 'start-failed') this.waiting?.resolve({ type: 'page-failed', id: this.waiting.id, detail: m.detail, sandbox: m.sandbox });
        return;
      default:
        if ('id' in m && this.waiting && m.id === this.waiting.id) this.waiting.resolve(m);
    }
  }

  private async serveTesseract(m: Extract<PageChildMessage, { type: 'tesseract' }>): Promise<void> {
    const reply = await runTesseractForPlugin(m, {
      exchangeDir: this.exchangeDir,
      allowed: this.request.tesseract === true,
      modelDirs: [this.request.plugin.codeDir, this.request.filesDir],
    });
    if (this.child.connected) this.child.send({ type: 'tesseract-reply', id: m.id, ...reply }, (e) => e && undefined);
  }

  ready(timeoutMs: number): Promise<PageChildMessage | { type: 'lost'; message: string; detail: string }> {
    return this.answer((resolve) => (this.readyWaiter = resolve), timeoutMs);
  }

  ask(id: number, message: object, timeoutMs: number): Promise<PageChildMessage | { type: 'lost'; message: string; detail: string }> {
    return this.answer((resolve) => {
      this.waiting = { id, resolve };
      this.child.send(message, (e) => e && resolve({ type: 'lost', message: 'its process ended without an answer', detail: e.message }));
    }, timeoutMs);
  }

  private answer(
    register: (resolve: (m: PageChildMessage | { type: 'lost'; message: string; detail: string }) => void) => void,
    timeoutMs: number,
  ): Promise<PageChildMessage | { type: 'lost'; message: string; detail: string }> {
    if (this.exited) return Promise.resolve({ type: 'lost', message: 'its process ended without an answer', detail: this.stderr.slice(-1000) });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        done({ type: 'lost', message: `it did not finish within ${formatSeconds(timeoutMs)} and was stopped`, detail: `timeout ${timeoutMs} ms` });
        this.kill();
      }, timeoutMs);
      const done = (m: PageChildMessage | { type: 'lost'; message: string; detail: string }): void => {
        clearTimeout(timer);
        this.waiting = undefined;
        resolve(m);
      };
      register(done);
    });
  }

  kill(): void {
    this.exited = true;
    this.child.kill('SIGKILL');
  }
}

/** The end of what the child wrote to stderr. */
function tailOf(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-4000).trim();
  } catch {
    return '';
  }
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** A page plugin running for one run: pages one at a time, in its own process. */
export class PagePluginSession {
  private current: PageProcess | undefined;
  private starting: Promise<PageProcess | PageFailure> | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private options: Record<string, FieldValue> = {};

  private constructor(
    private readonly request: PageSessionRequest,
    private readonly exchangeDir: string,
    readonly descriptor: PagePluginDescriptor,
  ) {}

  /** Start the plugin's process and read what it says about itself; a plugin that fails to load is a {@link PageFailure}. */
  static async open(request: PageSessionRequest): Promise<PagePluginSession | PageFailure> {
    const exchangeDir = exchangeFolder();
    const first = await startProcess(request, exchangeDir);
    if ('ok' in first) {
      removeFolder(exchangeDir);
      return first;
    }
    const session = new PagePluginSession(request, exchangeDir, first.descriptor);
    session.current = first.process;
    return session;
  }

  /** The option values every page of the run is processed with (already checked against the plugin's fields). */
  setOptions(values: Record<string, FieldValue>): void {
    this.options = { ...values };
  }

  private get pageTimeout(): number {
    const cap = this.request.kind === 'processor' ? MAX_PROCESSOR_TIMEOUT_MS : MAX_ENGINE_TIMEOUT_MS;
    const declared = this.descriptor.timeoutMs;
    return Number.isFinite(declared) && declared > 0 ? Math.min(declared, cap) : cap;
  }

  /** The running process, started afresh after one was stopped. */
  private async running(): Promise<PageProcess | PageFailure> {
    if (this.current?.alive) return this.current;
    this.starting ??= startProcess(this.request, this.exchangeDir).then((r) => ('ok' in r ? r : (this.current = r.process)));
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  /** One page at a time: the plugin's process is single-threaded anyway, and pages stay in order per process. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async ask(
    page: PagePixels,
    extra: object,
  ): Promise<{ reply: PageChildMessage | { type: 'lost'; message: string; detail: string }; proc: PageProcess } | PageFailure> {
    if (this.closed) return { ok: false, message: 'the run was stopped', detail: '' };
    const proc = await this.running();
    if ('ok' in proc) return proc;
    const id = this.nextId++;
    writePageFile(join(this.exchangeDir, PAGE_IN), page.pixels);
    const before = proc.refused.length;
    const reply = await proc.ask(
      id,
      { type: 'page', id, file: PAGE_IN, width: page.width, height: page.height, dpi: page.dpi, options: this.options, ...extra },
      this.pageTimeout,
    );
    if (proc.refused.length > before)
      return { ok: false, message: `it tried to use ${proc.refused[before]}, which a plugin may not`, detail: proc.refused.slice(before).join('; ') };
    if (reply.type === 'lost') return { ok: false, message: reply.message, detail: reply.detail };
    if (reply.type === 'page-failed') {
      if (reply.memory) proc.kill(); // what it holds is of no use to the next page
      const message = reply.memory
        ? 'it used more memory than a plugin may'
        : reply.sandbox
          ? 'it tried to reach something outside its sandbox'
          : 'it threw an error';
      return { ok: false, message, detail: reply.detail };
    }
    return { reply, proc };
  }

  /** Run the processor on one page. */
  process(page: PagePixels, facts: PageFacts): Promise<ProcessOutcome> {
    return this.serial(async () => {
      const asked = await this.ask(page, { facts });
      if ('ok' in asked) return asked;
      const { reply } = asked;
      if (reply.type !== 'processed')
        return { ok: false, message: 'it answered something Quire does not understand', detail: JSON.stringify(reply).slice(0, 300) };
      const width = reply.width;
      const height = reply.height;
      const sameSize = width === page.width && height === page.height;
      if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width * height > MAX_PIXELS || reply.bytes !== width * height) {
        return {
          ok: false,
          message: `it returned an image whose size does not match its pixels (${String(width)}×${String(height)}, ${String(reply.bytes)} bytes)`,
          detail: '',
        };
      }
      if (!sameSize && !this.descriptor.changesSize) {
        return {
          ok: false,
          message: `it returned a ${width}×${height} image for a ${page.width}×${page.height} page`,
          detail: 'the processor does not declare changesSize',
        };
      }
      const recorded = checkFacts(reply.facts);
      if (typeof recorded === 'string') return { ok: false, message: recorded, detail: '' };
      const out = join(this.exchangeDir, PAGE_OUT);
      const changed = reply.changed;
      if (changed !== undefined) {
        // Only what the plugin changed comes back, into the page's own buffer, which still holds the rest.
        if (!sameSize || !validRanges(changed, width * height))
          return { ok: false, message: 'it returned an image whose changed parts do not fit it', detail: JSON.stringify(changed).slice(0, 300) };
        if (changed.length > 0 && !readPageRanges(out, page.pixels, changed))
          return { ok: false, message: 'it returned fewer pixels than its image has', detail: '' };
        return { ok: true, image: { width, height, dpi: page.dpi, pixels: page.pixels }, facts: recorded };
      }
      try {
        if (statSync(out).size < width * height) return { ok: false, message: 'it returned fewer pixels than its image has', detail: '' };
      } catch (e) {
        return { ok: false, message: 'it returned no image', detail: e instanceof Error ? e.message : String(e) };
      }
      // The page's own buffer takes the new pixels when the size is the same: no allocation, no page faults.
      const pixels = sameSize ? page.pixels : new Uint8Array(width * height);
      readPageFile(out, pixels);
      return { ok: true, image: { width, height, dpi: page.dpi, pixels }, facts: recorded };
    });
  }

  /** Read one page with the OCR engine. */
  recognize(page: PagePixels, languages: string[]): Promise<RecognizeOutcome> {
    return this.serial(async () => {
      const asked = await this.ask(page, { languages });
      if ('ok' in asked) return asked;
      const { reply } = asked;
      if (reply.type !== 'recognized')
        return { ok: false, message: 'it answered something Quire does not understand', detail: JSON.stringify(reply).slice(0, 300) };
      const problem = checkRecognized(reply.page, page);
      if (problem) return { ok: false, message: problem, detail: JSON.stringify(reply.page).slice(0, 300) };
      return { ok: true, page: reply.page };
    });
  }

  /** Stop the process and remove the exchange folder. */
  async close(): Promise<void> {
    this.closed = true;
    this.current?.kill();
    removeFolder(this.exchangeDir);
  }
}

async function startProcess(
  request: PageSessionRequest,
  exchangeDir: string,
): Promise<{ process: PageProcess; descriptor: PagePluginDescriptor } | PageFailure> {
  const runtime = await sandboxRuntime();
  mkdirSync(request.filesDir, { recursive: true, mode: 0o700 });
  const filesDir = realpathSync(request.filesDir);
  const codeDir = realpathSync(request.plugin.codeDir);
  const childScript = join(runtime.childScript, '..', 'page-child.js');
  const reads = [...runtime.readPaths, codeDir, filesDir, exchangeDir];
  const node = [...permissionFlags(reads, filesDir), `--allow-fs-write=${exchangeDir}`, childScript];
  const bwrap = request.isolation.level === 'full' ? request.isolation.bwrap : undefined;
  const command = bwrap
    ? [
        bwrap,
        ...bwrapArguments({ readOnly: [...runtime.readPaths, codeDir], writable: filesDir }),
        '--bind',
        exchangeDir,
        exchangeDir,
        '--',
        realpathSync(process.execPath),
        ...node,
      ]
    : [process.execPath, ...node];
  const limit = prlimit();
  const [program, ...args] = limit ? [limit, `--data=${PAGE_PLUGIN_MEMORY_BYTES}`, '--', ...command] : command;
  // stderr goes to a private file, not a pipe (as for destinations: a pipe is a handle the plugin could reopen).
  const logDir = mkdtempSync(join(tmpdir(), 'quire-plugin-log-'));
  const stderrPath = join(logDir, 'stderr');
  const stderrFd = openSync(stderrPath, 'w', 0o600);
  const child = spawn(program, args, { cwd: filesDir, env: {}, stdio: ['ignore', stderrFd, stderrFd, 'ipc'], serialization: 'json' });
  closeSync(stderrFd);
  const proc = new PageProcess(child, request, exchangeDir, stderrPath);
  const start: StartMessage = {
    type: 'start',
    kind: request.kind,
    slug: request.plugin.slug,
    source: rewriteApiImports(request.plugin.source, request.plugin.imports, runtime.apiUrl),
    dataDir: filesDir,
    exchangeDir,
    tesseract: request.tesseract === true,
  };
  const waiting = proc.ready(request.loadTimeoutMs);
  child.send(start, (e) => e && undefined);
  const reply = await waiting;
  if (proc.refused.length > 0) {
    proc.kill();
    return { ok: false, message: 'it tried to reach something outside its sandbox while loading', detail: proc.refused.join('; ') };
  }
  if (reply.type === 'ready') {
    const problem = checkDescriptor(reply.descriptor, request.kind);
    if (problem) {
      proc.kill();
      return { ok: false, message: problem, detail: '' };
    }
    return { process: proc, descriptor: reply.descriptor };
  }
  proc.kill();
  if (reply.type === 'start-failed')
    return { ok: false, message: reply.sandbox ? 'it tried to reach something outside its sandbox while loading' : reply.message, detail: reply.detail };
  if (reply.type === 'lost') return { ok: false, message: reply.message, detail: reply.detail };
  return { ok: false, message: 'it answered something Quire does not understand', detail: JSON.stringify(reply).slice(0, 300) };
}

const PLACES = new Set(['deskew', 'dewarp', 'resample', 'binarize', 'crop']);

function checkDescriptor(d: PagePluginDescriptor, kind: PagePluginKindName): string | undefined {
  if (typeof d !== 'object' || d === null || d.kind !== kind) return `it is not a${kind === 'ocr' ? 'n OCR engine' : ' processor'} plugin`;
  if (kind === 'processor' && !PLACES.has(String(d.after))) return `its after must name a built-in step (${[...PLACES].join(', ')})`;
  if (kind === 'ocr' && (!Array.isArray(d.languages) || !d.languages.every((l) => typeof l === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(l)))) {
    return 'its languages must be a list of names of letters, digits, "_" and "-"';
  }
  return undefined;
}

/** Byte ranges `[start, end)` in order, not overlapping, inside an image of `bytes`, at most `MAX_RANGES` of them. */
function validRanges(ranges: unknown, bytes: number): ranges is Array<[number, number]> {
  if (!Array.isArray(ranges) || ranges.length > MAX_RANGES) return false;
  let at = 0;
  for (const r of ranges as unknown[]) {
    if (!Array.isArray(r) || r.length !== 2 || !Number.isInteger(r[0]) || !Number.isInteger(r[1])) return false;
    const [start, end] = r as [number, number];
    if (start < at || end <= start || end > bytes) return false;
    at = end;
  }
  return true;
}

function checkFacts(facts: unknown): Record<string, FactValue> | string {
  if (facts === undefined || facts === null) return {};
  if (typeof facts !== 'object' || Array.isArray(facts)) return 'the facts it returned are not a list of names and values';
  const entries = Object.entries(facts as Record<string, unknown>);
  if (entries.length > MAX_FACTS) return `it returned more than ${MAX_FACTS} facts`;
  for (const [key, value] of entries) {
    if (!/^[a-z][a-zA-Z0-9_]{0,39}$/.test(key)) return `it returned a fact named "${key.slice(0, 40)}", which is not a plain name`;
    if (!(typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= 200)))
      return `its fact "${key}" is not a number, a short text or true/false`;
  }
  return Object.fromEntries(entries) as Record<string, FactValue>;
}

function checkBox(box: unknown, page: PagePixels): boolean {
  const b = box as { x0?: unknown; y0?: unknown; x1?: unknown; y1?: unknown } | null;
  if (!b || typeof b !== 'object') return false;
  const [x0, y0, x1, y1] = [b.x0, b.y0, b.x1, b.y1];
  if (![x0, y0, x1, y1].every((v) => typeof v === 'number' && Number.isFinite(v))) return false;
  const n = [x0, y0, x1, y1] as number[];
  return n[0] >= 0 && n[1] >= 0 && n[0] <= n[2] && n[1] <= n[3] && n[2] <= page.width && n[3] <= page.height;
}

/** Every line and word has a box inside the page (left ≤ right, top ≤ bottom), text, and a confidence 0–100. */
function checkRecognized(read: unknown, page: PagePixels): string | undefined {
  const lines = (read as { lines?: unknown } | null)?.lines;
  if (!Array.isArray(lines)) return 'it returned no list of lines';
  for (const [i, line] of lines.entries()) {
    if (!checkBox((line as { box?: unknown })?.box, page)) return `it returned line ${i + 1} with a box that is not inside the page`;
    const words = (line as { words?: unknown }).words;
    if (!Array.isArray(words)) return `it returned line ${i + 1} without a list of words`;
    for (const [j, word] of words.entries()) {
      const w = word as { text?: unknown; box?: unknown; confidence?: unknown; choices?: unknown };
      if (typeof w?.text !== 'string' || w.text.length > 500) return `it returned word ${j + 1} of line ${i + 1} without its text`;
      if (!checkBox(w.box, page)) return `it returned word ${j + 1} of line ${i + 1} with a box that is not inside the page`;
      if (typeof w.confidence !== 'number' || !(w.confidence >= 0 && w.confidence <= 100))
        return `it returned word ${j + 1} of line ${i + 1} with a confidence outside 0–100`;
      if (w.choices !== undefined && !(Array.isArray(w.choices) && w.choices.every((c) => Array.isArray(c) && c.every((s) => typeof s === 'string')))) {
        return `it returned word ${j + 1} of line ${i + 1} with choices that are not lists of characters`;
      }
    }
  }
  return undefined;
}
