/**
 * The host's tesseract for OCR engine plugins: a plugin may not start programs, so it names a page and a
 * `.traineddata` file of its own (in its folder or its `files/`), and the host runs `tesseract` on them — with only
 * that model in a private tessdata folder, one thread, no network — and hands back tesseract's TSV.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MODEL_FILE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}\.traineddata$/;
const TESSERACT_TIMEOUT_MS = 5 * 60_000;

export interface TesseractBrokerOptions {
  exchangeDir: string;
  /** The plugin declared `[capabilities] tesseract = true`. */
  allowed: boolean;
  /** Where its models may be: its own folder, its `files/`. */
  modelDirs: string[];
}

/** Run tesseract for a plugin's request; never throws, answers `{ ok: false, error }` instead. */
export async function runTesseractForPlugin(
  request: { file: string; width: number; height: number; dpi: number; model: string; psm: number },
  options: TesseractBrokerOptions,
): Promise<{ ok: boolean; tsv?: string; error?: string }> {
  if (!options.allowed) return { ok: false, error: 'this plugin does not declare [capabilities] tesseract = true' };
  if (!MODEL_FILE.test(request.model)) return { ok: false, error: `"${request.model.slice(0, 90)}" is not a .traineddata file name` };
  const model = options.modelDirs.map((dir) => join(dir, request.model)).find((p) => existsSync(p) && statSync(p).isFile());
  if (!model) return { ok: false, error: `${request.model} is neither in the plugin's folder nor in its files folder` };
  const { width, height } = request;
  const psm = Number.isInteger(request.psm) && request.psm >= 0 && request.psm <= 13 ? request.psm : 3;
  const input = join(options.exchangeDir, String(request.file).replace(/[^A-Za-z0-9.-]/g, ''));
  const work = mkdtempSync(join(options.exchangeDir, 'tess-'));
  try {
    const pixels = readFileSync(input);
    if (!Number.isInteger(width) || !Number.isInteger(height) || pixels.length !== width * height)
      return { ok: false, error: 'the page does not match its size' };
    const pgm = join(work, 'page.pgm');
    writeFileSync(pgm, Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`), pixels]));
    const tessdata = join(work, 'tessdata');
    mkdirSync(tessdata);
    symlinkSync(model, join(tessdata, request.model));
    const lang = request.model.replace(/\.traineddata$/, '');
    const dpi = Math.round(request.dpi > 0 ? request.dpi : 300);
    const tsv = await new Promise<string>((resolve, reject) => {
      execFile(
        'tesseract',
        [pgm, 'stdout', '--tessdata-dir', tessdata, '-l', lang, '--psm', String(psm), '--dpi', String(dpi), '-c', 'tessedit_create_tsv=1'],
        { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OMP_THREAD_LIMIT: '1' }, timeout: TESSERACT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message.split('\n')[0]} ${String(stderr).slice(0, 300)}`)) : resolve(String(stdout))),
      );
    });
    return { ok: true, tsv };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(input, { force: true });
  }
}
