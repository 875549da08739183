import type { OcrBatchTicket, OcrPage } from '../project/index.js';
import type { PageOrientation } from './orientation.js';

/** A page handed to an engine: the image file plus what the engine must know about it. */
export interface OcrInput {
  /** Absolute path of the page image (G4 TIFF, JPEG, PNG). */
  file: string;
  width: number;
  height: number;
  dpi: number;
  /**
   * Read a grey image at this fraction of its resolution (below 1), as the pipeline decided for a blurred camera page
   * (`decisions.ocrScale`); absent: at the resolution the engine reads best.
   */
  readScale?: number;
}

/**
 * A run of pages handed to an engine that reads whole documents (a remote service taking PDFs), with a way to make
 * a PDF of any part of it. Made by the caller (`recognizeProject`), which owns the page images; the engine decides
 * how to cut it into requests.
 */
export interface OcrDocument {
  pages: OcrInput[];
  /** Bytes each page adds to a PDF of it (its image file's size), to size chunks before making them. */
  pageBytes: number[];
  /** A PDF of `pages[from]` up to (not including) `pages[to]`: one page per image, each exactly its size at its dpi. */
  pdf(from: number, to: number): Promise<Uint8Array>;
}

/** Where a batch stands. */
export type OcrBatchPoll =
  /** Still queued or running: `status` is the service's word for it. */
  | { state: 'pending'; status: string }
  /** Finished: one page per submitted page, in the order submitted. */
  | { state: 'done'; pages: OcrPage[] }
  /** Failed, timed out or cancelled on the service's side: one sentence, and the batch's errors for the log. */
  | { state: 'failed'; message: string; detail?: string };

/** Options of the document and batch calls. */
export interface OcrDocumentOptions {
  signal?: AbortSignal;
  /** Called as pages come back (streaming), with the number done so far. */
  onPage?: (pagesDone: number, pagesTotal: number) => void;
  /** Names the work on the service's side (batch metadata): the project's name. */
  label?: string;
}

/** An OCR engine; built-ins register through the same call a plugin would. */
export interface OcrEngine {
  readonly name: string;
  readonly display: string;
  readonly description: string;
  /**
   * Options a spec may set (`name:key=value`) besides `lang`, which every engine takes. When
   * present, the spec parser refuses any other key (a typo fails loudly); when absent, every
   * option is passed through to the engine.
   */
  readonly options?: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** Whether the engine can run here, and if not, why (one sentence). */
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /**
   * Ways the engine can run, named after the engine in a spec (`remoteocr:batch`); the first is the default. Absent
   * for engines with one way.
   */
  readonly modes?: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** Tesseract codes of the languages this engine has installed. */
  languages(): string[];
  /**
   * Which recognition model reads which of those languages (`4.0.0_best_int (npm @tesseract.js-data)`), for
   * `quire list ocr`; absent for engines whose model is not ours to say (a remote service).
   */
  models?(): Array<{ languages: string[]; model: string }>;
  /**
   * Read one page. `started`, when the engine can tell, is called once its reading of the page has begun (the
   * tesseract program runs): work the caller held back so as not to delay that start (loading dictionaries on this
   * thread) can go then.
   */
  recognize(page: OcrInput, languages: string[], options?: { signal?: AbortSignal; started?: () => void }): Promise<OcrPage>;
  /**
   * Read small images, each a word cut out of its page onto white paper, each on its own with no page layout to find
   * (tesseract's single-block mode): one page per image, in order. The correction step reads the words no dictionary
   * knows again this way. Engines without it leave those words as they are. `forLanguage`: the text only tells which
   * languages the images are in (the language sample), so the engine may read it with quicker models and without
   * per-character choices.
   */
  readWords?(images: OcrInput[], languages: string[], options?: { signal?: AbortSignal; forLanguage?: boolean }): Promise<OcrPage[]>;
  /**
   * How far the page must turn, clockwise, to be upright (tesseract's orientation detection), or null when the
   * engine cannot tell (too little text). Asked only about pages that read as nonsense; engines without it leave
   * every page as it is.
   */
  detectOrientation?(page: OcrInput, options?: { signal?: AbortSignal }): Promise<PageOrientation | null>;
  /**
   * Recognise a whole document at once (a remote service reading PDFs). When present, `recognizeProject` calls it
   * instead of `recognize` page by page, and reads the languages off the text afterwards rather than sampling pages
   * first. `options` may carry the spec's options. Called in the converting process; may use the network.
   */
  recognizeDocument?(document: OcrDocument, languages: string[], options?: OcrDocumentOptions & { engineOptions?: Record<string, string> }): Promise<OcrPage[]>;
  /**
   * Submit a document as a batch and return at once with a ticket to poll it by (spec mode `batch`). Called in the
   * converting process; the ticket is stored in the project.
   */
  submitBatch?(document: OcrDocument, languages: string[], options?: OcrDocumentOptions & { engineOptions?: Record<string, string> }): Promise<OcrBatchTicket>;
  /**
   * Ask where a submitted batch stands; on success, download and return its pages. `document` is the same pages as
   * submitted (a page the batch failed on may be read again synchronously). Safe to call any number of times, from
   * any process.
   */
  poll?(ticket: OcrBatchTicket, document: OcrDocument, options?: { signal?: AbortSignal }): Promise<OcrBatchPoll>;
  /** Cancel a submitted batch (a job deleted or cancelled, a batch given up on); a finished batch is left alone. */
  cancel?(ticket: OcrBatchTicket): Promise<void>;
  /** Release warm workers. */
  close?(): Promise<void>;
}
