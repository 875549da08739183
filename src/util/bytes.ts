/**
 * A byte count for people, in powers of 1024 with one decimal: `950 bytes`, `12.3 KiB`, `48.0 MiB`, `2.0 GiB`.
 * (Plugins have their own, in powers of 1000, in `plugin-api/`: a sandboxed plugin reads nothing else of ours.)
 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(1)} GiB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

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
