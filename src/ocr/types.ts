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
  text: string;
  box: OcrBox;
  /** 0–100. */
  confidence: number;
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

/** A page handed to an engine: the image file plus what the engine must know about it. */
export interface OcrInput {
  /** Absolute path of the page image (G4 TIFF, JPEG, PNG). */
  file: string;
  width: number;
  height: number;
  dpi: number;
}

/** An OCR engine; built-ins register through the same call a plugin would. */
export interface OcrEngine {
  readonly name: string;
  readonly display: string;
  readonly description: string;
  /**
   * Options a spec may set (`name:key=value`) besides `lang`, which every engine takes. When
   * present, the spec parser refuses any other key (a typo fails loudly); when absent, every
   * option is passed through to the engine. Added with the spec parser (issue 3).
   */
  readonly options?: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** Whether the engine can run here, and if not, why (one sentence). */
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Tesseract codes of the languages this engine has installed. */
  languages(): string[];
  recognize(page: OcrInput, languages: string[], options?: { signal?: AbortSignal }): Promise<OcrPage>;
  /** Release warm workers. */
  close?(): Promise<void>;
}
