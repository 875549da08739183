import { describe, expect, it } from 'vitest';
import { isQuireError } from '../../src/errors.js';
import { ExportRegistry, listExports, parseExportList, pdfExporter, type Exporter } from '../../src/export/index.js';

function errorOf(spec: string, parse: (spec: string) => unknown = parseExportList): { code: string; message: string } {
  try {
    parse(spec);
  } catch (e) {
    if (isQuireError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error(`"${spec}" parsed without error`);
}

describe('parseExportList', () => {
  it('reads formats joined by + with shorthand and key=value options', () => {
    expect(parseExportList('pdf:g4+slim')).toEqual([
      { format: 'pdf', options: { profile: 'g4' } },
      { format: 'slim', options: {} },
    ]);
    expect(parseExportList('pdf:profile=jpeg')).toEqual([{ format: 'pdf', options: { profile: 'jpeg' } }]);
    expect(parseExportList('pdf')).toEqual([{ format: 'pdf', options: {} }]);
    expect(parseExportList('slim+pdf:auto')).toEqual([
      { format: 'slim', options: {} },
      { format: 'pdf', options: { profile: 'auto' } },
    ]);
  });

  it('forgives case and spaces around tokens', () => {
    expect(parseExportList(' PDF : Profile = JPEG + Slim ')).toEqual([
      { format: 'pdf', options: { profile: 'jpeg' } },
      { format: 'slim', options: {} },
    ]);
  });

  it('names the valid formats when one is unknown', () => {
    expect(errorOf('docx')).toEqual({ code: 'unknown_format', message: 'Unknown export format "docx"; valid formats are: pdf, md, epub, textpack, slim.' });
    expect(errorOf('pdf+docx').code).toBe('unknown_format');
  });

  it('lists the valid options or values when one is wrong', () => {
    const unknownOption = errorOf('pdf:quality=9');
    expect(unknownOption.code).toBe('usage');
    expect(unknownOption.message).toBe('Unknown pdf option "quality"; valid options are: profile=auto|g4|jpeg (or a bare auto|g4|jpeg).');
    expect(errorOf('pdf:png').message).toBe('Unknown pdf option "png"; valid options are: profile=auto|g4|jpeg (or a bare auto|g4|jpeg).');
    expect(errorOf('pdf:profile=png').message).toBe('Unknown value "png" for the pdf option profile; valid values are: auto, g4, jpeg.');
    expect(errorOf('pdf:profile=').message).toMatch(/^The pdf option profile needs a value; valid options are: /);
    expect(errorOf('pdf:profile').message).toMatch(/^The pdf option profile needs a value; /);
    expect(errorOf('slim:fast').message).toBe('Unknown slim option "fast"; slim takes no options.');
  });

  it('refuses empty entries, repeated formats and repeated options', () => {
    for (const spec of ['', '  ', 'pdf+', '+pdf', 'pdf++slim']) {
      expect(errorOf(spec).message).toMatch(/has an empty entry/);
    }
    expect(errorOf('pdf:').message).toMatch(/^The pdf export has an empty option; /);
    expect(errorOf('pdf+slim+pdf:g4').message).toBe('The export list names pdf twice; name each format once.');
    expect(errorOf('pdf:g4:jpeg').message).toBe('The pdf option profile is given twice; give it once.');
    // Every one of these is a one-sentence message for the user.
    for (const spec of ['', 'docx', 'pdf:x', 'pdf:g4:g4', 'pdf+pdf']) {
      expect(errorOf(spec).message.match(/\.(\s|$)/g)?.length).toBe(1);
    }
  });
});

describe('ExportRegistry', () => {
  const markdown: Exporter = {
    name: 'md',
    description: 'Markdown',
    extension: '.md',
    options: { images: { description: 'keep page images' }, headings: { values: ['auto', 'none'], description: 'heading detection' } },
    shorthand: 'headings',
    write: async () => 0,
  };

  it('takes a later exporter the same way as the built-in ones, with flags and free values', () => {
    const registry = new ExportRegistry([pdfExporter]);
    registry.register(markdown);
    expect(registry.list().map((e) => e.name)).toEqual(['pdf', 'md']);
    expect(registry.parse('md:images:none+pdf')).toEqual([
      { format: 'md', options: { images: true, headings: 'none' } },
      { format: 'pdf', options: {} },
    ]);
    expect(registry.parse('md:images=inline')).toEqual([{ format: 'md', options: { images: 'inline' } }]);
    expect(errorOf('epub', (spec) => registry.parse(spec)).message).toBe('Unknown export format "epub"; valid formats are: pdf, md.');
    expect(errorOf('md:x', (spec) => registry.parse(spec)).message).toBe(
      'Unknown md option "x"; valid options are: images[=<value>], headings=auto|none (or a bare auto|none).',
    );
  });

  it('refuses a duplicate name, a bad name and a shorthand without values', () => {
    const registry = new ExportRegistry([pdfExporter]);
    expect(() => registry.register(pdfExporter)).toThrow(/already registered/);
    expect(() => registry.register({ ...markdown, name: 'Mark down' })).toThrow(/plain lower-case word/);
    expect(() => registry.register({ ...markdown, shorthand: 'images' })).toThrow(/shorthand/);
  });
});

describe('listExports', () => {
  it('lists every format with its extension and options', () => {
    const exports = listExports();
    expect(exports.map((e) => [e.name, e.extension])).toEqual([
      ['pdf', '.pdf'],
      ['md', '.md'],
      ['epub', '.epub'],
      ['textpack', '_OCR.textpack'],
      ['slim', '.quire'],
    ]);
    expect(exports[0].options.profile.values).toEqual(['auto', 'g4', 'jpeg']);
    expect(exports.every((e) => e.description.length > 0)).toBe(true);
  });
});
