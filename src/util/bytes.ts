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
