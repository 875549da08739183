// Types for quality-corpus.mjs, which the tests import to photograph a page like a webcam.

/** One degradation's truth: each page's file and lines by kind. */
export interface QualityCorpus {
  degradations: Array<{
    name: string;
    label: string;
    pages: Array<{ id: string; file: string; language: string; lines: Array<{ kind: string; text: string }> }>;
  }>;
}

/** Write the corpus (or the degradations named in `only`) into `out`, with `out/corpus.json`. */
export function makeQualityCorpus(out: string, options?: { only?: string[] }): Promise<QualityCorpus>;
