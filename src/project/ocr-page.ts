/**
 * The OCR page files of a project (`ocr/<page>.json`, one `OcrPage` each, named by the page's `ocr`): read and
 * written here only. A write is atomic (a reader sees the old result or the whole new one, never half a file). A read
 * has one failure behaviour: a file that is missing or cannot be parsed is a damaged project, a `QuireError`
 * (`BAD_PROJECT`) naming the page — callers that hold an optional file (a local layout kept as a cache) say so by
 * catching it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { errnoOf } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import type { OcrPage } from './ocr-model.js';

/** Read the OCR result `file` (relative to the project folder `dir`) of page number `page` (for the message). */
export async function readOcrPage(dir: string, file: string, page: number): Promise<OcrPage> {
  let text: string;
  try {
    text = await readFile(join(dir, file), 'utf8');
  } catch (e) {
    const missing = errnoOf(e) === 'ENOENT';
    throw new QuireError(
      ERROR_CODES.BAD_PROJECT,
      `The OCR result of page ${page} ${missing ? 'is missing from the project' : 'cannot be read'}.`,
      `${file}: ${describeError(e)}`,
    );
  }
  try {
    return JSON.parse(text) as OcrPage;
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PROJECT, `The OCR result of page ${page} cannot be read.`, `${file}: ${describeError(e)}`);
  }
}

/** Write the OCR result `file` (relative to the project folder `dir`) in one piece. */
export async function writeOcrPage(dir: string, file: string, result: OcrPage): Promise<void> {
  await writeFileAtomically(join(dir, file), Buffer.from(JSON.stringify(result)));
}
