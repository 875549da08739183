// The README and docs/ as a newcomer reads them from a clone: every relative link (and image) leads to a file of the
// repository, every #anchor to a heading of its page, and the README stays a front door of one screenful or so.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

interface Link {
  file: string;
  line: number;
  target: string;
}

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  return [
    join(ROOT, 'README.md'),
    ...readdirSync(docs)
      .filter((n) => n.endsWith('.md'))
      .map((n) => join(docs, n)),
  ];
}

/** Links and images outside code (fenced blocks and `code spans` show paths, they do not link to them). */
export function linksOf(text: string, file: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  for (const [i, raw] of text.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    if (fenced) continue;
    // A code span inside a link's text (`[`x`](y)`) leaves the link; a link-like text inside a code span is dropped.
    const line = raw.replace(/`[^`]*`/g, (span) => (/\]\(/.test(span) ? '' : 'code'));
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line: i + 1, target: m[1] });
  }
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link, or null. */
function brokenReason(link: Link): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return null; // https:, mailto: — not ours to check offline
  const [path, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const target = path === '' ? link.file : resolve(dirname(link.file), decodeURIComponent(path));
  const inside = relative(ROOT, target);
  if (inside.startsWith('..') || resolve(ROOT, inside) !== target) return 'leads outside the repository';
  if (!existsSync(target)) return 'leads to no file';
  if (anchor !== undefined) {
    if (!statSync(target).isFile() || !target.endsWith('.md')) return 'has an anchor on a page that is not Markdown';
    if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) return `has #${anchor}, which no heading of ${relative(ROOT, target)} makes`;
  }
  return null;
}

describe('README and docs', () => {
  it('link only to files of the repository, and anchors to headings that exist', () => {
    const broken = markdownFiles()
      .flatMap((file) => linksOf(readFileSync(file, 'utf8'), file))
      .map((link) => ({ link, why: brokenReason(link) }))
      .filter((b) => b.why !== null)
      .map(({ link, why }) => `${relative(ROOT, link.file)}:${link.line}: ${link.target} ${why}`);
    expect(broken).toEqual([]);
  });

  it('README is a front door: at most 300 lines, linking every docs page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const linked = new Set(linksOf(readme, join(ROOT, 'README.md')).map((l) => l.target.split('#')[0]));
    const pages = ['cli', 'ocr-and-text', 'markdown-and-epub', 'server', 'web-app', 'plugins', 'bundle-format', 'benchmarks', 'architecture'];
    expect(pages.filter((p) => !linked.has(`docs/${p}.md`))).toEqual([]);
  });

  it('the checker finds what a broken page would hold', () => {
    const file = join(ROOT, 'docs', 'example.md');
    const text = [
      '# A page',
      '[up](../../shared/DESIGN.md) [gone](nowhere.md) [fine](cli.md#pipelines)',
      '`[not a link](x.md)`',
      '```',
      '[in code](y.md)',
      '```',
      '[bad anchor](cli.md#no-such-heading)',
    ].join('\n');
    const reasons = linksOf(text, file).map((l) => `${l.target}: ${brokenReason(l)}`);
    expect(reasons).toEqual([
      '../../shared/DESIGN.md: leads outside the repository',
      'nowhere.md: leads to no file',
      'cli.md#pipelines: null',
      'cli.md#no-such-heading: has #no-such-heading, which no heading of docs/cli.md makes',
    ]);
    expect(anchorsOf('## `--json`: one object per document\n## Exports (`--export`)\n## A\n## A')).toEqual(
      new Set(['--json-one-object-per-document', 'exports---export', 'a', 'a-1']),
    );
  });
});
