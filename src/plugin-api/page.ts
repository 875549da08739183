/**
 * The two page plugin kinds beside destinations: a {@link Processor} (a step of the pipeline over the page image) and
 * an {@link OcrEnginePlugin} (reads the text of a page). Both run in the same sandbox as destinations, but one
 * process serves every page of a run, so a page costs a message, not a process start.
 */
import type { Field, FieldValue } from './fields.js';

/**
 * One page image, as a processor or an OCR engine gets it: one channel of 8-bit grey (`0` black, `255` white; a
 * bitonal page holds only those two values), row after row, no padding.
 *
 * @since API 1 (page plugins)
 */
export interface PageImage {
  readonly width: number;
  readonly height: number;
  /** Always 1: grey or bitonal. */
  readonly channels: 1;
  /** `width * height` bytes. */
  readonly pixels: Uint8Array;
  /** The page's resolution, dots per inch. */
  readonly dpi: number;
}

/** A rectangle in page pixels. @since API 1 (page plugins) */
export interface PageBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** A value a processor records about a page: plain JSON. @since API 1 (page plugins) */
export type FactValue = string | number | boolean;

/**
 * What earlier steps recorded about the page, as a processor sees it. Absent members were not measured.
 *
 * @since API 1 (page plugins)
 */
export interface PageFacts {
  /** `gray` before the threshold, `bitonal` after it. */
  readonly kind: 'gray' | 'bitonal';
  /** The text's scale on this image: the lower-case letters' height and the distance between lines, in pixels. */
  readonly textScale?: { readonly xHeightPx: number; readonly linePitchPx: number };
  /** Where the printed matter is on this image (the text area found on the page). */
  readonly pageBox?: PageBox;
  /** What earlier processor plugins recorded, by their name. */
  readonly plugins: Readonly<Record<string, Readonly<Record<string, FactValue>>>>;
}

/**
 * What {@link Processor.process} returns: the new image (the same size as the one it got, unless the processor
 * declares `changesSize`) and the facts it records for later steps and for the page's "what was done" list.
 *
 * @since API 1 (page plugins)
 */
export interface ProcessResult {
  image: { width: number; height: number; pixels: Uint8Array };
  facts?: Record<string, FactValue>;
}

/** The built-in steps a processor may follow. @since API 1 (page plugins) */
export const PROCESSOR_PLACES = ['deskew', 'dewarp', 'resample', 'binarize', 'crop'] as const;

/** @since API 1 (page plugins) */
export type ProcessorPlace = (typeof PROCESSOR_PLACES)[number];

/**
 * What a page plugin instance knows of its surroundings. Built by the host in the sandbox.
 *
 * @since API 1 (page plugins)
 */
export interface PagePluginContext {
  readonly slug: string;
  /** `<APP_DATA>/plugins/data/<slug>/files/`: the only folder it may write, and where a user puts its data files. */
  readonly dataDir: string;
  /** One line to the host's log (`QUIRE_DEBUG`). */
  log(line: string): void;
}

/** What the host hands a page plugin's constructor; plugin code passes it on to `super(init)`. @since API 1 (page plugins) */
export interface PagePluginInit {
  readonly slug: string;
  readonly dataDir: string;
  /** Option values given for this run (`--steps +despeckle:max_speck=0.3`), already read as their field's kind. */
  readonly options: Readonly<Record<string, FieldValue>>;
  readonly log?: (line: string) => void;
  /** The host's tesseract, for OCR engines that declare `[capabilities] tesseract = true`. */
  readonly tesseract?: (request: TesseractRequest) => Promise<string>;
}

/**
 * A pipeline step from a plugin. Called in the sandboxed plugin process, once per page, with the page as the
 * built-in steps up to {@link after} left it; the host gives every call {@link timeoutMs} and stops the process
 * (failing that page, keeping it as it was) when it takes longer.
 *
 * @since API 1 (page plugins)
 */
export abstract class Processor {
  /** Its step name, equal to the plugin's slug (`despeckle`): what `--steps +despeckle` names. */
  abstract readonly name: string;
  abstract readonly display: string;
  /** One line for `quire list pipelines`. */
  abstract readonly summary: string;
  /** The built-in step it follows; default `binarize` (it gets the bitonal page). */
  readonly after: ProcessorPlace = 'binarize';
  /** Its options, with kinds, defaults and bounds (`int` with `min`/`max`, `choice`, …). */
  readonly OPTIONS: readonly Field[] = [];
  /** The longest one page may take, milliseconds (the host caps it at 60 s). */
  readonly timeoutMs: number = 10_000;
  /** True when it may return an image of another size (a crop); else another size fails the page. */
  readonly changesSize: boolean = false;
  readonly ctx: PagePluginContext;
  readonly #options: Readonly<Record<string, FieldValue>>;

