/**
 * Printing what came from an input (a bundle's project name, a path, a PDF's metadata, a plugin's manifest) without
 * letting it drive the terminal: control characters are shown escaped, so a name cannot clear the screen, retitle
 * the window, move the cursor or reverse the direction of the text around it.
 */

/**
 * C0 and C1 controls and DEL (escape sequences, carriage returns, backspaces, the one-byte CSI), the bidirectional
 * overrides, embeddings, isolates and marks (text that reads backwards), and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** The same less C0, which `JSON.stringify` escapes inside strings itself (raw, they are only its own line breaks). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `text` with every control character shown as an escape (`\x1b`, `\u202e`): safe to print on a terminal. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * JSON for stdout. `JSON.stringify` escapes C0 controls already; the C1 controls and the bidirectional ones are
 * escaped too, so the output is safe to print and still parses to the same strings.
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `n word` or `n words`: "1 page", "2 pages". */
export function count(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}
