#!/usr/bin/env node
// Write registry/index.json: one entry per registry/destinations/<slug>/ with the sha256 and size
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

function entryFor(slug) {
  const dir = join(root, 'destinations', slug);
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
    path: ['destinations', slug].join('/'),
    files: filesUnder(dir).map((file) => {
      const bytes = readFileSync(join(dir, ...file.split('/')));
      return { path: file.split(sep).join('/'), sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    }),
  };
}

const destinationsDir = join(root, 'destinations');
const slugs = existsSync(destinationsDir) ? readdirSync(destinationsDir).filter((n) => !n.startsWith('.') && statSync(join(destinationsDir, n)).isDirectory()).sort() : [];
const index = { format: 'quire-plugin-registry', version: 1, destinations: slugs.map(entryFor) };
const text = `${JSON.stringify(index, null, 2)}\n`;
const target = join(root, 'index.json');

if (check) {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current !== text) {
    process.stderr.write(`${relative(process.cwd(), target) || target} is stale: run node scripts/build-registry-index.mjs\n`);
    process.exit(1);
  }
  process.stdout.write(`${relative(process.cwd(), target) || target} is current (${slugs.length} destination${slugs.length === 1 ? '' : 's'})\n`);
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${relative(process.cwd(), target) || target}: ${slugs.join(', ') || 'no destinations'}\n`);
}
