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
 * A byte count for people: `950 bytes`, `12.3 KB`, `48.0 MB`, `2.00 GB` (powers of 1000 for KB–GB,
 * the units mail providers state limits in; see {@link formatBinaryBytes} for GiB).
 *
 * @since API 1
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 && unit >= 2 ? 2 : 1)} ${units[unit]}`;
}

/**
 * A byte count in powers of 1024: `2 GiB`, `1.5 MiB`. For limits stated that way (the corpus's 2 GiB).
 *
 * @since API 1
 */
export function formatBinaryBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
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
