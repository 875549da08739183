import { QuireError } from '../errors.js';
import type { OcrPage, ProjectManifest } from '../project/index.js';

/** One option an exporter takes in a format list (`pdf:profile=g4`). */
export interface ExportOption {
  /** The values allowed; without a list any non-empty value is taken, and a bare key means `true`. */
  values?: readonly string[];
  description: string;
}

/** An export format the format list can name. Built-in formats register exactly like later ones. */
export interface Exporter {
  /** The name used in format lists (`pdf`), lower case. */
  name: string;
  description: string;
  /** File extension of the written file, with its dot (`.pdf`). */
  extension: string;
  options: Record<string, ExportOption>;
  /** The option a bare value stands for: with `profile`, `pdf:g4` means `pdf:profile=g4`. */
  shorthand?: string;
  /** The format is made from OCR text: asking for it turns OCR on. */
  needsOcr?: boolean;
  /** The file is a document a destination may take (a slim project is not): destinations that accept it offer it. */
  sendable?: boolean;
  /** Write the project to `target.path` (all or nothing) and return the size written, in bytes. */
  write(target: ExportTarget, options: Record<string, string | true>): Promise<number>;
}

/** What an exporter writes from and to. */
export interface ExportTarget {
  projectDir: string;
  manifest: ProjectManifest;
  /** The OCR of the pages that have it, by page index. */
  ocr: ReadonlyMap<number, OcrPage>;
  /** The file to write: the output stem followed by the exporter's extension. */
  path: string;
}

/** One format asked for, with its options validated. */
export interface ExportRequest {
  format: string;
  options: Record<string, string | true>;
}

/** The exporters a format list may name. */
export class ExportRegistry {
  readonly #exporters = new Map<string, Exporter>();

  constructor(exporters: readonly Exporter[] = []) {
    for (const exporter of exporters) this.register(exporter);
  }

  register(exporter: Exporter): void {
    const name = exporter.name.toLowerCase();
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`exporter name "${exporter.name}" is not a plain lower-case word`);
    if (this.#exporters.has(name)) throw new Error(`exporter "${name}" is already registered`);
    if (exporter.shorthand !== undefined && !exporter.options[exporter.shorthand]?.values) {
      throw new Error(`exporter "${name}": shorthand "${exporter.shorthand}" must name an option with a list of values`);
    }
    this.#exporters.set(name, { ...exporter, name });
  }

  get(name: string): Exporter | undefined {
    return this.#exporters.get(name.toLowerCase());
  }

  list(): Exporter[] {
    return [...this.#exporters.values()];
  }

  /**
   * Parse a format list: `+`-joined tokens `name[:opt[:opt…]]`, each option `key=value`, a bare
   * flag key, or a bare value of the format's shorthand option (`pdf:g4+slim`).
   */
  parse(spec: string): ExportRequest[] {
    const tokens = spec.split('+').map((token) => token.trim());
    if (spec.trim() === '' || tokens.some((token) => token === '')) {
      throw new QuireError('usage', `The export list "${spec}" has an empty entry; write formats joined by "+", for example "pdf:g4+slim".`);
    }
    const requests = tokens.map((token) => this.#parseToken(token));
    const seen = new Set<string>();
    for (const request of requests) {
      if (seen.has(request.format)) throw new QuireError('usage', `The export list names ${request.format} twice; name each format once.`);
      seen.add(request.format);
    }
    return requests;
  }

  #parseToken(token: string): ExportRequest {
    const [rawName, ...rawOptions] = token.split(':').map((part) => part.trim());
    const exporter = this.get(rawName);
    if (!exporter) {
      const valid = this.list()
        .map((e) => e.name)
        .join(', ');
      throw new QuireError('unknown_format', `Unknown export format "${rawName}"; valid formats are: ${valid}.`);
    }
    const options: Record<string, string | true> = {};
    for (const raw of rawOptions) {
      const [key, value] = parseOption(exporter, raw);
      if (key in options) throw new QuireError('usage', `The ${exporter.name} option ${key} is given twice; give it once.`);
      options[key] = value;
    }
    return { format: exporter.name, options };
  }
}

function parseOption(exporter: Exporter, raw: string): [string, string | true] {
  if (raw === '') throw new QuireError('usage', `The ${exporter.name} export has an empty option; ${describeOptions(exporter)}`);
  const equals = raw.indexOf('=');
  if (equals < 0) return parseBareOption(exporter, raw);

  const key = raw.slice(0, equals).trim().toLowerCase();
  const value = raw.slice(equals + 1).trim();
  const option = exporter.options[key];
  if (!option) throw new QuireError('usage', `Unknown ${exporter.name} option "${key}"; ${describeOptions(exporter)}`);
  if (value === '') throw new QuireError('usage', `The ${exporter.name} option ${key} needs a value; ${describeOptions(exporter)}`);
  if (!option.values) return [key, value];
  const known = option.values.find((v) => v.toLowerCase() === value.toLowerCase());
  if (!known) {
    throw new QuireError('usage', `Unknown value "${value}" for the ${exporter.name} option ${key}; valid values are: ${option.values.join(', ')}.`);
  }
  return [key, known];
}

/** A bare word is a flag (an option without a value list) or a value of the shorthand option. */
function parseBareOption(exporter: Exporter, word: string): [string, string | true] {
  const lower = word.toLowerCase();
  const flag = exporter.options[lower];
  if (flag && !flag.values) return [lower, true];
  const shorthand = exporter.shorthand;
  const value = shorthand ? exporter.options[shorthand].values?.find((v) => v.toLowerCase() === lower) : undefined;
  if (shorthand && value) return [shorthand, value];
  if (flag) throw new QuireError('usage', `The ${exporter.name} option ${lower} needs a value; ${describeOptions(exporter)}`);
  throw new QuireError('usage', `Unknown ${exporter.name} option "${word}"; ${describeOptions(exporter)}`);
}

/** The end of an error sentence that lists what the exporter takes. */
export function describeOptions(exporter: Exporter): string {
  const keys = Object.entries(exporter.options);
  if (keys.length === 0) return `${exporter.name} takes no options.`;
  const listed = keys.map(([key, option]) => (option.values ? `${key}=${option.values.join('|')}` : `${key}[=<value>]`)).join(', ');
  const bare = exporter.shorthand ? ` (or a bare ${exporter.options[exporter.shorthand].values?.join('|')})` : '';
  return `valid options are: ${listed}${bare}.`;
}
