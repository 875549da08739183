import { Command, InvalidArgumentError, Option } from 'commander';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  checkConversions,
  checkProjectOcr,
  convert,
  DEFAULT_MARGIN_MM,
  inputType,
  isPresetName,
  openProcessorSteps,
  parseExportList,
  parseStepList,
  refusedInputs,
  send as sendTo,
  useOcrPlugin,
  type ProcessorSteps,
  type CheckedDocument,
  type ConvertOptions,
  type ConvertResult,
  type OcrCheck,
} from '../../convert/index.js';
import { ERROR_CODES, QuireError } from '../../errors.js';
import { checkSendTargets, describeSendOutcome, parseSendTo } from '../../plugins/index.js';
import type { HandSetPages, PresetName } from '../../project/index.js';
import { formatBytes } from '../../util/index.js';
import { asQuireError, Reported } from '../failure.js';
import { Interrupted, interruptionOf, withInterruption } from '../interrupt.js';
import { documentReport, errorJson, type DocumentReport } from '../json-report.js';
import { count, printable, printableJson } from '../print.js';
import { progressReporter } from '../progress.js';

export interface ConversionFlags {
  export: string;
  ocr?: string;
  ocrLang?: string;
  sendTo?: string;
  output: string;
  pipeline?: PresetName;
  dpi?: { value: number; force: boolean };
  keepProject?: string;
  workers?: number;
  marginMm?: number;
  json?: boolean;
  /** `quire ocr`: keep PDF pages that have a text layer as they are. */
  keepTextPages?: boolean;
  /** `quire ocr --force-ocr`: rasterise and OCR those pages too. */
  forceOcr?: boolean;
  /** `quire run <project> --check-ocr`: finish the project's OCR batch if it is done. */
  checkOcr?: boolean;
  /** `--no-correct` sets it false: keep the words as the OCR engine read them. */
  correct?: boolean;
  /** `--rotate-pages off`: keep pages found the wrong way up as they are. */
  rotatePages?: boolean;
  /** `--steps +despeckle`: processor plugin steps added to the preset's. */
  steps?: string;
  /** `--page-box 3:x,y,w,h` (repeated) or `--page-box 3:split=x`: a frame's pages set by hand. */
  pageBox?: Map<number, HandSetPages>;
}

export function runCommand(): Command {
  const cmd = new Command('run')
    .description('convert scan bundles, PDFs or images into clean page PDFs (and Markdown, EPUBs, textpacks, slim projects)')
    .argument('<inputs...>', 'a scan bundle (.aglbundle, .zip or folder), a PDF, a slim project (.quire), or image files (taken together as one document)')
    .option('-e, --export <formats>', 'exports, +-joined, each with :options (e.g. pdf:g4+md); see `quire list exports`', 'pdf')
    .option('-o, --output <dir>', 'folder for the outputs', '.')
    .addOption(
      new Option('-p, --pipeline <preset>', 'pipeline preset (default: book for bundles and camera photos, sheet for scans, flat for vector PDFs)').argParser(
        parsePipeline,
      ),
    )
    .option(
      '--ocr <engine>',
      'OCR engine spec: auto, tesseract, tesseract:lang=fra+lat, remoteocr, remoteocr:batch, none, or an installed OCR engine plugin (default: no OCR unless an export needs text)',
    )
    .option(
      '--steps <steps>',
      'add installed processor plugin steps to the pipeline, +-joined, each with :key=value,… (e.g. +despeckle:max_speck_pct=20); see `quire list pipelines`',
    )
    .option(
      '--check-ocr',
      'with a kept project: if its OCR batch (--ocr remoteocr:batch) is done, finish the OCR and write the exports asked for; else say it is still running',
    )
    .option(
      '--page-box <frame:x,y,w,h|frame:split=x>',
      "a frame's page box set by hand, in its pixels, replacing the automatic split and crop (give it twice for the two pages of a spread), or only where the spread splits",
      parsePageBox,
    );
  addSharedOptions(cmd);
  return cmd.action((inputs: string[], flags: ConversionFlags) => runConversion(inputs, flags));
}

