// Build step: copy the files tsc does not emit (the server's SQL migrations) into dist/, and assemble the imaging
// kernels' WebAssembly text (src/imaging/kernels.wat) into dist/imaging/kernels.wasm.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabt from 'wabt';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src', 'server', 'sql'), join(root, 'dist', 'server', 'sql'), { recursive: true });

const text = join(root, 'src', 'imaging', 'kernels.wat');
const module = (await wabt()).parseWat('kernels.wat', readFileSync(text, 'utf8'), { simd: true, bulk_memory: true });
writeFileSync(join(root, 'dist', 'imaging', 'kernels.wasm'), module.toBinary({}).buffer);
module.destroy();
