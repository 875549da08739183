/**
 * The built page (`dist/web/ui/`, made by Vite from `src/web/ui/`): read once at start and served
 * from memory. Only files the build wrote are served, by exact name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `dist/web/ui/` of this package, from `src/web/` and from `dist/web/` alike. */
export function defaultUiDir(): string {
  return fileURLToPath(new URL('../../dist/web/ui/', import.meta.url));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

export interface UiFile {
  body: Buffer;
  type: string;
}

/** Every file of the build by its URL path (`/`, `/assets/index-abc.js`); empty when it was not built. */
export function loadUi(dir: string): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const type = TYPES[extname(name).toLowerCase()];
      if (!type) continue;
      const url = `/${relative(dir, path).split(sep).join('/')}`;
      // The page and what Vite put in assets/; nothing else that may sit in the folder.
      if (url === '/index.html') files.set('/', { body: readFileSync(path), type });
      else if (url.startsWith('/assets/') || url === '/favicon.svg') files.set(url, { body: readFileSync(path), type });
    }
  };
  walk(dir);
  return files;
}
