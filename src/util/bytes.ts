/**
 * The one byte formatter, in powers of 1024 (`950 bytes`, `12.3 KiB`, `48.0 MiB`, `2.0 GiB`). It lives in the
 * plugin API, which a sandboxed plugin reads on its own, and is re-exported here so every message of Quire and
 * of its plugins prints a size the same way.
 */
export { formatBytes } from '../plugin-api/index.js';
