/**
 * Why a relative path inside an archive or a project (a bundle's entry, a page's file) could land outside it when
 * unpacked or read, or null when it is safe. The answer completes the sentence `its entry "<name>" …`.
 */
export function unsafeEntryReason(name: string, container = 'the bundle'): string | null {
  if (name.includes('\0')) return 'contains a NUL character';
  // A backslash is a folder separator on Windows: `..\x` climbs out there even though it does not here.
  if (name.includes('\\')) return 'contains a backslash';
  if (/^[a-zA-Z]:/.test(name)) return 'starts with a drive letter';
  if (name.startsWith('/')) return 'is an absolute path';
  if (name.split('/').includes('..')) return `climbs out of ${container} with ".."`;
  return null;
}

/** A zip's directory entries end with '/'; they hold nothing to read. */
export function isDirectoryName(name: string): boolean {
  return name.endsWith('/');
}
