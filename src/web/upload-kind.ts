/**
 * What an upload is, told by its first bytes: Quire opens scan bundles and slim projects (zip), PDFs and page
 * images (JPEG, PNG, TIFF, WebP). Anything else is refused before its body is sent (the page reads the first bytes
 * of the chosen file) or before it is stored (the server reads them as they arrive), not after a gigabyte of it.
 * No Node imports: the page uses it too.
 */

/** Bytes enough to tell every kind (a PDF's header may come after up to 1 KB of other bytes, as readers allow). */
export const SNIFF_BYTES = 1024;

export type UploadKind = 'zip' | 'pdf' | 'jpeg' | 'png' | 'tiff' | 'webp';

const starts = (head: Uint8Array, bytes: readonly number[], at = 0): boolean => bytes.every((b, i) => head[at + i] === b);

/** The kind of a file from its first bytes (up to `SNIFF_BYTES`), or null when they say none Quire opens. */
export function uploadKind(head: Uint8Array): UploadKind | null {
  if (starts(head, [0x50, 0x4b, 0x03, 0x04]) || starts(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (starts(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (
    starts(head, [0x49, 0x49, 0x2a, 0x00]) ||
    starts(head, [0x4d, 0x4d, 0x00, 0x2a]) ||
    starts(head, [0x49, 0x49, 0x2b, 0x00]) ||
    starts(head, [0x4d, 0x4d, 0x00, 0x2b])
  )
    return 'tiff';
  if (starts(head, [0x52, 0x49, 0x46, 0x46]) && starts(head, [0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  const pdf = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
  for (let at = 0; at + pdf.length <= Math.min(head.length, SNIFF_BYTES); at++) if (starts(head, pdf, at)) return 'pdf';
  return null;
}

/** The names Quire opens by their extension alone, as `quire run` does (a damaged file is then refused by the reader). */
const EXTENSIONS = /\.(aglbundle|zip|pdf|jpe?g|jpe|png|tiff?|webp|quire)$/i;

/** Whether Quire may be able to open this file: its first bytes or its name say a kind it reads. */
export function mayOpen(name: string, head: Uint8Array): boolean {
  return uploadKind(head) !== null || EXTENSIONS.test(name);
}

/** The largest upload: a long book's bundle is a few GB. */
export const MAX_UPLOAD = 8 * 1024 ** 3;

/** The refusal of a file Quire cannot open, in the words `quire run` uses. */
export function notOpenable(name: string): string {
  return `${name} is not a scan bundle, PDF or image that Quire can read.`;
}
