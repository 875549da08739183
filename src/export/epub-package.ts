/**
 * The `epub` export's package: the content documents with the files EPUB 3 asks around them (the container, the
 * package document with the metadata, manifest and spine, the navigation document with the table of contents, page
 * list and landmarks, an NCX table of contents for EPUB 2 reading systems, a stylesheet, a cover page), zipped the
 * way EPUB requires — `mimetype` first, stored, without extra fields — and reproducibly: fixed timestamps, a fixed
 * file order, and an identifier made from the content, so the same document gives the same bytes.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { replaceAtomically } from '../project/index.js';
import { escapeXml, xhtmlDocument, type EpubContent, type TocEntry } from './epub-content.js';

/** An image in the package, beside the content documents (`images/cover.jpg`). */
export interface EpubImage {
  href: string;
  mediaType: 'image/jpeg' | 'image/png';
  data: Buffer;
}

export interface EpubBook {
  title: string;
  /** Authors in order; none when unknown. */
  authors: string[];
  /** BCP-47 tags, the main language first; at least one. */
  languages: string[];
  content: EpubContent;
  /** The cover image, made from the first page. */
  cover?: EpubImage;
  /** The figures' images. */
  images: EpubImage[];
  /** `dcterms:modified`, `YYYY-MM-DDThh:mm:ssZ`. */
  modified: string;
}

/** One file of the EPUB zip, by its path in the zip. */
export interface EpubFile {
  name: string;
  data: Buffer;
}

/** Where the publication's files live in the zip. */
const ROOT = 'OEBPS';
const STYLESHEET = 'style.css';

/**
 * The default stylesheet: justified, hyphenated text with indented paragraphs, notes and side notes smaller, headings
 * centred and kept with what follows. Reading systems let their reader override fonts and margins.
 */
const CSS = `@charset "UTF-8";
body { margin: 0; }
p { margin: 0; text-indent: 1.5em; text-align: justify; -webkit-hyphens: auto; -epub-hyphens: auto; hyphens: auto; }
h1, h2, h3 { text-align: center; text-indent: 0; -webkit-hyphens: manual; -epub-hyphens: manual; hyphens: manual; page-break-after: avoid; break-after: avoid; }
h1 { font-size: 1.6em; margin: 2em 0 1em; }
h2 { font-size: 1.3em; margin: 1.5em 0 0.8em; }
h3 { font-size: 1.1em; margin: 1.2em 0 0.6em; }
h1 + p, h2 + p, h3 + p, figure + p, aside + p { text-indent: 0; }
sup { font-size: 0.7em; line-height: 0; vertical-align: super; }
a.noteref { text-decoration: none; }
aside.footnote, p.note { font-size: 0.85em; margin: 0.5em 0; }
aside.footnote p { text-indent: 0; }
a.noteback, span.noteback { font-weight: bold; text-decoration: none; }
aside.sidenote { font-size: 0.85em; font-style: italic; margin: 0.6em 0 0.6em 2em; }
aside.sidenote p { text-indent: 0; text-align: left; }
aside.apparatus p { font-size: 0.8em; text-indent: 0; text-align: left; margin: 0.5em 0; }
span.margin-ref { font-size: 0.75em; color: #666; }
figure { margin: 1em 0; text-align: center; page-break-inside: avoid; break-inside: avoid; }
figure img { max-width: 100%; }
body.cover { margin: 0; padding: 0; text-align: center; }
body.cover img { max-width: 100%; max-height: 100%; }
nav ol { list-style-type: none; }
`;

/** "Contents" in the languages Quire reads out of the box; English otherwise. */
const CONTENTS: Record<string, string> = {
  en: 'Contents',
  fr: 'Table des matières',
  de: 'Inhalt',
  es: 'Índice',
  it: 'Indice',
  pt: 'Índice',
  la: 'Index',
  el: 'Περιεχόμενα',
};

