/** What `quire list ocr` shows: every registered engine, whether it can run here, its languages. */
import { listOcrEngines } from './registry.js';

export interface OcrEngineDescription {
  name: string;
  display: string;
  description: string;
  available: boolean;
  /** Why it cannot run here (one sentence), when it cannot. */
  reason?: string;
  /** Tesseract codes of its installed languages. */
  languages: string[];
  /** Which model reads which languages, when the engine says. */
  models?: Array<{ languages: string[]; model: string }>;
}

export async function describeOcrEngines(): Promise<OcrEngineDescription[]> {
  return Promise.all(
    listOcrEngines().map(async (engine) => {
      const status = await engine.available();
      return {
        name: engine.name,
        display: engine.display,
        description: engine.description,
        available: status.ok,
        ...(status.ok ? {} : { reason: status.reason }),
        languages: engine.languages(),
        ...(engine.models ? { models: engine.models() } : {}),
      };
    }),
  );
}
