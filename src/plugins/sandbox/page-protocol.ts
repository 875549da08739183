/**
 * The messages between the host and a sandboxed page plugin process (a processor or an OCR engine): Node IPC, JSON.
 * One process serves a whole run: one `start`, then any number of `page` requests, each answered once. Pixels do not
 * go through IPC: they are raw files in the run's exchange folder (on a memory file system where there is one), one
 * write and one read each way. Everything the child sends is checked by the host: it may come from the plugin.
 */
import type { FactValue, Field, FieldValue, PageFacts, RecognizedPage } from '../../plugin-api/index.js';

export type PagePluginKindName = 'processor' | 'ocr';

/** Host → child: the first message. */
export interface StartMessage {
  type: 'start';
  kind: PagePluginKindName;
  slug: string;
  source: string;
  dataDir: string;
  /** Where page files are exchanged (readable and writable by the child). */
  exchangeDir: string;
  /** The plugin declared `[capabilities] tesseract`. */
  tesseract: boolean;
}

/** Host → child: one page. Its pixels are in `exchangeDir/<file>`. */
export interface PageRequest {
  type: 'page';
  id: number;
  file: string;
  width: number;
  height: number;
  dpi: number;
  facts?: PageFacts;
  languages?: string[];
  /** The run's option values (a processor's), sent with each page so that one process serves describing and running. */
  options?: Record<string, FieldValue>;
}

/** Host → child: the answer to a `tesseract` request. */
export interface TesseractReply {
  type: 'tesseract-reply';
  id: number;
  ok: boolean;
  tsv?: string;
  error?: string;
}

export type PageHostMessage = StartMessage | PageRequest | TesseractReply;

/** What a page plugin says about itself; checked again by the host. */
export interface PagePluginDescriptor {
  kind: PagePluginKindName;
  name: string;
  display: string;
  /** A processor's summary, an engine's description. */
  summary: string;
  /** Processor: the built-in step it follows. */
  after?: string;
  options: Field[];
  timeoutMs: number;
  changesSize?: boolean;
  /** OCR engine: the languages (or models) it reads. */
  languages?: string[];
}

export type PageChildMessage =
  | { type: 'log'; line: string }
  | { type: 'refused'; what: string }
  | { type: 'ready'; descriptor: PagePluginDescriptor }
  | { type: 'start-failed'; message: string; detail: string; sandbox: boolean }
  | {
      type: 'processed';
      id: number;
      width: number;
      height: number;
      bytes: number;
      facts: Record<string, FactValue>;
      /**
       * Same size only: the byte ranges `[start, end)` the plugin changed, written at those offsets of the out file;
       * the rest of the page is as the host sent it (none: it changed nothing). Absent: the whole image is in the file.
       */
      changed?: Array<[number, number]>;
    }
  | { type: 'recognized'; id: number; page: RecognizedPage }
  | { type: 'page-failed'; id: number; detail: string; sandbox: boolean; memory?: boolean }
  | { type: 'tesseract'; id: number; file: string; width: number; height: number; dpi: number; model: string; psm: number };
