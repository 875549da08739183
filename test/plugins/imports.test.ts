import { describe, expect, it } from 'vitest';
import { rewriteApiImports, scanImports } from '../../src/plugins/imports.js';

const specifiers = (source: string): string[] => scanImports(source).imports.map((i) => i.specifier);

describe('the static import check', () => {
  it('finds every form of import', () => {
    const source = [
      "import { Destination } from 'quire/plugin-api';",
      'import fs, { readFile } from "node:fs";',
      "import * as path from 'node:path'",
      "import 'node:url';",
      "export { x } from 'node:util';",
      "export * from 'node:buffer';",
      "const z = await import('node:zlib');",
      'import {',
      '  a,',
      '  b',
      "} from 'node:crypto';",
    ].join('\n');
    expect(specifiers(source)).toEqual(['quire/plugin-api', 'node:fs', 'node:path', 'node:url', 'node:util', 'node:buffer', 'node:zlib', 'node:crypto']);
    expect(scanImports(source).problems).toEqual([]);
  });

  it('is not fooled by strings, comments, templates or regular expressions', () => {
    const source = [
      "// import x from 'child_process'",
      "/* import('child_process') */",
      'const s = "import x from \'child_process\'";',
      "const t = `import ${'x'} from 'child_process' ${ { a: 1 }.a }`;",
      "const r = /import ('child_process')/;",
      'const d = 4 / 2 / 1;',
      'const o = { import: 1 }.import;',
      "import { Destination } from 'quire/plugin-api';",
    ].join('\n');
    expect(specifiers(source)).toEqual(['quire/plugin-api']);
    expect(scanImports(source).problems).toEqual([]);
  });

  it('refuses anything but the API and harmless built-ins, and hidden ways round it', () => {
    const problems = (source: string): string[] => scanImports(source).problems;
    expect(problems("import { spawn } from 'child_process';")).toEqual([
      'it imports "child_process", and a plugin may import only quire/plugin-api and harmless Node built-ins',
    ]);
    expect(problems("import 'node:worker_threads';")[0]).toMatch(/worker_threads/);
    expect(problems("import x from './helper.js';")[0]).toMatch(/"\.\/helper\.js"/);
    expect(problems("import x from 'lodash';")[0]).toMatch(/lodash/);
    expect(problems("const m = 'child' + '_process'; await import(m);")).toEqual(['it imports a module whose name is computed at run time']);
    expect(problems("const cp = process.getBuiltinModule('child_process');")[0]).toMatch(/getBuiltinModule/);
    expect(problems("const r = require('fs');")[0]).toMatch(/require\(\)/);
    expect(problems("import x from 'child\\u005fprocess';")[0]).toMatch(/imports "child\\u/);
    // Dynamic tricks: a computed member of process or globalThis, and code made from text.
    expect(problems("const net = process['getBuiltin' + 'Module']('net');")).toEqual(['it reaches into process by a computed name, which hides what it uses']);
    expect(problems("globalThis['fe' + 'tch']('http://x');")[0]).toMatch(/globalThis by a computed name/);
    expect(problems("eval('1');")[0]).toMatch(/builds code from text/);
    expect(problems("new Function('return process')();")[0]).toMatch(/builds code from text/);
    expect(problems("''.constructor.constructor('return this')();")[0]).toMatch(/builds code from text/);
    // Ordinary code that merely looks alike stays allowed.
    expect(problems('const o = { process: 1 }; o.process; const a = [1]; a[0]; x.eval; const F = Function.prototype;')).toEqual([]);
  });

  it('rewrites only the API specifier, to the host module URL', () => {
    const source = "import { Destination } from 'quire/plugin-api';\nimport fs from 'node:fs';\nconst s = 'quire/plugin-api';\n";
    const out = rewriteApiImports(source, scanImports(source).imports, 'file:///opt/quire/dist/plugins/api/index.js');
    expect(out).toBe(
      "import { Destination } from \"file:///opt/quire/dist/plugins/api/index.js\";\nimport fs from 'node:fs';\nconst s = 'quire/plugin-api';\n",
    );
  });
});
