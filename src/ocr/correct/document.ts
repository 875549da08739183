/**
 * `correctDocument`: the correction step over a whole project. Once its pages are recognised, words the dictionary
 * does not know are corrected where exactly one candidate fits (`correct.ts`), with the document's own vocabulary
 * (names and terms it prints again and again) counted first over every page; then full stops read as commas are put
 * right where the page's ink shows a dot on the baseline (`stops.ts`), capitals read for small letters where it shows
 * a small one (`letter-case.ts`), apostrophes set to the one the document prints and guillemets, semicolons, colons,
 * question and exclamation marks set apart where it sets them so (`typography.ts`); the words left unknown and the
 * note calls are read again alone (`reread.ts`, `raised.ts`). Turned off, the words go back to what the engine read.
 * Every change stays recorded on its word in `ocr/<page>.json`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeGray, sharpFromGray, type GrayImage } from '../../imaging/index.js';
import { findOcrEngine } from '../registry.js';
import type { OcrEngine, OcrInput } from '../types.js';
import {
  correctApostrophes,
  correctGuillemets,
  correctHighPunctuation,
  correctReferences,
  documentApostrophes,
  documentGuillemets,
  documentHighPunctuation,
  documentReferences,
  type Apostrophe,
} from './typography.js';
import { documentWords, openCorrector, undoCorrections, type Corrector, type DocumentWords } from './correct.js';
import { caseCandidates, correctCase } from './letter-case.js';
import { callInText, pageHasNotes, raisedMarks, readCall } from './raised.js';
import {
  applyReread,
  chooseDocumentGreek,
  chooseGreek,
  chooseInk,
  chooseMarks,
  chooseReread,
  cutWord,
  greekToCheck,
  type RereadWord,
  wordsBesideGreek,
  wordsToCheck,
  wordsToReread,
} from './reread.js';
import { colonCandidates, correctColons, correctStops, lineEndCandidates, restoreStops, stopCandidates } from './stops.js';
import {
  DOUBTFUL_CONFIDENCE,
  DOUBTFUL_GREEK_CONFIDENCE,
  pageWords,
  readOcrPage,
  writeOcrPage,
  type OcrPage,
  type ProjectManifest,
  type ProjectOcrCorrection,
  type ProjectPage,
} from '../../project/index.js';
import { eachAtOnce } from '../../util/index.js';

const CORRECTING_AT_ONCE = 2;

/**
 * Correct (or, `enabled` false, un-correct) the recognised pages of a project and record the outcome in `manifest.ocr`.
 * `userWords`: the person's own dictionary, words never corrected nor marked to check.
 */
