import type { FastifyRequest } from 'fastify';

/** Query and body fields that carry a credential: their values never reach a log line. */
const SECRET_FIELDS = new Set(['api_key', 'secret']);
const REDACTED = '[redacted]';

/** A request URL with the values of `api_key` and `secret` replaced, however their names are percent-encoded. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_FIELDS.has(decodeName(name).toLowerCase()) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** pino options for fastify: requests logged without credentials, and the fields redacted wherever they appear. */
export function loggerOptions(level: string, stream?: { write(line: string): void }): object {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['api_key', 'secret', '*.api_key', '*.secret', 'req.headers.authorization', 'req.headers.cookie', 'body', '*.body'],
      censor: REDACTED,
    },
    serializers: {
      req(req: FastifyRequest) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
      },
    },
  };
}
