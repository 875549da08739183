import { Command, InvalidArgumentError, Option } from 'commander';
import { checkProjectOcr, convert, send as sendTo, type ConvertResult, type OcrCheck } from '../../convert/index.js';
import { ERROR_CODES, QuireError } from '../../errors.js';
import { parseExportList } from '../../export/index.js';
import { checkSendTargets, describeSendOutcome, parseSendTo } from '../../plugins/index.js';
import { inputType } from '../../ingest/index.js';
import { isPresetName } from '../../pipeline/index.js';
import type { PresetName } from '../../project/index.js';
import { formatBytes } from '../../util/index.js';
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
}

export function runCommand(): Command {
  const cmd = new Command('run')
    .description('convert scan bundles, PDFs or images into clean page PDFs (and Markdown, textpacks, slim projects)')
    .argument('<inputs...>', 'a scan bundle (.aglbundle, .zip or folder), a PDF, a slim project (.quire), or image files (taken together as one document)')
    .option('-e, --export <formats>', 'exports, +-joined, each with :options (e.g. pdf:g4+md); see `quire list exports`', 'pdf')
    .option('-o, --output <dir>', 'folder for the outputs', '.')
    .addOption(new Option('-p, --pipeline <preset>', 'pipeline preset (default: book for bundles and camera photos, sheet for scans, flat for vector PDFs)').argParser(parsePipeline))
    .option('--ocr <engine>', 'OCR engine spec: auto, tesseract, tesseract:lang=fra+lat, remoteocr, remoteocr:batch, none (default: no OCR unless an export needs text)')
    .option('--check-ocr', "with a kept project: if its OCR batch (--ocr remoteocr:batch) is done, finish the OCR and write the exports asked for; else say it is still running");
  addSharedOptions(cmd);
  return cmd.action((inputs: string[], flags: ConversionFlags) => runConversion(inputs, flags));
}

/** Options `quire run` and `quire ocr` share. */
export function addSharedOptions(cmd: Command): Command {
  return cmd
    .option('--ocr-lang <langs>', 'OCR languages, +-joined BCP-47 (fr-FR+la) or tesseract codes (fra+lat), or auto (default)')
    .option('--rotate-pages <on|off>', 'turn pages found upside down or sideways before reading them (default on)', parseOnOff)
    .option('--no-correct', "keep the words as the OCR engine read them: no dictionary check of accents and look-alike letters (each correction is otherwise recorded in the project's ocr/*.json)")
    .option('--dpi <N|force:N>', 'input resolution where the input does not say it; force:N overrides it everywhere', parseDpi)
    .option('--keep-project <dir>', 'keep the working project folder (project.json with every decision, page images, OCR) in <dir>')
    .option('--workers <n>', 'pipeline threads (default: number of cores)', parsePositiveInt)
    .option('--margin-mm <mm>', 'margin kept around the printed area, in mm (default 4)', parseMargin)
    .option('--send-to <slugs>', 'after the exports, send every file a destination accepts to these installed destinations, +-joined (see `quire list destinations`)')
    .option('--json', 'print one JSON summary (outputs, pages, timings) instead of progress');
}

/** Convert each document the inputs make, printing progress and a summary. */
export async function runConversion(inputs: string[], flags: ConversionFlags): Promise<void> {
  if (flags.checkOcr) return checkOcr(inputs, flags);
  const requests = parseExportList(flags.export); // usage errors before any work
  const sendTo = flags.sendTo ? parseSendTo(flags.sendTo) : [];
  // A destination that is missing or not set up fails the run before any work.
  if (sendTo.length > 0) await checkSendTargets(sendTo, requests.map((r) => r.format), { plaintextSecrets: true });
  const documents = groupInputs(inputs);
  if (flags.keepProject && documents.length > 1) {
    throw new QuireError(ERROR_CODES.USAGE, '--keep-project keeps one project, so give it one document at a time.');
  }
  const mode = flags.json ? 'quiet' : process.stderr.isTTY ? 'tty' : 'lines';
  const results: ConvertResult[] = [];
  for (const doc of documents) {
    const result = await convert(doc, {
      exports: flags.export,
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
      onProgress: progressReporter(mode),
    });
    results.push(result);
    if (!flags.json) printSummary(result);
    // Sending waits for the text: the exports sent are the finished ones, from --check-ocr.
    if (sendTo.length > 0 && !result.ocrPending) await send(result, sendTo, flags.json === true);
  }
  if (flags.json) process.stdout.write(JSON.stringify(results.length === 1 ? summary(results[0]) : results.map(summary), null, 2) + '\n');
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
    if (flags.json) process.stdout.write(JSON.stringify(pendingSummary(check), null, 2) + '\n');
    else process.stdout.write(`${pendingSentence(check)}\n`);
    return;
  }
  if (check.state === 'failed') throw new QuireError(ERROR_CODES.REMOTE_OCR_FAILED, check.message, check.detail);
  const result = check.result;
  if (flags.json) process.stdout.write(JSON.stringify(summary(result), null, 2) + '\n');
  else printSummary(result);
  if (sendTo.length > 0) {
    await checkSendTargets(sendTo, result.outputs.map((o) => o.format), { plaintextSecrets: true });
    await send(result, sendTo, flags.json === true);
  }
}