/** Options `quire run` and `quire ocr` share. */
export function addSharedOptions(cmd: Command): Command {
  return cmd
    .option('--ocr-lang <langs>', 'OCR languages, +-joined BCP-47 (fr-FR+la) or tesseract codes (fra+lat), or auto (default)')
    .option('--rotate-pages <on|off>', 'turn pages found upside down or sideways before reading them (default on)', parseOnOff)
    .option(
      '--no-correct',
      "keep the words as the OCR engine read them: no dictionary check of accents and look-alike letters (each correction is otherwise recorded in the project's ocr/*.json)",
    )
    .option('--dpi <N|force:N>', 'input resolution where the input does not say it; force:N overrides it everywhere', parseDpi)
    .option('--keep-project <dir>', 'keep the working project folder (project.json with every decision, page images, OCR) in <dir>')
    .option('--workers <n>', 'pipeline threads (default: number of cores)', parsePositiveInt)
    .option('--margin-mm <mm>', `margin kept around the printed area, in mm (default ${DEFAULT_MARGIN_MM})`, parseMargin)
    .option(
      '--send-to <slugs>',
      'after the exports, send every file a destination accepts to these installed destinations, +-joined (see `quire list destinations`)',
    )
    .option('--json', 'print a JSON array on stdout, one object per document (outputs, pages, timings, or its error), instead of progress');
}

/** The outcome of one document of a run, as `--json` prints it. */
interface Outcome {
  inputs: string[];
  /** Set when the document was converted (its files are written, even if sending them failed). */
  converted?: { result: ConvertResult; checked: CheckedDocument };
  error?: QuireError;
}

/**
 * Convert each document the inputs make, printing progress and a summary. Every document is checked before the first
 * is converted; a document that fails later is reported and the others are still converted (exit 1 at the end). A
 * signal stops the run: the document in progress leaves nothing, the command exits 130 (SIGINT) or 143 (SIGTERM).
 */
export async function runConversion(inputs: string[], flags: ConversionFlags): Promise<void> {
  if (flags.checkOcr) return checkOcr(inputs, flags);
  const documents = groupInputs(withoutRepeats(inputs));
  const refuse = (e: unknown): Promise<never> => refuseRun(e, documents, flags.json === true);
  const requests = await Promise.resolve()
    .then(() => parseExportList(flags.export)) // usage errors before any work
    .catch(refuse);
  const sendTo = flags.sendTo
    ? await Promise.resolve()
        .then(() => parseSendTo(flags.sendTo!))
        .catch(refuse)
    : [];
  const stepRequests = flags.steps
    ? await Promise.resolve()
        .then(() => parseStepList(flags.steps!))
        .catch(refuse)
    : [];
  if (stepRequests.length > 0 && flags.pipeline === 'flat') {
    await refuse(new QuireError(ERROR_CODES.USAGE, '--steps adds steps to the book and sheet pipelines; the flat pipeline keeps the pixels as they are.'));
  }
  const warn = (line: string): void => void process.stderr.write(`quire: ${printable(line)}\n`);
  // An OCR engine plugin named by --ocr joins the built-ins before the run is checked.
  await useOcrPlugin(flags.ocr, {}, warn).catch(refuse);
  // A destination that is missing or not set up fails the run before any work.
  if (sendTo.length > 0)
    await checkSendTargets(
      sendTo,
      requests.map((r) => r.format),
      { plaintextSecrets: true },
    ).catch(refuse);
  const mode = flags.json ? 'quiet' : process.stderr.isTTY ? 'tty' : 'lines';
  const options: ConvertOptions = {
    exports: requests,
    outDir: flags.output,
    ...(flags.pipeline ? { pipeline: flags.pipeline } : {}),
    ...(flags.ocr !== undefined ? { ocr: flags.ocr } : {}),
    ...(flags.ocrLang !== undefined ? { ocrLang: flags.ocrLang } : {}),
    ...(flags.dpi ? { dpi: flags.dpi } : {}),
    ...(flags.keepProject ? { keepProject: flags.keepProject } : {}),
    ...(flags.workers ? { workers: flags.workers } : {}),
    ...(flags.marginMm !== undefined ? { marginMm: flags.marginMm } : {}),
    ...(flags.keepTextPages ? { keepTextPages: true } : {}),
    ...(flags.forceOcr ? { forceOcr: true } : {}),
    ...(flags.correct === false ? { correct: false } : {}),
    ...(flags.rotatePages === false ? { rotatePages: false } : {}),
    ...(flags.pageBox ? { pageBoxes: flags.pageBox } : {}),
  };
  const outcomes: Outcome[] = [];
  await withInterruption(
    async (signal) => {
      const run = await checkConversions(documents, options).catch(refuse);
      let processors: ProcessorSteps | undefined;
      try {
        if (stepRequests.length > 0) {
          processors = await openProcessorSteps(stepRequests).catch(refuse);
          processors.skipped.forEach(warn);
          options.processors = processors;
        }
        for (const checked of run.documents) {
          const outcome: Outcome = { inputs: checked.inputs };
          outcomes.push(outcome);
          try {
            const result = await convert(checked.inputs, { ...options, checked, signal, onProgress: progressReporter(mode) });
            outcome.converted = { result, checked };
            if (!flags.json) printSummary(result, checked);
            // Sending waits for the text: the exports sent are the finished ones, from --check-ocr.
            if (sendTo.length > 0 && !result.ocrPending) await send(result, sendTo, flags.json === true);
          } catch (e) {
            const stopped = interruptionOf(signal);
            outcome.error = stopped ?? (await asQuireError(e));
            if (stopped) break;
            // Said as it happens, --json or not (stdout keeps the JSON; it has the error too).
            const named = documents.length === 1 || outcome.inputs.some((p) => outcome.error!.message.includes(p));
            process.stderr.write(`quire: ${named ? '' : `${printable(outcome.inputs.join(' '))}: `}${printable(outcome.error.message)}\n`);
            if (outcome.error.detail && process.env.QUIRE_DEBUG) process.stderr.write(`  ${printable(outcome.error.detail)}\n`);
          }
        }
      } finally {
        await processors?.close();
        await run.close();
      }
    },
    (sig) => {
      if (mode !== 'quiet') process.stderr.write(`\n${sig === 'SIGINT' ? 'Ctrl-C' : sig}: stopping and cleaning up (press Ctrl-C again to quit at once)…\n`);
    },
  );
  if (flags.json) process.stdout.write(printableJson(outcomes.map(outcomeJson)) + '\n');
  const failed = outcomes.flatMap((o) => (o.error ? [o.error] : []));
  if (failed.length === 0) return;
  const stop = failed.find((e) => e instanceof Interrupted);
  if (stop) {
    process.stderr.write(`quire: ${printable(stop.message)}\n`);
    throw new Reported(stop.exitCode);
  }
  if (documents.length > 1) process.stderr.write(`quire: ${count(failed.length, 'document')} of ${documents.length} failed.\n`);
  throw new Reported(failed[0].exitCode);
}

