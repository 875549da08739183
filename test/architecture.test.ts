// The shape of src/: data flows one way (ingest → pipeline → ocr → export → send), each folder is entered only
// through its index.ts, and each folder imports only the folders named in the "imports" column of the module table in
// DESIGN.md (../shared/DESIGN.md; docs/architecture.md). This walks every source file and fails on the first import
// that breaks one of those rules, naming it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');

/**
 * The ground under every folder, importable by all: the typed errors and the version (root files), the plugin API
 * (which imports nothing of ours) and `util/` (pure helpers). DESIGN's table lists `errors` for a few rows only, yet
 * every layer raises a `QuireError`; it has no row for `version` and `util`.
 */
const GROUND = ['errors', 'version', 'plugin-api', 'util'];

/**
 * DESIGN.md's "imports" column, row by row from the ground up: what each folder (or root file) may import besides the
 * ground. Each row names only rows above it, so the table itself runs one way (checked below). Where the code needs an
 * import the table lacks, it is allowed here with the reason.
 */
const IMPORTS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['errors', []],
  ['version', []],
  ['plugin-api', []],
  ['util', ['plugin-api']],
  ['project', []],
  // Not in DESIGN: the crop of a grey image takes the document model's `Box` (a type only, nothing at run time).
  ['imaging', ['project']],
  ['settings', ['project']],
  ['ingest', ['project', 'imaging']],
  // Not in DESIGN: the pipeline's input is ingest's frame (`FrameImage`), decoded with its options (`frameSharp`).
  ['pipeline', ['project', 'imaging', 'ingest']],
  ['ocr', ['project', 'settings', 'imaging']],
  // Not in DESIGN: the PDF writer encodes page images and the figures are found in their pixels (imaging); the EPUB
  // names its languages (`languageTag`) and the structure reader checks hyphenated words in the lexicon (`openLexicon`).
  ['export', ['project', 'imaging', 'ocr']],
  // Not in DESIGN: plugins live under the app-data folder (`appDataDir`, project).
  ['plugins', ['settings', 'export', 'project']],
  ['convert', ['project', 'imaging', 'settings', 'ingest', 'pipeline', 'ocr', 'export', 'plugins']],
  ['http', []],
  ['server', ['convert', 'plugins', 'settings', 'project', 'http']],
  ['web', ['convert', 'plugins', 'settings', 'project', 'http']],
  ['cli', ['convert', 'plugins', 'settings', 'project', 'server', 'web']],
  // The package's own entry (`quire`): the public surface of an embedder: the verbs from convert, the types of its options and results.
  ['index', ['convert', 'project']],
];

const allowed = new Map(IMPORTS.map(([name, names]) => [name, new Set([...GROUND, ...names])]));
const rowOf = new Map(IMPORTS.map(([name], row) => [name, row]));

interface Edge {
  file: string;
  target: string;
  line: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import, re-export and dynamic import of a file, resolved to a path under src/. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of text.matchAll(pattern)) {
    const line = text.slice(0, m.index).split('\n').length;
    const target = resolve(dirname(file), m[1]).replace(/\.js$/, '.ts');
    edges.push({ file: relative(SRC, file), target: relative(SRC, target), line });
  }
  return edges;
}

/** The top-level folder (or root file, without extension) a path under src/ belongs to. */
function unitOf(path: string): string {
  const parts = path.split('/');
  return parts.length === 1 ? parts[0].replace(/\.tsx?$/, '') : parts[0];
}

const edges = sourceFiles(SRC).flatMap(importsOf);
const crossing = edges.filter((e) => unitOf(e.file) !== unitOf(e.target));
const where = (e: Edge): string => `${e.file}:${e.line} imports ${e.target}`;

describe('the architecture of src/', () => {
  it('finds the imports it checks (the walk itself works)', () => {
    expect(edges.length).toBeGreaterThan(200);
    expect(crossing.some((e) => e.file.startsWith('cli/') && e.target === 'convert/index.ts')).toBe(true);
  });

  it('places every top-level folder and root file in the table', () => {
    const units = new Set(edges.flatMap((e) => [unitOf(e.file), unitOf(e.target)]));
    const unplaced = [...units].filter((u) => !allowed.has(u));
    expect(unplaced, 'add new folders to IMPORTS in test/architecture.test.ts and to docs/architecture.md').toEqual([]);
  });

  it('has a table that runs one way (each row names only rows above it, the ground below all)', () => {
    const backwards = IMPORTS.flatMap(([name, names]) =>
      names.filter((n) => (rowOf.get(n) ?? Infinity) >= (rowOf.get(name) ?? -1)).map((n) => `${name} → ${n}`),
    );
    expect(backwards).toEqual([]);
    expect(GROUND.every((g) => (rowOf.get(g) ?? Infinity) < (rowOf.get('project') ?? -1))).toBe(true);
  });

  it('enters another folder only through its index.ts', () => {
    const bypassing = crossing.filter((e) => e.target.includes('/') && !e.target.endsWith('/index.ts'));
    expect(bypassing.map(where)).toEqual([]);
  });

  it('imports only the folders its row of the table names (the faces reach the engine through convert/)', () => {
    const outside = crossing.filter((e) => allowed.get(unitOf(e.file))?.has(unitOf(e.target)) !== true);
    expect(outside.map(where)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    const graph = new Map<string, string[]>();
    for (const e of edges) graph.set(e.file, [...(graph.get(e.file) ?? []), e.target]);
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (node: string, path: string[]): void => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
        return;
      }
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
