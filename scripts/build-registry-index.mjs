#!/usr/bin/env node
// Write registry/index.json: one entry per registry/{destinations,processors,ocr}/<slug>/ with the sha256 and size
// of every file, read from the plugin's quire-plugin.toml. Entries in this repository are ours,
// so they carry first_party: true. The output has no timestamp, so it only changes when a file does.
//
//   node scripts/build-registry-index.mjs [registry-folder]     (default: ./registry)
//   node scripts/build-registry-index.mjs --check [folder]      (exit 1 when index.json is stale)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';

const args = process.argv.slice(2);
const check = args.includes('--check');
const root = resolve(args.find((a) => !a.startsWith('--')) ?? join(fileURLToPath(new URL('..', import.meta.url)), 'registry'));

/** Every regular file under `dir`, sorted, as paths relative to it with `/`; dot-files left out. */
function filesUnder(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) found.push(...filesUnder(path).map((p) => `${name}/${p}`));
    else if (stat.isFile()) found.push(name);
  }
  return found;
}

function entryFor(folder, slug) {
  const dir = join(root, folder, slug);
  const manifestPath = join(dir, 'quire-plugin.toml');
  if (!existsSync(manifestPath)) throw new Error(`${relative(process.cwd(), dir)} has no quire-plugin.toml`);
  const manifest = parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.slug !== slug) throw new Error(`${slug}: its manifest names the slug "${manifest.slug}"; the directory decides`);
  return {
    slug,
    name: String(manifest.name ?? slug),
    version: String(manifest.version ?? ''),
    description: String(manifest.description ?? ''),
    api: Number(manifest.requires?.api ?? 0),
    first_party: true,
    ...(folder === 'destinations' ? {} : { kind: String(manifest.kind ?? '') }),
    path: [folder, slug].join('/'),
    files: filesUnder(dir).map((file) => {
      const bytes = readFileSync(join(dir, ...file.split('/')));
      return { path: file.split(sep).join('/'), sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    }),
  };
}

/** The plugin folders under `registry/<folder>/`, sorted. */
function slugsIn(folder) {
  const dir = join(root, folder);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory())
        .sort()
    : [];
}
const lists = { destinations: slugsIn('destinations'), processors: slugsIn('processors'), ocr: slugsIn('ocr') };
const slugs = [...lists.destinations, ...lists.processors, ...lists.ocr];
const index = {
  format: 'quire-plugin-registry',
  version: 1,
  destinations: lists.destinations.map((slug) => entryFor('destinations', slug)),
  processors: lists.processors.map((slug) => entryFor('processors', slug)),
  ocr: lists.ocr.map((slug) => entryFor('ocr', slug)),
};
const text = `${JSON.stringify(index, null, 2)}\n`;
const target = join(root, 'index.json');

if (check) {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current !== text) {
    process.stderr.write(`${relative(process.cwd(), target) || target} is stale: run node scripts/build-registry-index.mjs\n`);
    process.exit(1);
  }
  process.stdout.write(`${relative(process.cwd(), target) || target} is current (${slugs.length} plugin${slugs.length === 1 ? '' : 's'})\n`);
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${relative(process.cwd(), target) || target}: ${slugs.join(', ') || 'no plugins'}\n`);
}