/** One document in the --json array: its summary when it was converted, its error when something failed (both when sending failed). */
function outcomeJson(o: Outcome): DocumentReport {
  const status = o.error instanceof Interrupted ? 'stopped' : o.error ? 'failed' : o.converted?.result.ocrPending ? 'ocr_pending' : 'done';
  return documentReport(o.inputs, status, {
    ...(o.converted ? summary(o.converted.result, o.converted.checked) : {}),
    ...(o.error ? { error: errorJson(o.error) } : {}),
  });
}

/**
 * A run refused before any work: with --json, every document is in the array, the one refused (or all, when the
 * reason is the whole run's, such as an unknown export) with the error, the others skipped.
 */
async function refuseRun(e: unknown, documents: string[][], json: boolean): Promise<never> {
  if (!json) throw e;
  const error = await asQuireError(e);
  const refused = refusedInputs(e);
  const reports = documents.map((inputs) =>
    !refused || refused.join('\0') === inputs.join('\0') ? documentReport(inputs, 'failed', { error: errorJson(error) }) : documentReport(inputs, 'skipped'),
  );
  process.stdout.write(printableJson(reports) + '\n');
  process.stderr.write(`quire: ${refused && documents.length > 1 ? `${printable(refused.join(' '))}: ` : ''}${printable(error.message)}\n`);
  if (error.detail && process.env.QUIRE_DEBUG) process.stderr.write(`  ${printable(error.detail)}\n`);
  throw new Reported(error.exitCode);
}

/**
 * `quire run <project> --check-ocr`: poll the project's OCR batch. Done: the OCR is finished and the exports asked
 * for at submission are written (and sent, with --send-to). Still running: say so and exit 0. Failed: the batch's
 * reason, exit non-zero.
 */
async function checkOcr(inputs: string[], flags: ConversionFlags): Promise<void> {
  if (inputs.length !== 1 || inputType(inputs[0]) !== 'project') {
    throw new QuireError(ERROR_CODES.USAGE, '--check-ocr takes one kept project folder, the one printed when the OCR batch was submitted.');
  }
  const sendTo = flags.sendTo ? parseSendTo(flags.sendTo) : [];
  const mode = flags.json ? 'quiet' : process.stderr.isTTY ? 'tty' : 'lines';
  const check = await checkProjectOcr(inputs[0], { onProgress: progressReporter(mode) });
  if (check.state === 'pending') {
    if (flags.json) process.stdout.write(printableJson([documentReport(inputs, 'ocr_pending', pendingSummary(check))]) + '\n');
    else process.stdout.write(`${printable(pendingSentence(check))}\n`);
    return;
  }
  if (check.state === 'failed') throw new QuireError(ERROR_CODES.REMOTE_OCR_FAILED, check.message, check.detail);
  const result = check.result;
  if (flags.json) process.stdout.write(printableJson([documentReport(inputs, 'done', summary(result))]) + '\n');
  else printSummary(result);
  if (sendTo.length > 0) {
    await checkSendTargets(
      sendTo,
      result.outputs.map((o) => o.format),
      { plaintextSecrets: true },
    );
    await send(result, sendTo, flags.json === true);
  }
}

