import { describe, expect, it } from 'vitest';
import { contentDisposition, parseRange } from '../../src/server/download.js';

describe('byte ranges', () => {
  it('reads the forms HTTP clients send', () => {
    expect(parseRange(undefined, 100)).toBeNull();
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
  });

  it('answers the whole file to what it does not honour, and refuses what lies past the end', () => {
    for (const h of ['bytes=0-1,4-5', 'items=0-1', 'bytes=5-2', 'bytes=-', 'nonsense']) expect(parseRange(h, 100), h).toBeNull();
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-9', 0)).toBeNull();
  });
});

describe('Content-Disposition', () => {
  it('names the file after the document, in ASCII for old clients and UTF-8 for the rest', () => {
    expect(contentDisposition('Candide', 'pdf')).toBe(`attachment; filename="Candide.pdf"; filename*=UTF-8''Candide.pdf`);
    expect(contentDisposition('Élégie à "Zoé"', 'md')).toBe(
      `attachment; filename="Elegie a _Zoe_.md"; filename*=UTF-8''%C3%89l%C3%A9gie%20%C3%A0%20_Zo%C3%A9_.md`,
    );
    expect(contentDisposition('Война и мир', 'pdf')).toBe(
      `attachment; filename="_____ _ ___.pdf"; filename*=UTF-8''%D0%92%D0%BE%D0%B9%D0%BD%D0%B0%20%D0%B8%20%D0%BC%D0%B8%D1%80.pdf`,
    );
    expect(contentDisposition("a/b\\c:d; e'(1)", 'pdf')).toBe(`attachment; filename="a_b_c_d; e'(1).pdf"; filename*=UTF-8''a_b_c_d%3B%20e%27%281%29.pdf`);
  });
});