export async function correctDocument(
  dir: string,
  manifest: ProjectManifest,
  enabled: boolean,
  userWords: readonly string[] = [],
): Promise<ProjectOcrCorrection | undefined> {
  if (!manifest.ocr) return undefined;
  // Pages kept from a PDF carry the PDF's own text: not ours to correct.
  const pages = manifest.pages.filter((p) => p.ocr && p.kind !== 'pdf');
  const read = (page: ProjectPage): Promise<OcrPage> => readOcrPage(dir, page.ocr!, page.index);
  const summary: ProjectOcrCorrection = { enabled, checked: [], unchecked: [], corrected: 0, unknown: 0 };
  if (!enabled) {
    for (const page of pages) {
      const result = await read(page);
      if (result.correction || hasCorrections(result)) await writeOcrPage(dir, page.ocr!, undoCorrections(result));
    }
  } else {
    const corrector = await openCorrector(manifest.ocr.languages);
    summary.checked = [...corrector.checked];
    summary.unchecked = [...corrector.unchecked];
    // Two passes: the document's vocabulary first, so a name read well on page 40 helps page 3.
    // The document's apostrophe (’ or ') and its way with guillemets, high punctuation and references ("p. 265") are
    // counted on the same pass.
    const vocabulary = documentWords(userWords);
    const apostrophes = documentApostrophes();
    const guillemets = documentGuillemets();
    const highPunctuation = documentHighPunctuation();
    const references = documentReferences();
    for (const page of pages) {
      const result = await read(page);
      vocabulary.add(result);
      apostrophes.add(result);
      guillemets.add(result);
      highPunctuation.add(result);
      references.add(result);
    }
    const apostrophe = apostrophes.kind;
    // Words left unknown are cut out of the page OCR read as the pages go, and read again together at the end.
    const engine = findOcrEngine(manifest.ocr.engine);
    const rereading = engine?.readWords ? engine : undefined;
    const cuts: WordCut[] = [];
    // Two pages at a time: one page's images decode while the other's words are looked up.
    await eachAtOnce(pages, CORRECTING_AT_ONCE, async (page) => {
      const corrected = await corrector.correct(await read(page), vocabulary);
      // Then the full stops read as commas, the semicolons read as colons and the small letters read as capitals, from
      // the page's ink (a page whose image cannot be read keeps them); its images are decoded only when some word is
      // placed like such a misreading.
      let stops = 0;
      let decoded: { image?: GrayImage; reading?: GrayImage } = {};
      const decode = async (): Promise<{ image?: GrayImage; reading?: GrayImage }> => {
        const [image, reading] = await Promise.all([
          decodeGray(join(dir, page.file)).catch(() => undefined),
          page.ocrImage ? decodeGray(join(dir, page.ocrImage)).catch(() => undefined) : undefined,
        ]);
        return { image, reading };
      };
      const known = (word: string): boolean => corrector.known(word, vocabulary) !== undefined;
      const lookedAt = [stopCandidates(corrected), colonCandidates(corrected), caseCandidates(corrected, known), lineEndCandidates(corrected)];
      if (lookedAt.some((words) => words.length > 0)) {
        decoded = await decode();
        if (decoded.image) {
          stops =
            correctStops(corrected, decoded.image, decoded.reading) +
            correctColons(corrected, decoded.image) +
            correctCase(corrected, decoded.image, known) +
            restoreStops(corrected, decoded.image);
        }
      }
      // Then what is read again on its own: the words left unknown, and the raised marks at words' ends (note calls).
      const doubtful = rereading ? wordsToReread(corrected) : [];
      // And where OCR read a grey image, the words a dictionary knows but the engine read with doubt, cut from the
      // bitonal page: the accent or ligature its ink keeps decides ("cour" there, "cœur" here; `chooseInk`).
      const checked = rereading && page.ocrImage ? wordsToCheck(corrected, DOUBTFUL_CONFIDENCE) : [];
      // And the Greek words read with doubt or spelled from Latin look-alikes, cut from the bitonal page and read in Greek
      // alone: the accents and breathings its ink shows ("Τι" → "Τί"; `chooseMarks`).
      const greek = manifest.ocr!.languages.includes(GREEK);
      const marks = rereading && greek ? greekToCheck(corrected, DOUBTFUL_GREEK_CONFIDENCE) : [];
      const calls = rereading !== undefined && pageHasNotes(corrected);
      if (doubtful.length > 0 || checked.length > 0 || marks.length > 0 || calls) {
        if (!decoded.image) decoded = await decode();
        cuts.push(
          ...pageCuts(page, pages.indexOf(page), corrected, decoded, {
            doubtful,
            checked,
            marks,
            calls,
            greek,
            quotes: !guillemets.spaced,
          }),
        );
      }
      const elisions = apostrophe ? correctApostrophes(corrected, apostrophe) : 0;
      const quotes = guillemets.spaced ? correctGuillemets(corrected) : 0;
      const spaced = highPunctuation.spaced ? correctHighPunctuation(corrected) : 0;
      const numbers = references.spaced ? correctReferences(corrected) : 0;
      if (corrected.correction) corrected.correction.corrected += stops + elisions + quotes + spaced + numbers;
      summary.corrected += corrected.correction?.corrected ?? 0;
      summary.unknown += corrected.correction?.unknown ?? 0;
      await writeOcrPage(dir, page.ocr!, corrected);
    });
    if (rereading && cuts.length > 0) {
      // In page and reading order, whichever page was done first: the same project always makes the same image.
      cuts.sort((a, b) => a.order - b.order || a.index - b.index || CUT_ORDER[a.kind] - CUT_ORDER[b.kind]);
      const { reread, settled, context, calls } = await rereadWords(dir, cuts, rereading, manifest.ocr.languages, corrector, vocabulary, apostrophe);
      summary.corrected += reread + context + calls;
      summary.unknown -= settled;
    }
  }
  manifest.ocr.correction = summary;
  return summary;
}

