// Build step: copy the files tsc does not emit (the server's SQL migrations) into dist/.
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src', 'server', 'sql'), join(root, 'dist', 'server', 'sql'), { recursive: true });
