/**
 * The headless secret store `<APP_DATA>/.env`: `NAME="value"` lines, mode 0600. Other lines in the
 * file (settings of other parts of Quire, comments) are kept as they are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writePrivateFile } from './private.js';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/** Read one value as written: double-quoted with escapes, single-quoted literally, or bare (a ` #` starts a comment). */
function unquote(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    return raw.slice(1, -1).replace(/\\(["\\nrt$])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1);
  return raw.replace(/\s+#.*$/, '');
}

/** Write a value double-quoted, so any text (spaces, `#`, quotes, line breaks) round-trips. */
function quote(value: string): string {
  return `"${value
    .replace(/[\\"$]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')}"`;
}

/** Every `NAME=value` of the file; `{}` when it does not exist. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const m = LINE.exec(line);
    if (m && !line.trimStart().startsWith('#')) values[m[1]] = unquote(m[2]);
  }
  return values;
}

/**
 * Set (a string) or remove (`undefined`) some names, keeping every other line. The file is
 * rewritten whole through a temporary file created with mode 0600, then renamed, so it is never
 * readable by others, not even for a moment; its folder (`<APP_DATA>`) is made 0700.
 */
export function updateEnvFile(path: string, changes: Readonly<Record<string, string | undefined>>): void {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split(/\r?\n/) : [];
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const pending = new Map(Object.entries(changes));
  const out: string[] = [];
  for (const line of lines) {
    const m = line.trimStart().startsWith('#') ? null : LINE.exec(line);
    if (m && pending.has(m[1])) {
      const value = pending.get(m[1]);
      pending.delete(m[1]);
      if (value !== undefined) out.push(`${m[1]}=${quote(value)}`);
    } else {
      out.push(line);
    }
  }
  for (const [name, value] of pending) if (value !== undefined) out.push(`${name}=${quote(value)}`);
  writePrivateFile(path, out.length > 0 ? `${out.join('\n')}\n` : '');
}