  constructor(init: PagePluginInit) {
    this.ctx = { slug: init.slug, dataDir: init.dataDir, log: init.log ?? (() => {}) };
    this.#options = init.options;
  }

  /** An option's value for this run, else its field's default. */
  option(key: string): FieldValue | undefined {
    return this.#options[key] ?? this.OPTIONS.find((f) => f.id === key)?.default;
  }

  /** Make the new page image from `page`; may change `page.pixels` in place and return them. */
  abstract process(page: PageImage, facts: PageFacts): ProcessResult | Promise<ProcessResult>;
}

/** A box an engine reports: left, top, right, bottom in page pixels. @since API 1 (page plugins) */
export interface OcrBoxLike {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** One word an engine read. `choices[i]` are the alternatives for the i-th character, best first (optional). @since API 1 (page plugins) */
export interface RecognizedWord {
  text: string;
  box: OcrBoxLike;
  /** 0–100. */
  confidence: number;
  choices?: string[][];
}

/** One line: its box, its words in reading order. @since API 1 (page plugins) */
export interface RecognizedLine {
  box: OcrBoxLike;
  words: RecognizedWord[];
}

/** What {@link OcrEnginePlugin.recognize} returns: the page's lines in reading order. @since API 1 (page plugins) */
export interface RecognizedPage {
  lines: RecognizedLine[];
}

/**
 * A run of the host's `tesseract` program for an OCR engine plugin (which may not start programs itself): the page
 * as PNG, read with a `.traineddata` file from the plugin's own folder or its `files/`. Answers tesseract's TSV.
 *
 * @since API 1 (page plugins)
 */
export interface TesseractRequest {
  page: PageImage;
  /** The model's file name (`frk_old.traineddata`), in the plugin's folder or its `files/`. */
  model: string;
  /** Page segmentation mode (tesseract `--psm`), default 3. */
  psm?: number;
}

/**
 * An OCR engine from a plugin. Called in the sandboxed plugin process, once per page; the host checks every box
 * it returns (inside the page, in order) and fails the page, not the run, when one is not.
 *
 * @since API 1 (page plugins)
 */
export abstract class OcrEnginePlugin {
  /** Its name, equal to the plugin's slug: what `--ocr <name>` picks. */
  abstract readonly name: string;
  abstract readonly display: string;
  abstract readonly description: string;
  /** The longest one page may take, milliseconds (the host caps it at 10 min). */
  readonly timeoutMs: number = 120_000;
  readonly ctx: PagePluginContext;
  readonly #tesseract?: (request: TesseractRequest) => Promise<string>;

  constructor(init: PagePluginInit) {
    this.ctx = { slug: init.slug, dataDir: init.dataDir, log: init.log ?? (() => {}) };
    this.#tesseract = init.tesseract;
  }

  /** The language (or model) names it reads; asked when it is listed and before a run. */
  abstract languages(): string[] | Promise<string[]>;

  /** Read one page in these languages (some of {@link languages}). */
  abstract recognize(page: PageImage, languages: string[]): RecognizedPage | Promise<RecognizedPage>;

  /** Run the host's tesseract (manifest `[capabilities] tesseract = true`); throws when not declared. */
  tesseract(request: TesseractRequest): Promise<string> {
    if (!this.#tesseract) return Promise.reject(new Error('this plugin does not declare [capabilities] tesseract = true'));
    return this.#tesseract(request);
  }
}

/** A concrete subclass the host can construct. @since API 1 (page plugins) */
export type ProcessorClass = new (init: PagePluginInit) => Processor;
/** @since API 1 (page plugins) */
export type OcrEnginePluginClass = new (init: PagePluginInit) => OcrEnginePlugin;

const processors: ProcessorClass[] = [];
const engines: OcrEnginePluginClass[] = [];

/** Register the plugin's processor class (a call, or a class decorator). A plugin registers exactly one. @since API 1 (page plugins) */
export function registerProcessor<T extends ProcessorClass>(cls: T, _context?: unknown): T {
  processors.push(cls);
  return cls;
}

/** Register the plugin's OCR engine class (a call, or a class decorator). @since API 1 (page plugins) */
export function registerOcrEnginePlugin<T extends OcrEnginePluginClass>(cls: T, _context?: unknown): T {
  engines.push(cls);
  return cls;
}

/** The host's: what was registered in this process. */
export function registeredPagePlugins(): { processors: readonly ProcessorClass[]; engines: readonly OcrEnginePluginClass[] } {
  return { processors: [...processors], engines: [...engines] };
}
