/**
 * File names for documents: safe on every OS, within the byte limit of file systems, and distinct within a run.
 */

/**
 * The longest stem `safeFileName` makes, in UTF-8 bytes: with the longest extension (`_OCR.textpack`), a ` (99)`
 * for a name taken twice and the temporary suffix an export is written under, a name stays under 255 bytes.
 */
export const MAX_STEM_BYTES = 200;
const MAX_STEM_CHARS = 150;

/** A document name made safe as a file name on every OS, keeping its letters (accents included). */
export function safeFileName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    // Control characters, the bidirectional controls that make a name read backwards, and what Windows refuses.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\:*?"<>|]+/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  return fitStem(Array.from(cleaned).slice(0, MAX_STEM_CHARS).join(''), MAX_STEM_BYTES) || 'document';
}

/** `stem` cut to at most `maxBytes` UTF-8 bytes between characters, without trailing spaces or dots. */
export function fitStem(stem: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const char of stem) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  // Windows drops trailing dots and spaces from names, which would make two names one.
  return out.replace(/[ .]+$/, '');
}

/**
 * Stems for documents written side by side in one run, made distinct: the second document called `Book` is
 * written as `Book (2)`, the third `Book (3)`. Two stems clash when any of their files (stem + each extension)
 * would be the same name, compared without case (macOS and Windows do not tell `Book` from `book`). Stems longer
 * than `maxBytes` with their longest extension are shortened first.
 */
export function distinctStems(stems: readonly string[], extensions: readonly string[], maxBytes = Infinity): string[] {
  const exts = extensions.length > 0 ? extensions : [''];
  const longestExt = Math.max(...exts.map((e) => Buffer.byteLength(e)));
  const taken = new Set<string>();
  const key = (stem: string, ext: string): string => `${stem}${ext}`.normalize('NFC').toLowerCase();
  return stems.map((wanted) => {
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? '' : ` (${n})`;
      const stem = fitStem(wanted, maxBytes - longestExt - Buffer.byteLength(suffix)) + suffix;
      if (exts.some((ext) => taken.has(key(stem, ext)))) continue;
      for (const ext of exts) taken.add(key(stem, ext));
      return stem;
    }
  });
}
