/** The last verb: hand a converted document's files to installed destinations. */
import { sendExports, type PluginHostOptions, type SendOutcome } from '../plugins/index.js';

/** What `send` needs of a conversion: its written files and what a destination files the book under. */
export interface Sendable {
  name: string;
  pages: number;
  outputs: ReadonlyArray<{ format: string; path: string }>;
  ocr?: { languages: string[] };
}

/**
 * Send every written file each destination accepts to the destinations named by `slugs`, the book filed under the
 * document's name, page count and main language. Returns one outcome per file sent; a failed send is an outcome,
 * not an exception.
 */
export async function send(
  converted: Sendable,
  slugs: readonly string[],
  options: PluginHostOptions & { onOutcome?: (outcome: SendOutcome) => void } = {},
): Promise<SendOutcome[]> {
  const meta = { title: converted.name, pages: converted.pages, ...(converted.ocr?.languages[0] ? { language: converted.ocr.languages[0] } : {}) };
  return sendExports(
    converted.outputs.map((o) => ({ format: o.format, path: o.path })),
    slugs,
    meta,
    options,
  );
}
