/**
 * Reading an EPUB back as a reading system would, for the tests: its zip entries as stored, its package document,
 * its spine's content documents parsed as XML (a malformed one fails the test), and the text a reader sees, block by
 * block; and the same blocks read from the Markdown export, to compare the two. Also the peers that judge an EPUB:
 * Debian's epubcheck and calibre's ebook-convert.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';
import { readZipEntries, type ZipEntry } from '../helpers.js';

export const XHTML_NS = 'http://www.w3.org/1999/xhtml';
export const EPUB_NS = 'http://www.idpf.org/2007/ops';
const OPF_NS = 'http://www.idpf.org/2007/opf';
const DC_NS = 'http://purl.org/dc/elements/1.1/';

/** Parse XML strictly: any error (not a warning) fails. */
export function parseXml(text: string, mimeType: 'application/xhtml+xml' | 'text/xml' = 'text/xml'): Document {
  return new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`XML ${level}: ${message}`);
    },
  }).parseFromString(text, mimeType);
}

export function elements(parent: Document | Element, ns: string, name: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(ns, name));
}

export function epubType(element: Element): string {
  return element.getAttributeNS(EPUB_NS, 'type') ?? '';
}

/** An EPUB opened: its entries, package document, metadata and spine. */
export interface OpenedEpub {
  entries: ZipEntry[];
  /** A file's text by its path in the zip. */
  text(name: string): string;
  has(name: string): boolean;
  /** The package document's folder in the zip (`OEBPS`). */
  root: string;
  opf: Document;
  titles: string[];
  languages: string[];
  creators: string[];
  identifier: string;
  /** Manifest items by id: their path in the zip, media type and properties. */
  items: Map<string, { path: string; mediaType: string; properties: string }>;
  /** The content documents in reading order, by their path in the zip. */
  spine: string[];
  /** A content document, parsed. */
  doc(path: string): Document;
  /** The navigation document's path. */
  nav: string;
}

export async function openEpub(path: string): Promise<OpenedEpub> {
  const entries = await readZipEntries(path);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const text = (name: string): string => {
    const entry = byName.get(name);
    if (!entry) throw new Error(`${name} is not in the EPUB`);
    return entry.data.toString('utf8');
  };
  const container = parseXml(text('META-INF/container.xml'));
  const opfPath = container.getElementsByTagName('rootfile')[0].getAttribute('full-path') as string;
  const root = posix.dirname(opfPath);
  const opf = parseXml(text(opfPath));
  const dc = (name: string): string[] => elements(opf, DC_NS, name).map((e) => e.textContent ?? '');
  const items = new Map(
    elements(opf, OPF_NS, 'item').map((item) => [
      item.getAttribute('id') as string,
      {
        path: posix.join(root, item.getAttribute('href') as string),
        mediaType: item.getAttribute('media-type') as string,
        properties: item.getAttribute('properties') ?? '',
      },
    ]),
  );
  const spine = elements(opf, OPF_NS, 'itemref').map((ref) => items.get(ref.getAttribute('idref') as string)?.path as string);
  const parsed = new Map<string, Document>();
  const doc = (name: string): Document => {
    if (!parsed.has(name)) parsed.set(name, parseXml(text(name), 'application/xhtml+xml'));
    return parsed.get(name) as Document;
  };
  const nav = [...items.values()].find((i) => i.properties.split(' ').includes('nav'))?.path as string;
  return {
    entries,
    text,
    has: (name) => byName.has(name),
    root,
    opf,
    titles: dc('title'),
    languages: dc('language'),
    creators: dc('creator'),
    identifier: dc('identifier')[0],
    items,
    spine,
    doc,
    nav,
  };
}

const squeeze = (text: string): string => text.replace(/\s+/gu, ' ').trim();

/** The text a reader sees in an element: note calls and page-break markers left out, line breaks as spaces. */
export function readerText(node: Node): string {
  let out = '';
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === child.TEXT_NODE) out += child.nodeValue ?? '';
    else if (child.nodeType === child.ELEMENT_NODE) {
      const element = child as Element;
      if (epubType(element) === 'noteref' || epubType(element) === 'pagebreak') continue;
      if (element.localName === 'sup' && elements(element, XHTML_NS, 'a').some((a) => epubType(a) === 'noteref')) continue;
      out += element.localName === 'br' ? ' ' : readerText(element);
    }
  }
  return out;
}

