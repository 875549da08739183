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

/**
 * One recognised word, as the proofreading view reads it: the text as it stands (after correction), where it is,
 * how sure the engine was, and — when the correction step changed it — what the engine read and why it was changed.
 *
 * ```json
 * { "text": "avançais", "box": { "x0": 120, "y0": 300, "x1": 262, "y1": 331 }, "confidence": 71.5,
 *   "correction": { "from": "avangais", "reason": "engine-choice", "change": "g→ç", "language": "fra" } }
 * ```
 *
 * A word the language's dictionary does not know and that was left as read (no single candidate was in the
 * dictionary) carries `unknown: true` and, when the engine gave them, its `alternatives`: what the proofreader is
 * most likely to want to look at.
 */
export interface OcrWord {
  /** The word as exports write it: the engine's reading, corrected (by the correction step, then by a person) when it was. */
  text: string;
  box: OcrBox;
  /** 0–100, the engine's own confidence in the word as it read it (not changed by a correction). */
  confidence: number;
  /** Set when the OCR correction step replaced the engine's reading. Undo it by putting `from` back. */
  correction?: OcrCorrection;
  /** A person checked this word while proofreading: `from` is the text before their edit (the same as `text` when they confirmed it). */
  edit?: { from: string };
  /** True when the word was checked against a dictionary, was not in it, and was left as read. */
  unknown?: boolean;
  /**
   * Set by the correction step on a word it left as read but doubts for a reason the dictionary cannot see:
   * `script`, a Greek word alone in a Latin-script line (a Latin word read in Greek look-alikes, "ΡΟ" for "PG");
   * `letter`, a lone letter that no language of the page writes as a word (a stray "Ἰ" in a French page).
   */
  doubt?: 'script' | 'letter' | (string & {});
  /**
   * The engine's alternatives per character, best first: `alternatives[i][0]` is the i-th character as read
   * (joined, they give the engine's reading, `correction.from` when the word was corrected). Engines that
   * report them (tesseract's LSTM choices, those it really weighed) set them; the correction step uses them and
   * keeps them on words it changed or left `unknown`, for the proofreader.
   */
  alternatives?: string[][];
  /**
   * Digits the correction step read in a small raised mark at the word's end that the text does not show (a note
   * call the engine dropped or misread: "simulation." for "simulation⁹."). The text is left as read; the structure
   * step links a note that has no call to it.
   */
  raised?: string;
}

/** Why Quire's correction step changed a word: see `OcrCorrection.reason`. */
export type OcrCorrectionReason = 'engine-choice' | 'known-confusion' | 'script' | 'grammar' | 'punctuation' | 'letter-case' | 'reread' | 'note-call';

/** What the OCR correction step did to one word: what the engine read, and why it was changed. */
export interface OcrCorrection {
  /** The word as the engine read it. */
  from: string;
  /**
   * Why it was changed. Quire's correction step writes one of `OcrCorrectionReason`:
   * `engine-choice`: the only dictionary word made from the engine's own alternative characters;
   * `known-confusion`: the only dictionary word made by undoing a known OCR confusion (e/é/è/ê, c/ç, g→ç, oe→œ, l/1/I…);
   * `script`: Greek look-alike letters read inside a Latin-script word, mapped back to Latin letters;
   * `grammar`: both spellings are words, the next word decides (French "à" before a past participle is "a");
   * `punctuation`: a full stop read as a comma, the page's ink showing a dot on the baseline (`,→.`);
   * `reread`: a word no dictionary knew, cut out and read again alone, giving a close dictionary word (`memier→premier`);
   * `note-call`: the star or quote read where a raised note call stands, the call's figures read alone (`*→³`).
   * Results written by other tools may carry any short reason.
   */
  reason: OcrCorrectionReason | (string & {});
  /** The characters changed, read → written, comma-separated (`g→ç`, `c→e, c→e`). */
  change?: string;
  /** The tesseract code of the dictionary that accepted the new word; absent for `script` changes with no dictionary. */
  language?: string;
}

/** What the correction step did on a page (`OcrPage.correction`). */
export interface OcrPageCorrection {
  /** Languages whose dictionary checked the words (tesseract codes). */
  checked: string[];
  /** Languages of the page with no dictionary installed: their words could not be checked and were left as read. */
  unchecked: string[];
  /** Words changed on the page. */
  corrected: number;
  /** Words checked and not found, left as read. */
  unknown: number;
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
  /** Set once the correction step has run on the page; absent when it was turned off (`--no-correct`). */
  correction?: OcrPageCorrection;
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
