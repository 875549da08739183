/** Small text helpers destinations keep needing. */

/**
 * Percent-quote one URL path segment with an empty safe-character list: everything but
 * `A–Z a–z 0–9 _ . - ~` is escaped (UTF-8), so a `/`, space, `?` or `#` in a title cannot change
 * the route. Same output as Python's `urllib.parse.quote(s, safe='')`.
 *
 * @since API 1
 */
export function quotePathSegment(segment: string): string {
  return Array.from(new TextEncoder().encode(segment), (byte) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9_.~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/**
 * A byte count for people, in powers of 1024 with one decimal: `950 bytes`, `12.3 KiB`,
 * `48.0 MiB`, `2.0 GiB`. Quire prints every size with this one formatter (its own messages
 * re-export it), so a file has the same size in every message.
 *
 * @since API 1 (in API 1 as first published it counted in powers of 1000)
 */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (!(Math.abs(bytes) >= 1024)) return `${bytes} bytes`;
  let value = bytes / 1024;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * The same as {@link formatBytes}, kept for plugins written when `formatBytes` counted in
 * powers of 1000.
 *
 * @since API 1
 * @deprecated Use {@link formatBytes}.
 */
export function formatBinaryBytes(bytes: number): string {
  return formatBytes(bytes);
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  epub: 'application/epub+zip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  textpack: 'application/zip',
  zip: 'application/zip',
  json: 'application/json',
};

/**
 * The MIME type for a file name or extension (`book.pdf`, `.md`, `epub`);
 * `application/octet-stream` when unknown.
 *
 * @since API 1
 */
export function contentTypeFor(nameOrExtension: string): string {
  const dot = nameOrExtension.lastIndexOf('.');
  const ext = (dot >= 0 ? nameOrExtension.slice(dot + 1) : nameOrExtension).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * The extension of a file name, lower case and without its dot (`pdf`); `''` when none.
 *
 * @since API 1
 */
export function extensionOf(fileName: string): string {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
