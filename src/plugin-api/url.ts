/**
 * What is wrong with a base URL a person typed, in the shape every caller turns into its own sentence:
 * `not_url` (does not parse), `not_http` (another scheme), `extra_parts` (a user name or password, a query or a
 * `#part`: credentials in an address would travel in every request line, and the rest would be lost on joining).
 *
 * @since API 1
 */
export type BaseUrlProblem = 'not_url' | 'not_http' | 'extra_parts';

/**
 * A service's base URL as typed (`http://host:8080/calibre/`) → `{ url }` without its trailing slash
 * (`http://host:8080/calibre`: a path is kept, a reverse proxy's), or `{ problem }`. The one base-URL check of
 * Quire: the job server's public address, the remote OCR address and the destinations' server addresses use it.
 *
 * @since API 1
 */
export function parseBaseUrl(text: string): { url: string; problem?: undefined } | { url?: undefined; problem: BaseUrlProblem } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { problem: 'not_url' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'not_http' };
  if (url.username || url.password || url.search || url.hash) return { problem: 'extra_parts' };
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