function pendingSentence(check: Extract<OcrCheck, { state: 'pending' }>): string {
  const minutes = Math.max(0, Math.round((Date.now() - Date.parse(check.pending.submittedAt)) / 60_000));
  const since = minutes < 1 ? 'less than a minute ago' : minutes === 1 ? 'a minute ago' : `${minutes} minutes ago`;
  return `${check.name}: the OCR batch is still running (${check.status}, submitted ${since}); check again later with: quire run ${shellQuote(check.projectDir)} --check-ocr`;
}

function pendingSummary(check: Extract<OcrCheck, { state: 'pending' }>): object {
  return { name: check.name, project: check.projectDir, ocr_pending: { engine: check.pending.engine, status: check.status, batch_ids: check.pending.batchIds, submitted_at: check.pending.submittedAt } };
}

/** A path as it can be pasted into a shell. */
function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

async function send(result: ConvertResult, slugs: string[], quiet: boolean): Promise<void> {
  const outcomes = await sendTo(result, slugs, {
    plaintextSecrets: true,
    onOutcome: (o) => (quiet ? undefined : process.stderr.write(describeSendOutcome(o) + '\n')),
  });
  const failed = outcomes.filter((o) => !o.result.ok);
  if (failed.length > 0) {
    throw new QuireError(ERROR_CODES.SEND_FAILED, `${failed.length} of ${outcomes.length} sends failed: ${failed.map((o) => `${o.slug}: ${o.result.message}`).join(' ')}`);
  }
}

/** Image files given together make one document; every other input is a document of its own. */
export function groupInputs(inputs: string[]): string[][] {
  const images = inputs.filter((p) => inputType(p) === 'image');
  const others = inputs.filter((p) => inputType(p) !== 'image').map((p) => [p]);
  return images.length > 0 ? [...others, images] : others;
}

function summary(r: ConvertResult): object {
  const round = (n: number): number => Math.round(n);
  return {
    name: r.name,
    outputs: r.outputs,
    frames: r.frames,
    pages: r.pages,
    ...(r.keptPages ? { kept_pages: r.keptPages } : {}),
    ...(r.projectDir ? { project: r.projectDir } : {}),
    ...(r.ocr ? { ocr: r.ocr } : {}),
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

function printSummary(r: ConvertResult): void {
  const secs = (r.timings.total / 1000).toFixed(1);
  const ocr = r.ocr ? `, OCR ${r.ocr.engine}${r.ocr.languages.length > 0 ? ` (${r.ocr.languages.join('+')})` : ''}` : '';
  const kept = r.keptPages ? ` (${r.keptPages} kept with their own text)` : '';
  process.stdout.write(`${r.name}: ${r.frames} frame${r.frames === 1 ? '' : 's'} → ${r.pages} page${r.pages === 1 ? '' : 's'}${kept}${ocr} in ${secs} s\n`);
  const correction = r.ocr?.correction;
  if (correction?.enabled) {
    const words = (n: number): string => `${n} word${n === 1 ? '' : 's'}`;
    process.stdout.write(`  ${words(correction.corrected)} corrected against the ${correction.checked.join('+') || 'no'} dictionary, ${words(correction.unknown)} left as read for lack of a single match\n`);
    if (correction.unchecked.length > 0) process.stdout.write(`  no dictionary for ${correction.unchecked.join(', ')}: those words were left as read\n`);
  }
  for (const o of r.outputs) process.stdout.write(`  ${o.format}: ${o.path} (${formatBytes(o.bytes)})\n`);
  if (r.projectDir) process.stdout.write(`  project kept in ${r.projectDir}\n`);
  if (r.ocrPending && r.projectDir) {
    process.stdout.write(`  OCR submitted as a batch (${r.ocrPending.batchIds.join(', ')}); the other exports are written when it is done.\n`);
    process.stdout.write(`  Finish with: quire run ${shellQuote(r.projectDir)} --check-ocr\n`);
  }
}

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

function parseOnOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('use on or off.');
}
