import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { isJobId, jobTag } from './secrets.js';

/** Query and body fields that carry a credential: their values never reach a log line. */
const SECRET_FIELDS = new Set(['api_key', 'secret']);
const REDACTED = '[redacted]';

/** Routes whose path holds a job id, which is the download credential: logged as its tag (see `jobTag`). */
const JOB_PATHS = /^(\/(?:check|get|download|cancel|delete)\/)([^/?#]+)/;

/**
 * A request URL as the log shows it: the values of `api_key` and `secret` replaced, however their names are
 * percent-encoded, and a job id in the path replaced by its tag (`/check/job:1a2b3c4d5e6f`).
 */
export function redactUrl(url: string): string {
  url = url.replace(JOB_PATHS, (whole, route: string, id: string) => (isJobId(id) ? `${route}job:${jobTag(id)}` : whole));
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

/** A job id as a folder in a path (`…/server_data/<id>/input.zip`): what an error's detail may carry. */
const JOB_IN_PATH = /\/([A-Za-z0-9_-]{22})(?=\/)/g;

/** Text for the log with every job folder in it named by the job's tag instead of its id. */
export function scrubJobIds(text: string): string {
  return text.replace(JOB_IN_PATH, (_whole, id: string) => `/job:${jobTag(id)}`);
}

interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A log whose string fields go through {@link scrubJobIds}: errors of a job name its files by path. */
export function scrubbingLog<L extends Log>(log: L): Log {
  const scrub = (obj: object): object => Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, typeof v === 'string' ? scrubJobIds(v) : v]));
  return {
    info: (obj, msg) => log.info(scrub(obj), msg),
    warn: (obj, msg) => log.warn(scrub(obj), msg),
    error: (obj, msg) => log.error(scrub(obj), msg),
  };
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
      paths: [
        'api_key',
        'secret',
        '*.api_key',
        '*.secret',
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-api-key"]',
        'req.headers["x-admin-secret"]',
        'body',
        '*.body',
      ],
      censor: REDACTED,
    },
    serializers: {
      req(req: FastifyRequest) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
      },
    },
  };
}

/** The log of a `quire worker` process: pino, JSON lines on `stream`, the same redaction as the server's. */
export function workerLogger(level: string, stream: { write(line: string): void }): pino.Logger {
  const { serializers: _serializers, ...options } = loggerOptions(level) as pino.LoggerOptions;
  return pino(options, stream as pino.DestinationStream);
}
