/**
 * Builds the page (`src/web/ui/`) into `dist/web/ui/`, which `quire gui` serves: no CDN, no web
 * fonts, everything in the package. `npm run build` runs it after tsc.
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [preact({ prerender: { enabled: false } })],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../../dist/web/ui/', import.meta.url)),
    // The folder sits outside Vite's root; it is the build's own, so it starts empty.
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
