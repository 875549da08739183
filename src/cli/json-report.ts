/**
 * The one shape of `--json`: an array with one object per document, every field always present. A list is empty
 * when it has nothing, a value that does not apply is null, so a script reads `r.outputs` or `r.ocr` without testing
 * whether the key exists. See docs/cli.md.
 */
import type { QuireError } from '../errors.js';

/** done: converted; ocr_pending: converted but for the text (an OCR batch); failed: see `error`; skipped: not converted because another input was refused; stopped: a signal stopped the run on it. */
export type DocumentStatus = 'done' | 'ocr_pending' | 'failed' | 'skipped' | 'stopped';

export interface DocumentReport {
  /** The input path, or the image paths given together as one document; null only for a failure before any input was read. */
  input: string | string[] | null;
  status: DocumentStatus;
  name: string | null;
  file_stem: string | null;
  renamed: string | null;
  outputs: unknown[];
  frames: number | null;
  pages: number | null;
  kept_pages: number;
  project: string | null;
  ocr: object | null;
  out_of_focus_pages: number[];
  ocr_pending: object | null;
  timings_ms: object | null;
  pages_per_second: number | null;
  error: { code: string; message: string } | null;
}

/** A document's report: `fields` over the empty one. */
export function documentReport(
  inputs: readonly string[] | null,
  status: DocumentStatus,
  fields: Partial<Omit<DocumentReport, 'input' | 'status'>> = {},
): DocumentReport {
  return {
    input: inputs === null ? null : inputs.length === 1 ? inputs[0] : [...inputs],
    status,
    name: null,
    file_stem: null,
    renamed: null,
    outputs: [],
    frames: null,
    pages: null,
    kept_pages: 0,
    project: null,
    ocr: null,
    out_of_focus_pages: [],
    ocr_pending: null,
    timings_ms: null,
    pages_per_second: null,
    error: null,
    ...fields,
  };
}

export function errorJson(error: Pick<QuireError, 'code' | 'message'>): { code: string; message: string } {
  return { code: error.code, message: error.message };
}
