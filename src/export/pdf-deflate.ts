import { deflateSync } from 'node:zlib';
import type { PDFContext, PDFRawStream } from 'pdf-lib';

/**
 * A `/FlateDecode` stream deflated by Node's own zlib rather than pdf-lib's `flateStream` (pako, zlib ported to
 * JavaScript): measured here, a 300 KB text-layer stream deflates in 3 ms instead of 31, the same size within 1 %.
 * The text layers of a 20-page document took about 0.1 s on the thread that finishes the export after the last page
 * is read. A string is taken byte for byte from its char codes (latin1), as `flateStream` does.
 */
export function deflatedStream(context: PDFContext, contents: string | Uint8Array, dict: Record<string, unknown> = {}): PDFRawStream {
  const bytes = typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents;
  return context.stream(deflateSync(bytes), { ...dict, Filter: 'FlateDecode' });
}