/** What is read again of one page: its doubtful and checked words and its raised marks, cut from its images. */
function pageCuts(
  page: ProjectPage,
  order: number,
  corrected: OcrPage,
  decoded: { image?: GrayImage; reading?: GrayImage },
  what: { doubtful: RereadWord[]; checked: RereadWord[]; marks: RereadWord[]; calls: boolean; greek: boolean; quotes: boolean },
): WordCut[] {
  const source = decoded.reading ?? decoded.image;
  if (!source) return [];
  const cuts: WordCut[] = [];
  const cut = (kind: WordCut['kind'], word: RereadWord, image: GrayImage): void => {
    cuts.push({ kind, order, page: page.index, ocr: page.ocr!, index: word.index, dpi: corrected.dpi, image: cutWord(image, corrected, word.box, word.word) });
  };
  for (const word of what.doubtful) cut('word', word, source);
  // The second reading: where OCR read a grey image, the same word cut from the bitonal page the PDF shows,
  // whose ink keeps an accent or a letter the grey one may blur away ("méme" there, "même" here).
  if (decoded.reading && decoded.image) {
    for (const word of what.doubtful) cut('ink', word, decoded.image);
    for (const word of what.checked) cut('check', word, decoded.image);
  }
  // A Latin-letter word beside Greek, read again in Greek alone: a Greek word read in Latin look-alikes.
  if (what.greek) for (const word of wordsBesideGreek(corrected, what.doubtful)) cut('greek', word, source);
  // A Greek word read with doubt, its marks read again in Greek alone from the ink of the page the PDF shows.
  if (decoded.image) for (const word of what.marks) cut('marks', word, decoded.image);
  if (what.calls)
    for (const mark of raisedMarks(corrected, source, { quotes: what.quotes }))
      cuts.push({ kind: 'call', order, page: page.index, ocr: page.ocr!, index: mark.index, dpi: corrected.dpi, image: mark.image });
  return cuts;
}

/** For one word: its grey cut is read first, then its bitonal cut, then its raised mark. */
const CUT_ORDER: Readonly<Record<WordCut['kind'], number>> = { word: 0, ink: 1, check: 1, greek: 2, marks: 2, call: 3 };

/** The language a Latin-letter word beside Greek is read again in. */
const GREEK = 'ell';

/** The cuts read with the Greek model alone. */
const GREEK_ALONE: ReadonlySet<WordCut['kind']> = new Set(['greek', 'marks']);

/** A word, or the raised mark at its end, cut out of its page to be read again: which page (its OCR file) and word, and its pixels. */
interface WordCut {
  /**
   * A word cut from the image OCR read, the same word cut from the bitonal page, a known word read with doubt cut
   * from the bitonal page, a Latin-letter word beside Greek to read in Greek alone, a Greek word whose marks are read
   * again from the bitonal page in Greek alone, or a raised mark.
   */
  kind: 'word' | 'ink' | 'check' | 'greek' | 'marks' | 'call';
  /** The page's place in the document. */
  order: number;
  /** The page's number, and its OCR file. */
  page: number;
  ocr: string;
  index: number;
  dpi: number;
  image: GrayImage;
}

/**
 * Read the cut-out words again, each on its own (the engine reads them all in as few processes as it can), and give
 * each word the new reading `chooseReread` takes, and each raised mark the digits `readCall` finds in it (kept as the
 * word's `raised`); on a page with a word changed, the rules that read words from their neighbours run again, and the
 * page is written again. Returns how many words were read anew, and how many more the
 * rules changed then. A failure of the engine here leaves the words as they are: this step can only improve on what
 * is already saved.
 */
