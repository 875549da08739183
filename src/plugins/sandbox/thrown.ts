/**
 * What a sandboxed plugin process (a destination's or a page plugin's) tells the host of an error thrown in it: one
 * line for the log, and whether Node's permission model refused what the plugin tried.
 */

/** Error codes Node uses when the permission model refuses something. */
const SANDBOX_CODES = new Set(['ERR_ACCESS_DENIED', 'ERR_DLOPEN_DISABLED', 'ERR_WORKER_INIT_FAILED']);

export function isSandboxRefusal(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SANDBOX_CODES.has(code);
}

/**
 * An error in one line: its name, message and code; `full` adds the permission and resource a refusal names (a
 * destination's one answer), `brief` cuts the line short (a page plugin's, sent for each page).
 */
export function describeThrown(e: unknown, form: 'full' | 'brief' = 'full'): string {
  if (!(e instanceof Error)) return form === 'full' ? String(e) : String(e).slice(0, 500);
  const extra = e as Error & { code?: unknown; permission?: unknown; resource?: unknown };
  const parts = [`${e.name}: ${e.message}`];
  if (extra.code !== undefined) parts.push(`code=${String(extra.code)}`);
  if (form === 'brief') return parts.join(' ').slice(0, 1000);
  if (extra.permission !== undefined) parts.push(`permission=${String(extra.permission)}`);
  if (extra.resource !== undefined) parts.push(`resource=${String(extra.resource)}`);
  return parts.join(' ');
}
