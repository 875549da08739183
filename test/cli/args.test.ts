import { describe, expect, it } from 'vitest';
import { groupInputs, parseDpi } from '../../src/cli/commands/run.js';
import { safeFileName } from '../../src/project/index.js';

describe('run arguments', () => {
  it('parses --dpi N and force:N', () => {
    expect(parseDpi('150')).toEqual({ value: 150, force: false });
    expect(parseDpi('force:300')).toEqual({ value: 300, force: true });
    expect(() => parseDpi('0')).toThrow(/50 to 2400/);
    expect(() => parseDpi('force:')).toThrow(/force:N/);
  });

  it('groups image files into one document and keeps others apart', () => {
    expect(groupInputs(['a.jpg', 'book.pdf', 'b.png', 'c.aglbundle'])).toEqual([['book.pdf'], ['c.aglbundle'], ['a.jpg', 'b.png']]);
  });

  it('keeps accents in file names and drops path separators', () => {
    expect(safeFileName('Athanase — L’unité de la Trinité')).toBe('Athanase — L’unité de la Trinité');
    expect(safeFileName('../etc/passwd')).toBe('_etc_passwd');
    expect(safeFileName('  ')).toBe('document');
  });
});