/** A stable `urn:uuid:` made from the book's content (an RFC 9562 version 8 UUID from its SHA-256). */
function contentIdentifier(book: EpubBook, parts: readonly EpubFile[]): string {
  const hash = createHash('sha256');
  hash.update(book.title);
  for (const part of parts) hash.update(part.name).update(part.data);
  const bytes = hash.digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface TocNode {
  entry: TocEntry;
  children: TocNode[];
}

/** Headings as a tree: each under the nearest heading above it of a higher level. */
function tocTree(entries: readonly TocEntry[]): TocNode[] {
  const roots: TocNode[] = [];
  const stack: TocNode[] = [];
  for (const entry of entries) {
    const node = { entry, children: [] };
    while (stack.length > 0 && stack[stack.length - 1].entry.level >= entry.level) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  }
  return roots;
}

function navList(nodes: readonly TocNode[], indent: string): string {
  const items = nodes.map((n) => {
    const link = `<a href="${escapeXml(n.entry.href)}">${escapeXml(n.entry.label)}</a>`;
    return n.children.length ? `${indent}  <li>${link}\n${navList(n.children, `${indent}    `)}\n${indent}  </li>` : `${indent}  <li>${link}</li>`;
  });
  return `${indent}<ol>\n${items.join('\n')}\n${indent}</ol>`;
}

function ncxPoints(nodes: readonly TocNode[], order: { n: number }, indent: string): string {
  return nodes
    .map((node) => {
      const n = ++order.n;
      const inner = node.children.length ? `\n${ncxPoints(node.children, order, `${indent}  `)}` : '';
      return `${indent}<navPoint id="nav-${n}" playOrder="${n}"><navLabel><text>${escapeXml(node.entry.label)}</text></navLabel><content src="${escapeXml(node.entry.href)}"/>${inner}${inner ? `\n${indent}` : ''}</navPoint>`;
    })
    .join('\n');
}

function depth(nodes: readonly TocNode[]): number {
  return nodes.reduce((d, n) => Math.max(d, 1 + depth(n.children)), 0);
}

/** Every file of the EPUB, in zip order (`mimetype` first). */
export function epubFiles(book: EpubBook): EpubFile[] {
  const { content } = book;
  const language = book.languages[0];
  const first = content.chapters[0]?.file ?? 'chapter-1.xhtml';
  // A document with no heading still has one entry: its title, at its start.
  const toc = content.toc.length > 0 ? content.toc : [{ label: book.title, href: first, level: 1 as const }];
  const tree = tocTree(toc);
  const contents = CONTENTS[language.split('-')[0]] ?? CONTENTS.en;

  const navBody = [
    `<nav epub:type="toc" role="doc-toc" id="toc">`,
    `<h1>${escapeXml(contents)}</h1>`,
    navList(tree, ''),
    '</nav>',
    ...(content.pages.length > 0
      ? [
          '<nav epub:type="page-list" role="doc-pagelist" id="page-list" hidden="hidden">',
          '<ol>',
          ...content.pages.map((p) => `  <li><a href="${escapeXml(p.href)}">${escapeXml(p.label)}</a></li>`),
          '</ol>',
          '</nav>',
        ]
      : []),
    '<nav epub:type="landmarks" id="landmarks" hidden="hidden">',
    '<ol>',
    ...(book.cover ? ['  <li><a epub:type="cover" href="cover.xhtml">Cover</a></li>'] : []),
    `  <li><a epub:type="bodymatter" href="${escapeXml(first)}">${escapeXml(book.title)}</a></li>`,
    '</ol>',
    '</nav>',
  ].join('\n');
  const nav = xhtmlDocument(contents, language, STYLESHEET, navBody);
  const cover = book.cover
    ? xhtmlDocument(
        book.title,
        language,
        STYLESHEET,
        `<section epub:type="cover"><img src="${escapeXml(book.cover.href)}" alt="${escapeXml(book.title)}"/></section>`,
        ' class="cover"',
      )
    : undefined;

  const parts: EpubFile[] = [
    { name: 'nav.xhtml', data: Buffer.from(nav) },
    { name: STYLESHEET, data: Buffer.from(CSS) },
    ...(cover && book.cover
      ? [
          { name: 'cover.xhtml', data: Buffer.from(cover) },
          { name: book.cover.href, data: book.cover.data },
        ]
      : []),
    ...content.chapters.map((c) => ({ name: c.file, data: Buffer.from(c.xhtml) })),
    ...book.images.map((image) => ({ name: image.href, data: image.data })),
  ];
  const identifier = contentIdentifier(book, parts);

  const itemId = (href: string): string => href.replace(/\.[a-z]+$/, '').replace(/[^A-Za-z0-9_-]/g, '-');
  const lang = escapeXml(language);
  const manifest = [
    '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>',
    `<item id="style" href="${STYLESHEET}" media-type="text/css"/>`,
    ...(book.cover
      ? [
          `<item id="cover-image" href="${escapeXml(book.cover.href)}" media-type="${book.cover.mediaType}" properties="cover-image"/>`,
          '<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>',
        ]
      : []),
    ...content.chapters.map((c) => `<item id="${itemId(c.file)}" href="${escapeXml(c.file)}" media-type="application/xhtml+xml"/>`),
    ...book.images.map((image) => `<item id="${itemId(image.href)}" href="${escapeXml(image.href)}" media-type="${image.mediaType}"/>`),
  ];
  const spine = [...(book.cover ? ['<itemref idref="cover"/>'] : []), ...content.chapters.map((c) => `<itemref idref="${itemId(c.file)}"/>`)];
  const opf = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${lang}">`,
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">',
    `<dc:identifier id="book-id">${identifier}</dc:identifier>`,
    `<dc:title id="title">${escapeXml(book.title)}</dc:title>`,
    ...book.authors.flatMap((author, i) => [
      `<dc:creator id="creator-${i + 1}">${escapeXml(author)}</dc:creator>`,
      `<meta refines="#creator-${i + 1}" property="role" scheme="marc:relators">aut</meta>`,
    ]),
    ...book.languages.map((l) => `<dc:language>${escapeXml(l)}</dc:language>`),
    `<meta property="dcterms:modified">${book.modified}</meta>`,
    // EPUB 2 reading systems find the cover this way.
    ...(book.cover ? ['<meta name="cover" content="cover-image"/>'] : []),
    '</metadata>',
    '<manifest>',
    ...manifest,
    '</manifest>',
    '<spine toc="ncx">',
    ...spine,
    '</spine>',
    '</package>',
    '',
  ].join('\n');

  const ncx = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="${lang}">`,
    '<head>',
    `<meta name="dtb:uid" content="${identifier}"/>`,
    `<meta name="dtb:depth" content="${depth(tree)}"/>`,
    '<meta name="dtb:totalPageCount" content="0"/>',
    '<meta name="dtb:maxPageNumber" content="0"/>',
    '</head>',
    `<docTitle><text>${escapeXml(book.title)}</text></docTitle>`,
    '<navMap>',
    ncxPoints(tree, { n: 0 }, ''),
    '</navMap>',
    '</ncx>',
    '',
  ].join('\n');

  const container = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">',
    `<rootfiles><rootfile full-path="${ROOT}/package.opf" media-type="application/oebps-package+xml"/></rootfiles>`,
    '</container>',
    '',
  ].join('\n');

  return [
    { name: 'mimetype', data: Buffer.from('application/epub+zip') },
    { name: 'META-INF/container.xml', data: Buffer.from(container) },
    { name: `${ROOT}/package.opf`, data: Buffer.from(opf) },
    { name: `${ROOT}/toc.ncx`, data: Buffer.from(ncx) },
    ...parts.map((p) => ({ name: `${ROOT}/${p.name}`, data: p.data })),
  ];
}

/** Zip the files to `path` (all or nothing): `mimetype` stored, the rest deflated; returns the size written. */
export async function writeEpubZip(files: readonly EpubFile[], path: string): Promise<number> {
  return replaceAtomically(path, async (temp) => {
    const zip = new (await import('yazl')).default.ZipFile();
    // yazl writes DOS timestamps in local time: a date made now in local time reads the same in every zone.
    const date = new Date(2000, 0, 1, 0, 0, 0);
    for (const file of files) {
      // Images are compressed already.
      const compress = file.name !== 'mimetype' && !/\.(jpe?g|png)$/i.test(file.name);
      zip.addBuffer(file.data, file.name, { mtime: date, mode: 0o100644, compress, forceDosTimestamp: true });
    }
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(temp));
    return (await stat(temp)).size;
  });
}
