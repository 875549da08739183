/**
 * Send to corpus: uploads each export with its metadata to a document corpus,
 * `POST {base}/book/upload` as a multipart form (`file` plus the metadata fields), signed with
 * the header `X-API-Key`.
 *
 * Only metadata fields that have a value are sent: on the corpus an empty field means "erase
 * it", which must never overwrite a stored record. Extensions the corpus does not admit are
 * refused here, before any request.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CheckResult,
  Destination,
  Field,
  HttpClient,
  HttpNetworkError,
  SendResult,
  extensionOf,
  formatBytes,
  headersField,
  multipartBody,
  parseBaseUrl,
  registerDestination,
} from 'quire/plugin-api';

/** The corpus's own list of admitted extensions. */
const ADMITTED = ['pdf', 'md', 'txt', 'epub', 'html', 'textpack'];
/** The corpus refuses files over 2 GiB with 413. */
const CORPUS_LIMIT = 2 * 1024 ** 3;

/** A setting that cannot work, found before any request: answered as `CONFIG`. */
class SettingProblem extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

/** `http://host:8080/` → `http://host:8080`; a path in the address is kept (a reverse proxy's). */
function baseUrlOf(text) {
  const { url, problem } = parseBaseUrl(text);
  if (problem === 'not_url') throw new SettingProblem(`The corpus address "${text}" is not a web address such as https://corpus.example.org.`);
  if (problem === 'not_http') throw new SettingProblem('The corpus address must start with http:// or https://.');
  if (problem === 'extra_parts') throw new SettingProblem('The corpus address must be only the address, with no user name, query or #part.');
  return url;
}

/**
 * The metadata form fields that have a value, in the corpus's names. BookMeta leaves unknown
 * fields out, and text is checked again here so that a blank never goes out as "erase".
 */
function metadataFields(meta) {
  const fields = {};
  const put = (name, value) => {
    const text = value === undefined || value === null ? '' : String(value).trim();
    if (text !== '') fields[name] = text;
  };
  const list = (values) => (values ?? []).map((v) => String(v).trim()).filter((v) => v !== '').join(', ');
  put('title', meta.title);
  put('author', list(meta.authors));
  put('publisher', meta.publisher);
  put('language', meta.language);
  put('year', meta.year);
  put('pages', meta.pages);
  put('categories', list(meta.categories));
  return fields;
}

function replyDetail(reply) {
  const words = reply.text().trim().replace(/\s+/g, ' ').slice(0, 300);
  return `HTTP ${reply.status} ${reply.statusText}${words ? `: ${words}` : ''}`;
}

class SendToCorpus extends Destination {
  name = 'send-to-corpus';
  display = 'Send to corpus';
  description = 'Uploads the book and its metadata to a document corpus.';
  accepts = ['pdf', 'md', 'txt', 'epub', 'html', 'textpack'];
  CONFIG_FIELDS = [Field('base_url', 'Corpus address', 'url', '', { required: true, help: 'The corpus API\'s address, e.g. https://corpus.example.org.' }), headersField()];
  SECRET_FIELDS = [Field('api_key', 'API key', 'secret', '', { required: true, help: 'The key the corpus gave you; sent as X-API-Key.' })];

  /** Address and client from the settings; throws {@link SettingProblem} before any I/O. */
  corpus() {
    const missing = this.missingSettings();
    if (missing.length > 0) throw new SettingProblem(`Send to corpus is not set up yet: set ${missing.join(', ')}.`);
    const base = baseUrlOf(String(this.conf('base_url')));
    let headers;
    try {
      headers = this.extraHeaders();
    } catch (e) {
      throw new SettingProblem('The extra headers setting needs one "Name: value" per line.', e.message);
    }
    return { base, headers, client: new HttpClient({ headers: { ...headers, 'X-API-Key': this.secret('api_key') ?? '' } }) };
  }

  /** Reachable (`/healthz`, no key), then the key proven on `/openapi.json`. */
  async check() {
    let corpus;
    try {
      corpus = this.corpus();
    } catch (e) {
      if (e instanceof SettingProblem) return CheckResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    try {
      const health = await new HttpClient({ headers: corpus.headers }).request({ url: `${corpus.base}/healthz` });
      if (health.status !== 200) return CheckResult.failed(CheckResult.SERVER, 'The corpus is reachable but says it is not well.', replyDetail(health));
      const api = await corpus.client.request({ url: `${corpus.base}/openapi.json` });
      if (api.status === 401 || api.status === 403) return CheckResult.failed(CheckResult.AUTH, 'The corpus refused the API key.', replyDetail(api));
      if (api.status !== 200) return CheckResult.failed(CheckResult.SERVER, 'The corpus reported a problem.', replyDetail(api));
      return CheckResult.passed('The corpus is reachable and accepts the API key.', `${corpus.base}: healthz ${health.status}, openapi.json ${api.status}`);
    } catch (e) {
      if (e instanceof HttpNetworkError) return CheckResult.failed(CheckResult.NETWORK, `The corpus at ${corpus.base} cannot be reached.`, `${e.code}: ${e.message}`);
      throw e;
    }
  }

  async send(path, meta) {
    let corpus;
    try {
      corpus = this.corpus();
    } catch (e) {
      if (e instanceof SettingProblem) return SendResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    const fileName = basename(path);
    const extension = extensionOf(fileName);
    if (!ADMITTED.includes(extension)) {
      return SendResult.failed(
        CheckResult.CONFIG,
        `The corpus admits only ${ADMITTED.join(', ')} files, so ${fileName} was not sent.`,
        `extension "${extension}" refused before any request`,
      );
    }
    const size = statSync(path).size;
    const body = multipartBody(metadataFields(meta), [{ name: 'file', path, filename: fileName }]);
    let reply;
    try {
      reply = await corpus.client.request({ url: `${corpus.base}/book/upload`, method: 'POST', body });
    } catch (e) {
      if (e instanceof HttpNetworkError) return SendResult.failed(CheckResult.NETWORK, `The corpus at ${corpus.base} cannot be reached.`, `${e.code}: ${e.message}`);
      throw e;
    }
    const detail = replyDetail(reply);
    switch (reply.status) {
      case 201: {
        let id;
        try {
          id = reply.json().id;
        } catch {
          id = undefined;
        }
        const known = typeof id === 'string' || typeof id === 'number';
        return SendResult.sent(`"${meta.title}" was added to the corpus${known ? ` as ${id}` : ''}.`, detail);
      }
      case 200:
        return SendResult.alreadyThere(`"${meta.title}" is already in the corpus (same title and author), so it was not added again.`, detail);
      case 400: {
        // The corpus refuses an empty file or an extension it does not admit; say which from what we know.
        const why = size === 0 ? 'it is empty' : `it does not admit .${extension} files`;
        return SendResult.failed(CheckResult.SERVER, `The corpus refused ${fileName}: ${why}.`, detail);
      }
      case 413:
        return SendResult.failed(
          CheckResult.SERVER,
          `The corpus refused ${fileName} (${formatBytes(size)}) as too large; it takes files up to ${formatBytes(CORPUS_LIMIT)}.`,
          detail,
        );
      case 401:
      case 403:
        return SendResult.failed(CheckResult.AUTH, 'The corpus refused the API key.', detail);
      default:
        return SendResult.failed(reply.status >= 500 ? CheckResult.SERVER : CheckResult.UNKNOWN, 'The corpus did not take the file.', detail);
    }
  }
}

registerDestination(SendToCorpus);
