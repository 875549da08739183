// The shape of src/: data flows one way (ingest → pipeline → ocr → export → send), each folder is entered only
// through its index.ts, and no folder reaches up to a layer above it. This walks every source file and fails on
// the first import that breaks one of those rules, naming it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');

/**
 * Lowest first. A folder may import folders of lower layers only; folders of one layer do not import each other.
 * Root files (`errors.ts`, `version.ts`) are the ground under everything; `index` is the package's own entry.
 */
const LAYERS: string[][] = [
  ['errors', 'version', 'plugin-api'],
  ['util'],
  ['project'],
  ['imaging', 'settings'],
  ['ingest'],
  ['pipeline'],
  ['ocr'],
  ['export'],
  ['plugins'],
  ['convert'],
  ['http'],
  ['server', 'web'],
  ['cli'],
  ['index'],
];

const layerOf = new Map(LAYERS.flatMap((names, level) => names.map((name) => [name, level] as const)));

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

  it('places every top-level folder and root file in a layer', () => {
    const units = new Set(edges.flatMap((e) => [unitOf(e.file), unitOf(e.target)]));
    const unplaced = [...units].filter((u) => !layerOf.has(u));
    expect(unplaced, 'add new folders to LAYERS in test/architecture.test.ts and to docs/architecture.md').toEqual([]);
  });

  it('enters another folder only through its index.ts', () => {
    const bypassing = crossing.filter((e) => e.target.includes('/') && !e.target.endsWith('/index.ts'));
    expect(bypassing.map(where)).toEqual([]);
  });

  it('imports only from lower layers (no import runs back up, no two folders of one layer lean on each other)', () => {
    const upward = crossing.filter((e) => (layerOf.get(unitOf(e.target)) ?? Infinity) >= (layerOf.get(unitOf(e.file)) ?? -1));
    expect(upward.map(where)).toEqual([]);
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
