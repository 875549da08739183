/**
 * Send to library: adds each export as a book to a calibre library through calibre's content
 * server (`calibre-server --enable-auth`). The route is
 * `POST {base}{prefix}/cdb/add-book/{job}/n/{title.ext}/{library}` with the file's bytes as the
 * raw request body (never multipart); calibre names the book from the file name, so the
 * document's title goes there. Every path segment is percent-quoted with no safe characters,
 * so a `/` or a space in a title cannot change the route.
 *
 * One document sent as several formats (pdf and md) is one book with each format: before adding a
 * book, the library is searched for the document's exact title (and authors, when known); when
 * that book is there without this format, the format is added to it (`/cdb/set-fields`,
 * `added_formats`), and when it already has it, the document is already there. calibre makes a
 * title from a file name its own way (`/ ? "` do not survive), so a new book gets the document's
 * title (and authors) set afterwards, intact.
 */
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CheckResult,
  Destination,
  Field,
  HttpClient,
  HttpNetworkError,
  SendResult,
  extensionOf,
  headersField,
  parseBaseUrl,
  quotePathSegment,
  registerDestination,
} from 'quire/plugin-api';

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
  if (problem === 'not_url') throw new SettingProblem(`The server address "${text}" is not a web address such as http://localhost:8080.`);
  if (problem === 'not_http') throw new SettingProblem('The server address must start with http:// or https://.');
  if (problem === 'extra_parts') throw new SettingProblem('The server address must be only the address, with no user name, query or #part.');
  return url;
}

/** calibre's `--url-prefix` (`/calibre`): leading slash, no trailing one, plain path segments. */
function prefixOf(text) {
  const trimmed = text.trim().replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (!segments.every((s) => /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/.test(s))) {
    throw new SettingProblem(`The URL prefix "${text}" must be a plain path such as /calibre.`);
  }
  return `/${segments.join('/')}`;
}

/** calibre's library id is the library folder's name with spaces as `_`; empty means its default library. */
function libraryIdOf(text) {
  return text.trim().replace(/ /g, '_');
}

function networkDetail(e) {
  return `${e.code}: ${e.message}`;
}

/** The reply as one line for `detail`: status, reason and the start of the server's own words. */
function replyDetail(reply) {
  const words = reply.text().trim().replace(/\s+/g, ' ').slice(0, 300);
  return `HTTP ${reply.status} ${reply.statusText}${words ? `: ${words}` : ''}`;
}

/**
 * What a reply other than success means, in the user's words. The server's text only picks the
 * sentence; it is never shown (it goes to `detail`).
 */
function refusal(reply, server) {
  const words = reply.text();
  const detail = replyDetail(reply);
  const user = server.username;
  if (reply.status === 401) {
    const schemes = reply.challenges.map((c) => c.scheme);
    if (server.mode === 'digest' && schemes.includes('basic') && !schemes.includes('digest')) {
      return [CheckResult.AUTH, 'The calibre server asks for basic sign-in: set the sign-in method (auth_mode) to basic, and use that only behind HTTPS.', detail];
    }
    return [
      CheckResult.AUTH,
      `The calibre server refused the user name or password of ${user}; check both (a refusal does not say which was wrong, nor whether digest or basic sign-in was expected).`,
      detail,
    ];
  }
  // calibre answers basic credentials sent to a digest server with 400, not 401.
  if (reply.status === 400 && server.mode === 'basic' && /authentication/i.test(words)) {
    return [CheckResult.AUTH, 'The calibre server signs in with digest, not basic: set the sign-in method (auth_mode) to digest, its default.', detail];
  }
  if (reply.status === 403) {
    if (/permission to make changes/i.test(words)) {
      return [CheckResult.PERMISSION, `The calibre user ${user} may only read the library; give that user write access or use another one.`, detail];
    }
    if (/restriction/i.test(words)) {
      return [CheckResult.PERMISSION, `The calibre user ${user} is restricted to some libraries, and calibre lets only unrestricted users add books.`, detail];
    }
    if (/librar/i.test(words)) {
      return [CheckResult.PERMISSION, `The calibre user ${user} cannot open the library ${server.library ? `"${server.library}"` : 'of this server'}; check the library setting.`, detail];
    }
    return [CheckResult.PERMISSION, `The calibre server does not let ${user} add books.`, detail];
  }
  if (reply.status === 404) return [CheckResult.SERVER, 'The calibre server has no add-book route at this address; check the server address and URL prefix.', detail];
  if (reply.status >= 500) return [CheckResult.SERVER, 'The calibre server reported a problem.', detail];
  return [CheckResult.UNKNOWN, 'The calibre server did not take the request.', detail];
}

