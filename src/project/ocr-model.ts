/**
 * The OCR result model: one `OcrPage` per page, blocks → paragraphs → lines → words.
 * Coordinates are pixels of the page image the result belongs to (the project's final page image,
 * `width`×`height` at `dpi`), origin top-left, y down. `x1`/`y1` are exclusive.
 */
export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrWord {
  /** The word as exports write it: the engine's reading, corrected (by the correction step, then by a person) when it was. */
  text: string;
  box: OcrBox;
  /** 0–100. */
  confidence: number;
  /** The OCR correction step changed this word: what the engine read, and why it was changed. */
  correction?: { from: string; reason: string };
  /** A person checked this word while proofreading: `from` is the text before their edit (the same as `text` when they confirmed it). */
  edit?: { from: string };
}

export interface OcrLine {
  box: OcrBox;
  /** The baseline as a straight line across the line box, in page pixels; absent when the engine does not say. */
  baseline?: { x0: number; y0: number; x1: number; y1: number };
  words: OcrWord[];
}

export interface OcrParagraph {
  box: OcrBox;
  lines: OcrLine[];
}

export interface OcrBlock {
  box: OcrBox;
  paragraphs: OcrParagraph[];
}

export interface OcrPage {
  width: number;
  height: number;
  dpi: number;
  /** Engine name (`tesseract`, `remoteocr`, `none`). */
  engine: string;
  /** Tesseract language codes used (`fra`, `lat`). */
  languages: string[];
  blocks: OcrBlock[];
}

/**
 * What a batch engine hands back on submission and is given again to poll or cancel: plain JSON, kept in the
 * project (`project.json` → `ocrBatch.ticket`) so a later process — `quire run <project> --check-ocr`, the job
 * server after a restart — can pick the batch up.
 */
export interface OcrBatchTicket {
  /** The service's ids of the batch jobs (what the job server records and cancels). */
  batchIds: string[];
  /** When the batch was submitted, ISO 8601. */
  submittedAt: string;
  /** Anything else the engine needs to poll (uploaded file ids, the request of each page). */
  data?: Record<string, string | number | boolean | null | string[] | number[]>;
}
