/**
 * The OCR engine registry. Built-in engines (`tesseract`, `none`) register through
 * `registerOcrEngine`, exactly as a plugin's engine would.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import { builtinOcrEngines } from './builtins.js';
import type { OcrEngine } from './types.js';

export interface OcrRegistry {
  register(engine: OcrEngine): void;
  /** The engine with this name; a usage error listing the registered engines otherwise. */
  get(name: string): OcrEngine;
  find(name: string): OcrEngine | undefined;
  list(): OcrEngine[];
}

const ENGINE_NAME = /^[a-z][a-z0-9_-]*$/;

export function createOcrRegistry(): OcrRegistry {
  const engines = new Map<string, OcrEngine>();
  return {
    register(engine) {
      if (!ENGINE_NAME.test(engine.name)) {
        throw new QuireError(ERROR_CODES.USAGE, `The OCR engine name "${engine.name}" is not valid: use lower-case letters, digits, "-" and "_".`);
      }
      if (engines.has(engine.name)) {
        throw new QuireError(ERROR_CODES.USAGE, `An OCR engine named "${engine.name}" is already registered.`);
      }
      engines.set(engine.name, engine);
    },
    get(name) {
      const engine = engines.get(name);
      if (!engine) {
        throw new QuireError(ERROR_CODES.USAGE, `Unknown OCR engine "${name}"; choose one of: auto, ${[...engines.keys()].join(', ')}.`);
      }
      return engine;
    },
    find(name) {
      return engines.get(name);
    },
    list() {
      return [...engines.values()];
    },
  };
}

let processRegistry: OcrRegistry | undefined;

/** The process's registry, made on first use with the built-ins registered through `register`. */
function registry(): OcrRegistry {
  if (!processRegistry) {
    processRegistry = createOcrRegistry();
    for (const engine of builtinOcrEngines()) processRegistry.register(engine);
  }
  return processRegistry;
}

/** Register an engine (a built-in or a plugin's); a usage error if the name is taken or malformed. */
export function registerOcrEngine(engine: OcrEngine): void {
  registry().register(engine);
}

/** The registered engine of this name; a usage error listing the choices otherwise. */
export function getOcrEngine(name: string): OcrEngine {
  return registry().get(name);
}

/** The registered engine of this name, if any. */
export function findOcrEngine(name: string): OcrEngine | undefined {
  return registry().find(name);
}

/** Every registered engine, in registration order (built-ins first). */
export function listOcrEngines(): OcrEngine[] {
  return registry().list();
}

/** Release every engine's warm workers (the CLI at exit, the server at shutdown); engines start afresh if used again. */
export async function closeOcrEngines(): Promise<void> {
  if (!processRegistry) return;
  await Promise.all(processRegistry.list().map((engine) => engine.close?.()));
}
