/** What a conversion reports as it goes, to the CLI's progress bar, the job server's `/check` and the web app. */
export type ProgressEvent =
  | { type: 'start'; name: string; frames: number }
  | { type: 'frame'; framesDone: number; framesTotal: number; pagesDone: number; input: string }
  | { type: 'ocr'; pagesDone: number; pagesTotal: number; read?: OcrPagesRead }
  /** A page is read a second time (turned the right way up, or in its own language): its work counts again. */
  | { type: 'ocr-again'; read: OcrPagesRead }
  /** With languages detected: page `page` (its number in the document) is plainly in `languages`, and is read again in them. */
  | { type: 'ocr-page-language'; page: number; languages: string[] }
  /** With languages detected: they are being found on lines of the first pages (no `languages`), or were found. */
  | { type: 'ocr-languages'; languages?: string[] }
  /** Every page is read; the correction checks the words now (reading the doubtful ones again), which no page count measures. */
  | { type: 'ocr-check' }
  | { type: 'export'; format: string; path: string }
  | { type: 'done'; pages: number }
  /** Something the user should know that did not stop the run: one sentence (a plugin step failed on a page). */
  | { type: 'warning'; message: string };

/**
 * With a page read, what the web app's time-left estimate times the rest by: the work of each page handed to the
 * engine so far, in reading order (ink in thousands of pixels, `null` when it could not be measured), the place of the
 * page just read, and how many pages the engine reads side by side.
 */
export interface OcrPagesRead {
  order: number;
  works: Array<number | null>;
  sideBySide: number;
  /** Once every page is read, the correction reads the doubtful words again with the engine (the native one): it takes a while. */
  checksWords?: boolean;
}
