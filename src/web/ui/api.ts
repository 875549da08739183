/// <reference lib="dom" />
/**
 * The page's side of the app's own JSON API. The session cookie rides along with every request
 * (same origin); a refusal becomes an `ApiFailure` carrying the server's one sentence.
 */
import type { ApiError, DocumentSummary } from '../api-types.js';

export class ApiFailure extends Error {
  readonly code: string;
  readonly status: number;
  readonly missing?: string[];

  constructor(status: number, code: string, message: string, missing?: string[]) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
    if (missing) this.missing = missing;
  }
}

function failureOf(status: number, text: string): ApiFailure {
  try {
    const body = JSON.parse(text) as ApiError;
    if (body.error?.message) return new ApiFailure(status, body.error.code, body.error.message, body.error.missing);
  } catch {
    // not JSON: fall through
  }
  if (status === 401) return new ApiFailure(401, 'unauthorized', 'This window lost its session; open the address quire gui printed again.');
  return new ApiFailure(status, 'http', `Quire answered with an error (HTTP ${status}).`);
}

/** Call a JSON route; resolves with its body (undefined for 204). */
export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiFailure(0, 'offline', 'Quire is not answering; is quire gui still running?');
  }
  const text = await response.text();
  if (!response.ok) throw failureOf(response.status, text);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Upload files as one document, reporting the share sent so far (0–1). */
export function uploadDocument(files: readonly File[], onProgress: (share: number) => void): Promise<DocumentSummary> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const file of files) form.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/documents');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(JSON.parse(xhr.responseText) as DocumentSummary);
      else reject(failureOf(xhr.status, xhr.responseText));
    };
    xhr.onerror = () => reject(new ApiFailure(0, 'offline', 'The upload did not reach Quire; is quire gui still running?'));
    xhr.send(form);
  });
}

/** Let the browser save a file from the app, asking where as it always does. */
export function startDownload(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