function pendingSentence(check: Extract<OcrCheck, { state: 'pending' }>): string {
  const minutes = Math.max(0, Math.round((Date.now() - Date.parse(check.pending.submittedAt)) / 60_000));
  const since = minutes < 1 ? 'less than a minute ago' : minutes === 1 ? 'a minute ago' : `${minutes} minutes ago`;
  return `${check.name}: the OCR batch is still running (${check.status}, submitted ${since}); check again later with: quire run ${shellQuote(check.projectDir)} --check-ocr`;
}

function pendingSummary(check: Extract<OcrCheck, { state: 'pending' }>): Partial<DocumentReport> {
  return {
    name: check.name,
    project: check.projectDir,
    ocr_pending: { engine: check.pending.engine, status: check.status, batch_ids: check.pending.batchIds, submitted_at: check.pending.submittedAt },
  };
}

/** A path as it can be pasted into a shell. */
function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

async function send(result: ConvertResult, slugs: string[], quiet: boolean): Promise<void> {
  const outcomes = await sendTo(result, slugs, {
    plaintextSecrets: true,
    onOutcome: (o) => (quiet ? undefined : process.stderr.write(printable(describeSendOutcome(o)) + '\n')),
  });
  const failed = outcomes.filter((o) => !o.result.ok);
  if (failed.length > 0) {
    throw new QuireError(
      ERROR_CODES.SEND_FAILED,
      `${failed.length} of ${outcomes.length} sends failed: ${failed.map((o) => `${o.slug}: ${o.result.message}`).join(' ')}`,
    );
  }
}

/** The inputs, each once: one given twice (under any spelling of its path) is converted once, and the user told. */
function withoutRepeats(inputs: string[]): string[] {
  const seen = new Map<string, string>();
  const kept: string[] = [];
  for (const input of inputs) {
    const key = realPathOf(input);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, input);
      kept.push(input);
    } else {
      process.stderr.write(`quire: ${printable(input)} ${input === first ? 'is given twice' : `is ${printable(first)} again`}; it is converted once.\n`);
    }
  }
  return kept;
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Image files given together make one document; every other input is a document of its own. */
export function groupInputs(inputs: string[]): string[][] {
  const images = inputs.filter((p) => inputType(p) === 'image');
  const others = inputs.filter((p) => inputType(p) !== 'image').map((p) => [p]);
  return images.length > 0 ? [...others, images] : others;
}

function summary(r: ConvertResult, checked?: CheckedDocument): Partial<DocumentReport> {
  const round = (n: number): number => Math.round(n);
  return {
    name: r.name,
    ...(checked ? { file_stem: checked.fileStem } : {}),
    ...(checked?.renamed ? { renamed: checked.renamed } : {}),
    outputs: r.outputs,
    frames: r.frames,
    pages: r.pages,
    ...(r.keptPages ? { kept_pages: r.keptPages } : {}),
    ...(r.projectDir ? { project: r.projectDir } : {}),
    ...(r.ocr ? { ocr: r.ocr } : {}),
    ...(r.outOfFocus ? { out_of_focus_pages: r.outOfFocus } : {}),
    ...(r.ocrPending ? { ocr_pending: { engine: r.ocrPending.engine, batch_ids: r.ocrPending.batchIds, submitted_at: r.ocrPending.submittedAt } } : {}),
    timings_ms: {
      total: round(r.timings.total),
      pipeline: round(r.timings.pipeline),
      ocr: round(r.timings.ocr),
      export: round(r.timings.export),
      steps: Object.fromEntries(Object.entries(r.timings.steps).map(([k, v]) => [k, round(v)])),
    },
    pages_per_second: r.timings.pipeline > 0 ? Math.round((r.pages / (r.timings.total / 1000)) * 100) / 100 : null,
  };
}