/** calibre's search for an exact title (`=`, which ignores case), `"` and `\\` escaped as its parser wants. */
function exactTitleQuery(title) {
  return `title:"=${title.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function sameAuthors(a, b) {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * Write the JSON body of a set-fields request that adds `path` as format `extension`, the file in
 * base64, a piece at a time: a large file never sits whole in memory.
 */
async function writeAddFormatBody(target, path, extension, bookId) {
  const out = await open(target, 'w', 0o600);
  const source = await open(path, 'r');
  try {
    await out.write(`{"changes":{"added_formats":[{"ext":${JSON.stringify(extension)},"data_url":"data:application/octet-stream;base64,`);
    const piece = Buffer.alloc(3 * 256 * 1024);
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await source.read(piece, 0, piece.length, null);
      if (bytesRead === 0) break;
      const bytes = Buffer.concat([carry, piece.subarray(0, bytesRead)]);
      const whole = bytes.length - (bytes.length % 3);
      await out.write(bytes.subarray(0, whole).toString('base64'));
      carry = Buffer.from(bytes.subarray(whole));
    }
    await out.write(`${carry.toString('base64')}"}]},"loaded_book_ids":[${bookId}]}`);
  } finally {
    await source.close();
    await out.close();
  }
}

class SendToLibrary extends Destination {
  name = 'send-to-library';
  display = 'Send to library';
  description = 'Adds the book to a calibre library through its content server.';
  accepts = ['pdf', 'md', 'txt'];
  CONFIG_FIELDS = [
    Field('base_url', 'Server address', 'url', '', { required: true, help: 'Where calibre-server listens, e.g. http://localhost:8080; start it with --enable-auth.' }),
    Field('url_prefix', 'URL prefix', 'str', '', { help: 'Only when calibre-server runs with --url-prefix, e.g. /calibre.' }),
    Field('library_id', 'Library', 'str', '', { help: "The library's folder name (spaces become _); empty for the server's default library." }),
    Field('username', 'User name', 'str', '', { required: true, help: 'A calibre user who may change the library (not read-only, not restricted to some libraries).' }),
    Field('auth_mode', 'Sign-in method', 'choice', 'digest', {
      choices: ['digest', 'basic'],
      help: "digest is calibre's default; choose basic only when the server runs with --auth-mode basic behind an HTTPS reverse proxy.",
    }),
    headersField(),
  ];
  SECRET_FIELDS = [Field('password', 'Password', 'secret', '', { required: true, help: "The calibre user's password." })];

  /** Everything a request needs, from the settings; throws {@link SettingProblem} before any I/O. */
  server() {
    const missing = this.missingSettings();
    if (missing.length > 0) throw new SettingProblem(`Send to library is not set up yet: set ${missing.join(', ')}.`);
    const base = baseUrlOf(String(this.conf('base_url')));
    const prefix = prefixOf(String(this.conf('url_prefix')));
    let headers;
    try {
      headers = this.extraHeaders();
    } catch (e) {
      throw new SettingProblem('The extra headers setting needs one "Name: value" per line.', e.message);
    }
    const username = String(this.conf('username')).trim();
    const mode = this.conf('auth_mode') === 'basic' ? 'basic' : 'digest';
    return {
      root: `${base}${prefix}`,
      base,
      library: libraryIdOf(String(this.conf('library_id'))),
      username,
      mode,
      client: new HttpClient({ headers, auth: { username, password: this.secret('password') ?? '', mode } }),
    };
  }

  /** The add-book URL; every segment quoted with no safe characters. */
  addBookUrl(server, jobId, fileName) {
    return `${server.root}/cdb/add-book/${[jobId, 'n', fileName, server.library].map(quotePathSegment).join('/')}`;
  }

  /** `/{library}` for the library-scoped routes; nothing for the server's default library. */
  librarySegment(server) {
    return server.library ? `/${quotePathSegment(server.library)}` : '';
  }

  /**
   * The book this document already is in the library: same title exactly, same authors when the
   * document names them. Resolves `{ book }` (id, title, authors, formats in lower case), `{}`
   * when there is none, or `{ reply }` when the server refused the search.
   */
  async findBook(server, meta) {
    const lib = this.librarySegment(server);
    const search = await server.client.request({ url: `${server.root}/ajax/search${lib}?num=50&query=${encodeURIComponent(exactTitleQuery(meta.title))}` });
    if (search.status !== 200) return { reply: search };
    let ids;
    try {
      ids = search.json().book_ids ?? [];
    } catch {
      return {};
    }
    for (const id of ids) {
      const reply = await server.client.request({ url: `${server.root}/ajax/book/${Number(id)}${lib}` });
      if (reply.status !== 200) continue;
      const book = reply.json();
      const authors = Array.isArray(book.authors) ? book.authors.map(String) : [];
      if (book.title !== meta.title || (meta.authors && !sameAuthors(authors, meta.authors))) continue;
      return { book: { id: Number(id), title: book.title, authors, formats: (book.formats ?? []).map((f) => String(f).toLowerCase()) } };
    }
    return {};
  }

  /** POST a set-fields request (`body` text or a file); the reply, for {@link refusal} when not 200. */
  setFields(server, bookId, body) {
    return server.client.request({
      url: `${server.root}/cdb/set-fields/${Number(bookId)}/${quotePathSegment(server.library)}`,
      method: 'POST',
      body,
      contentType: 'application/json',
    });
  }

  /** Add `path` to book `bookId` as format `extension`. */
  async addFormat(server, bookId, path, extension) {
    const body = join(this.ctx.dataDir, `add-format-${randomBytes(6).toString('hex')}.json`);
    try {
      await writeAddFormatBody(body, path, extension, bookId);
      return await this.setFields(server, bookId, { file: body });
    } finally {
      await rm(body, { force: true });
    }
  }

  /**
   * Reach the server, sign in, and prove the user may add books without adding one: the library
   * list shows the credentials work, then an add-book request with an empty body, which calibre
   * refuses with 400 only after it has checked write access (a read-only user gets 403).
   */
  async check() {
    let server;
    try {
      server = this.server();
    } catch (e) {
      if (e instanceof SettingProblem) return CheckResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    try {
      const info = await server.client.request({ url: `${server.root}/ajax/library-info` });
      if (info.status !== 200) {
        const [kind, message, detail] = refusal(info, server);
        return CheckResult.failed(kind, message, detail);
      }
      let libraries = [];
      try {
        libraries = Object.keys(info.json().library_map ?? {});
      } catch {
        return CheckResult.failed(CheckResult.SERVER, 'The server at this address does not answer like a calibre content server.', replyDetail(info));
      }
      if (server.library !== '' && !libraries.includes(server.library)) {
        return CheckResult.failed(
          CheckResult.PERMISSION,
          `The calibre user ${server.username} has no library "${server.library}" on this server; it can open: ${libraries.join(', ') || 'none'}.`,
          replyDetail(info),
        );
      }
      const probe = await server.client.request({ url: this.addBookUrl(server, 'quire-check', 'quire-check.pdf'), method: 'POST', body: new Uint8Array(0) });
      if (probe.status !== 400) {
        const [kind, message, detail] = refusal(probe, server);
        return CheckResult.failed(kind, message, detail);
      }
      const library = server.library || 'default';
      return CheckResult.passed(`Signed in to the calibre server as ${server.username}, who may add books to the ${library} library.`, `libraries: ${libraries.join(', ')}`);
    } catch (e) {
      if (e instanceof HttpNetworkError) return CheckResult.failed(CheckResult.NETWORK, `The calibre server at ${server.base} cannot be reached.`, networkDetail(e));
      throw e;
    }
  }

  async send(path, meta) {
    let server;
    try {
      server = this.server();
    } catch (e) {
      if (e instanceof SettingProblem) return SendResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    const extension = extensionOf(path);
    if (!this.accepts.includes(extension)) {
      return SendResult.failed(CheckResult.CONFIG, `Send to library takes ${this.accepts.join(', ')} files, and this file is none of them.`, `file extension "${extension}"`);
    }
    const where = server.library ? `the ${server.library} library` : 'the calibre library';
    try {
      return await this.sendTo(server, path, meta, extension, where);
    } catch (e) {
      if (e instanceof HttpNetworkError) return SendResult.failed(CheckResult.NETWORK, `The calibre server at ${server.base} cannot be reached.`, networkDetail(e));
      throw e;
    }
  }

  /** The send once the settings are good; network failures reach {@link send}. */
  async sendTo(server, path, meta, extension, where) {
    const format = extension.toUpperCase();
    const found = await this.findBook(server, meta);
    if (found.reply) {
      const [kind, message, detail] = refusal(found.reply, server);
      return SendResult.failed(kind, message, detail);
    }
    if (found.book) {
      const { book } = found;
      if (book.formats.includes(extension)) {
        return SendResult.alreadyThere(`"${meta.title}" is already in ${where}, so it was not added again.`, `book_id=${book.id} has ${book.formats.join(', ')}`);
      }
      const added = await this.addFormat(server, book.id, path, extension);
      if (added.status !== 200) {
        const [kind, message, detail] = refusal(added, server);
        return SendResult.failed(kind, message, detail);
      }
      const formats = [...book.formats, extension].map((f) => f.toUpperCase()).join(', ');
      return SendResult.sent(`"${meta.title}" as ${format} was added to its book in ${where}, which now has ${formats}.`, `HTTP 200 set-fields book_id=${book.id} added_formats=${extension}`);
    }

    // calibre derives the format from the extension and the book's title from the rest of the name.
    const fileName = `${meta.title}.${extension}`;
    const jobId = `quire-${randomBytes(6).toString('hex')}`;
    const reply = await server.client.request({ url: this.addBookUrl(server, jobId, fileName), method: 'POST', body: { file: path }, contentType: 'application/octet-stream' });
    if (reply.status !== 200) {
      const [kind, message, detail] = refusal(reply, server);
      return SendResult.failed(kind, message, detail);
    }
    let answer;
    try {
      answer = reply.json();
    } catch {
      answer = null;
    }
    if (answer && typeof answer.book_id === 'number') {
      // The title calibre made from the file name loses `/ ? "`; the document's own title and authors go in as they are.
      const changes = {};
      if (answer.title !== meta.title) changes.title = meta.title;
      if (meta.authors && !sameAuthors(Array.isArray(answer.authors) ? answer.authors : [], meta.authors)) changes.authors = [...meta.authors];
      let named = '';
      if (Object.keys(changes).length > 0) {
        const set = await this.setFields(server, answer.book_id, JSON.stringify({ changes, loaded_book_ids: [answer.book_id] }));
        named = ` set-fields ${Object.keys(changes).join('+')}: HTTP ${set.status}`;
      }
      return SendResult.sent(`"${meta.title}" was added to ${where}.`, `HTTP 200 book_id=${answer.book_id} job=${jobId} file=${JSON.stringify(fileName)}${named}`);
    }
    if (answer && Array.isArray(answer.duplicates)) {
      return SendResult.alreadyThere(`"${meta.title}" is already in ${where}, so it was not added again.`, `HTTP 200 duplicates=${JSON.stringify(answer.duplicates).slice(0, 300)}`);
    }
    return SendResult.failed(CheckResult.SERVER, 'The calibre server answered in a way Quire does not understand.', replyDetail(reply));
  }
}

registerDestination(SendToLibrary);
