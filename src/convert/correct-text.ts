/**
 * The correction step over a whole project: once its pages are recognised, words the dictionary does not know are
 * corrected where exactly one candidate fits (`src/ocr/correct.ts`), with the document's own vocabulary (names and
 * terms it prints again and again) counted first over every page; then full stops read as commas are put right where
 * the page's ink shows a dot on the baseline (`src/ocr/stops.ts`), and apostrophes set to the one the document
 * prints and guillemets set apart where it sets them so (`src/ocr/typography.ts`). Turned off, the words go back to what the engine
 * read. Every change stays recorded on its word in `ocr/<page>.json`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeGray } from '../imaging/index.js';
import { correctApostrophes, correctGuillemets, correctStops, documentApostrophes, documentGuillemets, documentWords, openCorrector, stopCandidates, undoCorrections } from '../ocr/index.js';
import type { OcrPage, ProjectManifest, ProjectOcrCorrection } from '../project/index.js';
import { eachAtOnce } from '../util/index.js';

const CORRECTING_AT_ONCE = 2;

/** Correct (or, `enabled` false, un-correct) the recognised pages of a project and record the outcome in `manifest.ocr`. */
export async function correctProjectText(dir: string, manifest: ProjectManifest, enabled: boolean): Promise<ProjectOcrCorrection | undefined> {
  if (!manifest.ocr) return undefined;
  // Pages kept from a PDF carry the PDF's own text: not ours to correct.
  const pages = manifest.pages.filter((p) => p.ocr && p.kind !== 'pdf');
  const read = async (file: string): Promise<OcrPage> => JSON.parse(await readFile(join(dir, file), 'utf8')) as OcrPage;
  const summary: ProjectOcrCorrection = { enabled, checked: [], unchecked: [], corrected: 0, unknown: 0 };
  if (!enabled) {
    for (const page of pages) {
      const result = await read(page.ocr!);
      if (result.correction || hasCorrections(result)) await writeFile(join(dir, page.ocr!), JSON.stringify(undoCorrections(result)));
    }
  } else {
    const corrector = await openCorrector(manifest.ocr.languages);
    summary.checked = [...corrector.checked];
    summary.unchecked = [...corrector.unchecked];
    // Two passes: the document's vocabulary first, so a name read well on page 40 helps page 3.
    // The document's apostrophe (’ or ') and its way with guillemets are counted on the same pass.
    const vocabulary = documentWords();
    const apostrophes = documentApostrophes();
    const guillemets = documentGuillemets();
    for (const page of pages) {
      const result = await read(page.ocr!);
      vocabulary.add(result);
      apostrophes.add(result);
      guillemets.add(result);
    }
    const apostrophe = apostrophes.kind;
    // Two pages at a time: one page's images decode while the other's words are looked up.
    await eachAtOnce(pages, CORRECTING_AT_ONCE, async (page) => {
      const corrected = await corrector.correct(await read(page.ocr!), vocabulary);
      // Then the full stops read as commas, from the page's ink (a page whose image cannot be read keeps its commas);
      // its images are decoded only when some comma is placed like a misread stop.
      let stops = 0;
      if (stopCandidates(corrected).length > 0) {
        const [image, reading] = await Promise.all([
          decodeGray(join(dir, page.file)).catch(() => undefined),
          page.ocrImage ? decodeGray(join(dir, page.ocrImage)).catch(() => undefined) : undefined,
        ]);
        if (image) stops = correctStops(corrected, image, reading);
      }
      const elisions = apostrophe ? correctApostrophes(corrected, apostrophe) : 0;
      const quotes = guillemets.spaced ? correctGuillemets(corrected) : 0;
      if (corrected.correction) corrected.correction.corrected += stops + elisions + quotes;
      summary.corrected += corrected.correction?.corrected ?? 0;
      summary.unknown += corrected.correction?.unknown ?? 0;
      await writeFile(join(dir, page.ocr!), JSON.stringify(corrected));
    });
  }
  manifest.ocr.correction = summary;
  return summary;
}

function hasCorrections(page: OcrPage): boolean {
  return page.blocks.some((b) => b.paragraphs.some((p) => p.lines.some((l) => l.words.some((w) => w.correction || w.unknown))));
}