function printSummary(r: ConvertResult, checked?: CheckedDocument): void {
  const secs = (r.timings.total / 1000).toFixed(1);
  const ocr = r.ocr ? `, OCR ${r.ocr.engine}${r.ocr.languages.length > 0 ? ` (${r.ocr.languages.join('+')})` : ''}` : '';
  const kept = r.keptPages ? ` (${r.keptPages} kept with their own text)` : '';
  const out = (line: string): boolean => process.stdout.write(`${printable(line)}\n`);
  out(`${r.name}: ${count(r.frames, 'frame')} → ${count(r.pages, 'page')}${kept}${ocr} in ${secs} s`);
  const correction = r.ocr?.correction;
  if (correction?.enabled) {
    out(
      `  ${count(correction.corrected, 'word')} corrected (${correction.checked.join('+') || 'no'} dictionary, grammar, punctuation), ${count(correction.unknown, 'word')} left as read for lack of a single match`,
    );
    if (correction.unchecked.length > 0) out(`  no dictionary for ${correction.unchecked.join(', ')}: those words were left as read`);
  }
  if (r.outOfFocus) {
    const one = r.outOfFocus.length === 1;
    out(
      `  ${pageList(r.outOfFocus)} ${one ? 'looks' : 'look'} out of focus or shaken: ${one ? 'its' : 'their'} text is the least sure; take ${one ? 'it' : 'them'} again for a better one`,
    );
  }
  if (checked?.renamed === 'taken') out(`  written as "${checked.fileStem}": another document of this run is also called "${r.name}"`);
  if (checked?.renamed === 'shortened') out(`  written as "${checked.fileStem}": the name was shortened to fit the output folder's file system`);
  for (const o of r.outputs) out(`  ${o.format}: ${o.path} (${formatBytes(o.bytes)})`);
  if (r.projectDir) out(`  project kept in ${r.projectDir}`);
  if (r.ocrPending && r.projectDir) {
    out(`  OCR submitted as a batch (${r.ocrPending.batchIds.join(', ')}); the other exports are written when it is done.`);
    out(`  Finish with: quire run ${shellQuote(r.projectDir)} --check-ocr`);
  }
}

/** "page 3", "pages 3, 5, and 7"; past a dozen, the first twelve and "and 20 more". */
function pageList(pages: readonly number[]): string {
  if (pages.length === 1) return `page ${pages[0]}`;
  const shown = pages.length > PAGES_LISTED ? [...pages.slice(0, PAGES_LISTED).map(String), `${pages.length - PAGES_LISTED} more`] : pages.map(String);
  return `pages ${new Intl.ListFormat('en', { type: 'conjunction' }).format(shown)}`;
}

const PAGES_LISTED = 12;

function parsePipeline(value: string): PresetName {
  if (!isPresetName(value)) throw new InvalidArgumentError('valid presets are book, sheet and flat.');
  return value;
}

export function parseDpi(value: string): { value: number; force: boolean } {
  const m = /^(force:)?(\d+(?:\.\d+)?)$/.exec(value.trim());
  const n = m ? Number(m[2]) : NaN;
  if (!m || !(n >= 50 && n <= 2400)) throw new InvalidArgumentError('give a resolution from 50 to 2400, as N or force:N (e.g. 300 or force:300).');
  return { value: n, force: Boolean(m[1]) };
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('give a whole number from 1 to 64.');
  return n;
}

function parseMargin(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 50) throw new InvalidArgumentError('give a margin from 0 to 50 mm.');
  return n;
}

/** `3:120,40,900,1300` (a page box; twice for a spread's two pages) or `3:split=960`, gathered by frame. */
export function parsePageBox(value: string, previous: Map<number, HandSetPages> | undefined): Map<number, HandSetPages> {
  const boxes = new Map(previous ?? []);
  const m = /^(\d+):(?:split=(\d+)|(\d+),(\d+),(\d+),(\d+))$/.exec(value.trim());
  if (!m || Number(m[1]) < 1)
    throw new InvalidArgumentError('give a frame and its page box in pixels as frame:x,y,width,height (e.g. 2:100,40,900,1300), or frame:split=x.');
  const frame = Number(m[1]);
  const had = boxes.get(frame);
  if (m[2] !== undefined) {
    if (had) throw new InvalidArgumentError(`frame ${frame} is given twice; a split set by hand goes alone.`);
    boxes.set(frame, { splitX: Number(m[2]) });
    return boxes;
  }
  const box = { x: Number(m[3]), y: Number(m[4]), width: Number(m[5]), height: Number(m[6]) };
  if (had && !('boxes' in had && had.boxes.length === 1))
    throw new InvalidArgumentError(`frame ${frame} has at most two page boxes, and no split beside them.`);
  boxes.set(frame, { boxes: had ? [...had.boxes, box] : [box] });
  return boxes;
}

function parseOnOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('use on or off.');
}
