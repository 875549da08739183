/**
 * The one byte formatter, in powers of 1024 (`950 bytes`, `12.3 KiB`, `48.0 MiB`, `2.0 GiB`). It lives in the
 * plugin API, which a sandboxed plugin reads on its own, and is re-exported here so every message of Quire and
 * of its plugins prints a size the same way.
 */
export { formatBytes } from '../plugin-api/index.js';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * A size people write, in binary units as disks and limits are usually meant: `2G`, `500M`, `1.5GiB`, `64kb`,
 * `1048576`. Null when it is not one (or is below one byte).
 */
export function parseByteSize(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(value.trim());
  const bytes = m ? Math.floor(Number(m[1]) * UNITS[m[2].toLowerCase()]) : NaN;
  return bytes >= 1 ? bytes : null;
}
