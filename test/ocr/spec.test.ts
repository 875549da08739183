import { describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors.js';
import { parseOcrLanguages, parseOcrSpec, registerOcrEngine, toTesseractCode, type OcrEngine } from '../../src/ocr/index.js';

/** The usage error a call throws (fails the test if it throws anything else or nothing). */
function usageError(fn: () => unknown): QuireError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(QuireError);
    const error = e as QuireError;
    expect(error.code).toBe('usage');
    // One sentence for the user.
    expect(error.message).toMatch(/^[A-Z][^\n]*\.$/);
    return error;
  }
  throw new Error('expected a usage error');
}

const INSTALLED = /installed languages: deu, ell, eng, fra, ita, lat, por, spa/;

describe('parseOcrSpec', () => {
  it('defaults to the local engine with languages detected per document', () => {
    expect(parseOcrSpec('auto')).toEqual({ engine: 'tesseract', languages: 'auto', options: {}, auto: true });
    expect(parseOcrSpec('tesseract')).toEqual({ engine: 'tesseract', languages: 'auto', options: {} });
    expect(parseOcrSpec('none')).toEqual({ engine: 'none', languages: 'auto', options: {} });
    expect(parseOcrSpec('  Tesseract ')).toEqual({ engine: 'tesseract', languages: 'auto', options: {} });
  });

  it('takes languages from lang= in the spec, tesseract codes or BCP-47, in the given order', () => {
    expect(parseOcrSpec('tesseract:lang=fra+lat').languages).toEqual(['fra', 'lat']);
    expect(parseOcrSpec('tesseract:lang=fr-FR+la').languages).toEqual(['fra', 'lat']);
    expect(parseOcrSpec('auto:lang=el').languages).toEqual(['ell']);
    expect(parseOcrSpec('tesseract:lang=auto').languages).toBe('auto');
  });

  it('takes --ocr-lang when the spec has no lang=, and lets lang= win over it', () => {
    expect(parseOcrSpec('auto', 'fr-FR+la').languages).toEqual(['fra', 'lat']);
    expect(parseOcrSpec('tesseract', 'en').languages).toEqual(['eng']);
    expect(parseOcrSpec('tesseract', 'de-CH').languages).toEqual(['deu']);
    expect(parseOcrSpec('tesseract', 'auto').languages).toBe('auto');
    expect(parseOcrSpec('tesseract:lang=ell', 'fr').languages).toEqual(['ell']);
  });

  it('drops repeated languages', () => {
    expect(parseOcrSpec('tesseract', 'fr+fra+fr-CA').languages).toEqual(['fra']);
  });

  it('refuses an unknown engine, listing the engines', () => {
    const error = usageError(() => parseOcrSpec('abbyy'));
    expect(error.message).toMatch(/Unknown OCR engine "abbyy"; choose one of: auto, tesseract, tesseract-cli, none/);
    expect(usageError(() => parseOcrSpec('')).message).toMatch(/names no engine; choose one of: auto, tesseract, tesseract-cli, none/);
    expect(usageError(() => parseOcrSpec(':lang=fra')).message).toMatch(/names no engine/);
  });

  it('refuses unknown and uninstalled languages, listing the installed ones', () => {
    expect(usageError(() => parseOcrSpec('tesseract', 'xx')).message).toMatch(INSTALLED);
    expect(usageError(() => parseOcrSpec('tesseract', 'klingon')).message).toMatch(/Unknown OCR language "klingon"/);
    const ru = usageError(() => parseOcrSpec('tesseract:lang=ru'));
    expect(ru.message).toMatch(/"ru" \(rus\) is not installed/);
    expect(ru.message).toMatch(INSTALLED);
    expect(usageError(() => parseOcrSpec('tesseract', 'fr++la')).message).toMatch(/empty entry/);
  });

  it('refuses malformed, repeated and unknown options', () => {
    expect(usageError(() => parseOcrSpec('tesseract:')).message).toMatch(/malformed option ""/);
    expect(usageError(() => parseOcrSpec('tesseract:lang')).message).toMatch(/malformed option "lang"; write options as engine:key=value/);
    expect(usageError(() => parseOcrSpec('tesseract:lang=')).message).toMatch(/malformed option/);
    expect(usageError(() => parseOcrSpec('tesseract:lang=fra:lang=lat')).message).toMatch(/sets the option "lang" twice/);
    expect(usageError(() => parseOcrSpec('tesseract:lnag=fra')).message).toMatch(/has no option "lnag".*valid options: lang\./);
  });

  it('passes options through to an engine that does not list its options, values may hold colons', () => {
    const remote: OcrEngine = {
      name: 'spec-test-remote',
      display: 'Remote',
      description: 'A test engine.',
      available: async () => ({ ok: true }),
      languages: () => ['eng', 'fra'],
      recognize: async () => {
        throw new Error('not used');
      },
    };
    registerOcrEngine(remote);
    expect(parseOcrSpec('spec-test-remote:url=https://ocr.example:8443/v1:lang=fr:Mode=fast')).toEqual({
      engine: 'spec-test-remote',
      languages: ['fra'],
      options: { url: 'https://ocr.example:8443/v1', mode: 'fast' },
    });
    // Its own language list decides what is installed.
    expect(usageError(() => parseOcrSpec('spec-test-remote', 'de')).message).toMatch(/installed languages: eng, fra/);
  });

  it('lets the none engine take any language it can map', () => {
    expect(parseOcrSpec('none', 'ru+el').languages).toEqual(['rus', 'ell']);
  });
});

describe('parseOcrLanguages and toTesseractCode', () => {
  it('maps BCP-47 tags with regions and scripts to tesseract codes', () => {
    expect(toTesseractCode('fr-FR')).toBe('fra');
    expect(toTesseractCode('EN_gb')).toBe('eng');
    expect(toTesseractCode('zh-Hant-TW')).toBe('chi_tra');
    expect(toTesseractCode('zh')).toBe('chi_sim');
    expect(toTesseractCode('sr-Latn')).toBe('srp_latn');
    expect(toTesseractCode('grc')).toBe('grc');
    expect(toTesseractCode('chi_sim')).toBe('chi_sim');
    expect(toTesseractCode('xx')).toBeUndefined();
    expect(toTesseractCode('')).toBeUndefined();
  });

  it('accepts codes only the installed list knows', () => {
    expect(toTesseractCode('xyz')).toBeUndefined();
    expect(parseOcrLanguages('xyz', ['xyz', 'eng'])).toEqual(['xyz']);
    expect(parseOcrLanguages(' AUTO ')).toBe('auto');
  });
});
