/**
 * The `--ocr` spec and `--ocr-lang` option, parsed once at the boundary:
 *   auto | none | tesseract | tesseract:lang=fra+lat | <engine>:key=value:key2=value2 | <engine>:<mode>[:key=value…]
 * A bare word right after the engine is its mode (`remoteocr:batch`), for engines that have modes.
 * `--ocr-lang` takes `+`-joined BCP-47 tags (`fr-FR+la`) or tesseract codes (`fra+lat`), or
 * `auto`; a `lang=` inside the spec wins over it.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import { toTesseractCode } from './languages.js';
import { findOcrEngine, listOcrEngines } from './registry.js';
import type { OcrEngine } from './types.js';

export interface OcrSpec {
  engine: string;
  /** Tesseract codes, primary language first, or `auto` to detect them per document. */
  languages: string[] | 'auto';
  /** Engine options other than `lang`. */
  options: Record<string, string>;
  /** How the engine runs (`streaming`, `batch`), for engines that have modes: the one named, else their first. */
  mode?: string;
  /** The user said `auto`: the fastest local engine that has the document's languages is used (see `bestLocalEngine`). */
  auto?: boolean;
}

/** The local engine `auto` stands for. */
const BEST_LOCAL_ENGINE = 'tesseract';
const LANG_OPTION = 'lang';

function usage(message: string): QuireError {
  return new QuireError(ERROR_CODES.USAGE, message);
}

/**
 * Split `engine:key=value:…` at the colons that start an option, so a value may itself hold
 * colons (`url=https://host:8443/ocr`).
 */
function splitSpec(spec: string): { engine: string; pairs: string[] } {
  const colon = spec.indexOf(':');
  if (colon < 0) return { engine: spec, pairs: [] };
  return { engine: spec.slice(0, colon), pairs: spec.slice(colon + 1).split(/:(?=[A-Za-z][\w-]*=)/) };
}

function parsePairs(pairs: string[], spec: string): Record<string, string> {
  const options: Record<string, string> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z][\w-]*)=(.+)$/s.exec(pair.trim());
    if (!m) throw usage(`The OCR spec "${spec}" has a malformed option "${pair}"; write options as engine:key=value:key2=value2.`);
    const key = m[1].toLowerCase();
    if (key in options) throw usage(`The OCR spec "${spec}" sets the option "${key}" twice.`);
    options[key] = m[2].trim();
  }
  return options;
}

/** The languages a user asked for, as tesseract codes; `auto` passes through. */
export function parseOcrLanguages(value: string, installed: readonly string[] = []): string[] | 'auto' {
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === 'auto') return 'auto';
  const choices = `installed languages: ${installed.length > 0 ? installed.join(', ') : 'none'} (or auto)`;
  const tokens = trimmed.split('+').map((t) => t.trim());
  if (tokens.some((t) => t === '')) throw usage(`The OCR language list "${value}" has an empty entry; join languages with "+", e.g. fr-FR+la; ${choices}.`);
  const codes: string[] = [];
  for (const token of tokens) {
    const code = toTesseractCode(token, installed);
    if (!code) throw usage(`Unknown OCR language "${token}"; give BCP-47 tags (fr-FR) or tesseract codes (fra) of the ${choices}.`);
    if (installed.length > 0 && !installed.includes(code)) {
      throw usage(`The OCR language "${token}" (${code}) is not installed; ${choices}.`);
    }
    if (!codes.includes(code)) codes.push(code);
  }
  return codes;
}

function checkOptions(engine: OcrEngine | undefined, options: Record<string, string>, spec: string): void {
  if (!engine?.options) return;
  const known = engine.options.map((o) => o.name);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const valid = [LANG_OPTION, ...known].join(', ');
      throw usage(`The OCR engine "${engine.name}" has no option "${key}" (in "${spec}"); valid options: ${valid}.`);
    }
  }
}

/**
 * Parse `--ocr` (default `auto`) and `--ocr-lang` (default `auto`). The engine must be registered;
 * languages must map to tesseract codes and, when the engine lists its languages, be installed.
 */
export function parseOcrSpec(spec: string, langOption?: string): OcrSpec {
  const trimmed = spec.trim();
  const { engine: rawEngine, pairs } = splitSpec(trimmed);
  const requested = rawEngine.trim().toLowerCase();
  if (requested === '')
    throw usage(
      `The OCR spec "${spec}" names no engine; choose one of: auto, ${listOcrEngines()
        .map((e) => e.name)
        .join(', ')}.`,
    );
  const name = requested === 'auto' ? BEST_LOCAL_ENGINE : requested;
  const engine = findOcrEngine(name);
  if (!engine)
    throw usage(
      `Unknown OCR engine "${requested}"; choose one of: auto, ${listOcrEngines()
        .map((e) => e.name)
        .join(', ')}.`,
    );
  const mode = takeMode(engine, pairs, trimmed);
  const { [LANG_OPTION]: specLang, ...options } = parsePairs(pairs, trimmed);
  checkOptions(engine, options, trimmed);
  const languages = parseOcrLanguages(specLang ?? langOption ?? 'auto', engine.languages());
  return { engine: name, languages, options, ...(mode ? { mode } : {}), ...(requested === 'auto' ? { auto: true } : {}) };
}

/** The engine's mode: a bare first word after the engine (removed from `pairs`), else its default; none for engines without modes. */
function takeMode(engine: OcrEngine, pairs: string[], spec: string): string | undefined {
  const modes = engine.modes?.map((m) => m.name) ?? [];
  if (modes.length === 0) return undefined;
  if (pairs.length === 0 || pairs[0].includes('=')) return modes[0];
  const word = pairs.shift()!.trim().toLowerCase();
  if (!modes.includes(word)) throw usage(`The OCR engine "${engine.name}" has no mode "${word}" (in "${spec}"); its modes are: ${modes.join(', ')}.`);
  return word;
}