async function rereadWords(
  dir: string,
  cuts: WordCut[],
  engine: OcrEngine,
  languages: string[],
  corrector: Corrector,
  vocabulary: DocumentWords,
  apostrophe: Apostrophe | undefined,
): Promise<{ reread: number; settled: number; context: number; calls: number }> {
  const folder = await mkdtemp(join(tmpdir(), 'quire-reread-'));
  let readings: string[][];
  try {
    const images: OcrInput[] = cuts.map((cut, k) => ({ file: join(folder, `word-${k}.png`), width: cut.image.width, height: cut.image.height, dpi: cut.dpi }));
    await eachAtOnce([...cuts.keys()], CORRECTING_AT_ONCE, (k) =>
      sharpFromGray(cuts[k].image)
        .png()
        .toFile(images[k].file)
        .then(() => undefined),
    );
    // The cuts to read in Greek alone go in a list of their own, read with the Greek model only.
    readings = new Array<string[]>(cuts.length);
    for (const greek of [false, true]) {
      const ks = [...cuts.keys()].filter((k) => GREEK_ALONE.has(cuts[k].kind) === greek);
      if (ks.length === 0) continue;
      const read = await engine.readWords!(
        ks.map((k) => images[k]),
        greek ? [GREEK] : languages,
      );
      ks.forEach((k, i) => (readings[k] = read[i] ? pageWords(read[i]).map((w) => w.text) : []));
    }
  } catch {
    return { reread: 0, settled: 0, context: 0, calls: 0 };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const byPage = new Map<string, { number: number; words: Array<{ kind: WordCut['kind']; index: number; again: string[] }> }>();
  cuts.forEach((cut, k) => {
    const entry = byPage.get(cut.ocr) ?? { number: cut.page, words: [] };
    entry.words.push({ kind: cut.kind, index: cut.index, again: readings[k] ?? [] });
    byPage.set(cut.ocr, entry);
  });
  let changed = 0;
  let unknownSettled = 0;
  let context = 0;
  let putInText = 0;
  for (const [file, { number, words }] of byPage) {
    const page = await readOcrPage(dir, file, number);
    const all = pageWords(page);
    let here = 0;
    /** Of them, words no dictionary knew. */
    let settled = 0;
    let calls = 0;
    /** Calls put into the text in place of the mark the engine read. */
    let marks = 0;
    for (const { kind, index, again } of words) {
      const word = all[index];
      if (!word) continue;
      if (kind === 'call') {
        const call = readCall(again);
        if (call !== undefined) {
          word.raised = call;
          calls++;
          if (callInText(word, call)) marks++;
        }
        continue;
      }
      // A word the grey cut did not settle may be settled by its bitonal cut (`ink`, after it in `cuts`); a known word
      // read with doubt only by the accents or ligature its bitonal cut shows.
      const lookUp = (w: string): string | undefined => corrector.known(w, vocabulary);
      // Read in Greek only while no other reading settled it.
      if (kind === 'greek' && !word.unknown) continue;
      const choice =
        kind === 'check'
          ? chooseInk(word.text, again, lookUp)
          : kind === 'greek'
            ? chooseGreek(word.text, again, lookUp)
            : kind === 'marks'
              ? chooseMarks(word.text, again, lookUp)
              : (chooseReread(word.text, again, lookUp, word.confidence < DOUBTFUL_CONFIDENCE) ??
                (word.unknown ? chooseDocumentGreek(word.text, again, (w) => vocabulary.oneChangeFrom(w)) : undefined));
      if (!choice) continue;
      const wasUnknown = word.unknown === true;
      applyReread(
        word,
        kind === 'word'
          ? choice
          : { ...choice, change: `${choice.change} (${kind === 'greek' ? 'read in Greek' : kind === 'marks' ? 'bitonal page, in Greek' : 'bitonal page'})` },
      );
      here++;
      if (wasUnknown) settled++;
    }
    putInText += marks;
    if (page.correction) page.correction.corrected += marks;
    if (here === 0) {
      if (calls > 0) await writeOcrPage(dir, file, page);
      continue;
    }
    // A word read again takes the document's apostrophe like the others, and may decide its neighbours.
    if (apostrophe) correctApostrophes(page, apostrophe);
    const around = corrector.recheckContext(page);
    if (page.correction) {
      page.correction.corrected += here + around;
      page.correction.unknown -= settled;
    }
    await writeOcrPage(dir, file, page);
    changed += here;
    unknownSettled += settled;
    context += around;
  }
  return { reread: changed, settled: unknownSettled, context, calls: putInText };
}

function hasCorrections(page: OcrPage): boolean {
  return page.blocks.some((b) => b.paragraphs.some((p) => p.lines.some((l) => l.words.some((w) => w.correction || w.unknown))));
}