/** The EPUB's text, block by block in reading order (headings, paragraphs, side notes), footnotes and cover aside. */
export function epubTextBlocks(epub: OpenedEpub): string[] {
  const blocks: string[] = [];
  for (const path of epub.spine) {
    const body = epub.doc(path).getElementsByTagNameNS(XHTML_NS, 'body')[0];
    if (body.getAttribute('class') === 'cover') continue;
    const walk = (parent: Element): void => {
      for (const child of Array.from(parent.childNodes)) {
        if (child.nodeType !== child.ELEMENT_NODE) continue;
        const element = child as Element;
        const name = element.localName;
        if (name === 'section') walk(element);
        else if (name === 'aside' && epubType(element) === 'footnote') continue;
        else if (['h1', 'h2', 'h3', 'p', 'aside'].includes(name ?? '')) blocks.push(squeeze(readerText(element)));
      }
    };
    walk(body);
  }
  return blocks;
}

/** The EPUB's footnotes: their id and text, the number that opens them left out. */
export function epubFootnotes(epub: OpenedEpub): Map<string, string> {
  const notes = new Map<string, string>();
  for (const path of epub.spine) {
    for (const aside of elements(epub.doc(path), XHTML_NS, 'aside').filter((a) => epubType(a) === 'footnote')) {
      const back = aside.getElementsByTagNameNS(XHTML_NS, 'a')[0] ?? aside.getElementsByTagNameNS(XHTML_NS, 'span')[0];
      const marker = back ? (back.textContent ?? '') : '';
      notes.set(aside.getAttribute('id') as string, squeeze(readerText(aside)).slice(squeeze(marker).length).trim());
    }
  }
  return notes;
}

/** Markdown's escapes undone (`\*` → `*`), calls dropped. */
function markdownText(text: string): string {
  return squeeze(
    text
      .replace(/(?<!\\)\[\^[^\]\s]+\]/gu, '')
      .replace(/\\\n/gu, ' ')
      .replace(/\\([!-/:-@[-`{-~])/gu, '$1'),
  );
}

/** The Markdown's text, block by block: page markers and footnote definitions left out, heading and quote marks off. */
export function markdownTextBlocks(markdown: string): string[] {
  return (
    markdown
      .split(/\n{2,}/u)
      // Comments are not read: page markers, and the fences of an apparatus.
      .map((b) => b.replace(/^<!--.*-->$/gmu, '').trim())
      .filter((b) => b !== '' && !/^\[\^[^\]]+\]: /u.test(b))
      .map((b) => markdownText(b.replace(/^#{1,3} /u, '').replace(/^> /u, '')))
  );
}

/** The Markdown's footnote definitions: label → text. */
export function markdownFootnotes(markdown: string): Map<string, string> {
  const notes = new Map<string, string>();
  for (const block of markdown.split(/\n{2,}/u)) {
    const m = /^\[\^([^\]]+)\]: ([\s\S]*)$/u.exec(block.trim());
    if (m) notes.set(m[1], markdownText(m[2]));
  }
  return notes;
}

/** The Markdown's headings, in order. */
export function markdownHeadings(markdown: string): string[] {
  return markdown
    .split(/\n{2,}/u)
    .filter((b) => /^#{1,3} /u.test(b))
    .map((b) => markdownText(b.replace(/^#{1,3} /u, '')));
}

/** Debian's epubcheck (a jar: run with `java -jar`, since a container may lack the binfmt hook that runs it directly). */
const EPUBCHECK = '/usr/bin/epubcheck';

export function hasEpubcheck(): boolean {
  return existsSync(EPUBCHECK) && existsSync('/usr/bin/java');
}

export interface EpubcheckMessage {
  ID: string;
  severity: 'FATAL' | 'ERROR' | 'WARNING' | 'USAGE' | 'INFO' | 'SUPPRESSED';
  message: string;
  locations: { path: string; line: number; column: number }[];
}

/**
 * epubcheck's report on each EPUB, one Java process per file, run side by side; a JIT for short runs, since a check
 * is over in seconds. Resolves with each file's messages and exit code.
 */
export async function epubcheck(paths: string[]): Promise<{ path: string; code: number; messages: EpubcheckMessage[] }[]> {
  const run = promisify(execFile);
  const jar = realpathSync(EPUBCHECK);
  return Promise.all(
    paths.map(async (path) => {
      const report = join(dirname(path), `${Math.random().toString(36).slice(2)}.epubcheck.json`);
      let code = 0;
      try {
        await run('java', ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', jar, path, '--json', report], { maxBuffer: 1 << 24 });
      } catch (e) {
        code = typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1;
      }
      const messages = existsSync(report) ? ((JSON.parse(readFileSync(report, 'utf8')) as { messages: EpubcheckMessage[] }).messages ?? []) : [];
      return { path, code, messages };
    }),
  );
}

/** Messages a clean EPUB has none of. */
export function problems(messages: EpubcheckMessage[]): string[] {
  return messages
    .filter((m) => m.severity === 'FATAL' || m.severity === 'ERROR' || m.severity === 'WARNING')
    .map((m) => `${m.severity} ${m.ID} ${m.message} ${m.locations.map((l) => `${l.path}:${l.line}:${l.column}`).join(' ')}`);
}
