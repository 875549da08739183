// The package root (`import … from 'quire'`) is the surface an embedder relies on: docs/architecture.md lists it, and
// a name added or dropped here is a change for them, made on purpose.
import { describe, expect, it } from 'vitest';
import * as quire from '../src/index.js';

describe("the package's public surface", () => {
  it('exports the verbs, registries, errors and version named in docs/architecture.md, nothing else', () => {
    expect(Object.keys(quire).sort()).toEqual(
      [
        'API_VERSION',
        'cancelProjectOcr',
        'checkConversions',
        'checkProjectOcr',
        'convert',
        'describeOcrEngines',
        'ERROR_CODES',
        'isQuireError',
        'languageName',
        'listExports',
        'PRESETS',
        'QuireError',
        'VERSION',
      ].sort(),
    );
  });

  it('lists what the registries hold for an embedder', () => {
    expect(quire.listExports().map((e) => e.name)).toEqual(expect.arrayContaining(['pdf', 'md', 'epub']));
    expect(Object.keys(quire.PRESETS)).toEqual(expect.arrayContaining(['book', 'sheet', 'flat']));
  });
});
