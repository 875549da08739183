import { join } from 'node:path';
import { ERROR_CODES, isQuireError, QuireError } from '../errors.js';
import { exportRegistry, type ExportRegistry, type ExportRequest } from '../export/index.js';
import { checkOutputFolder, fileSystemError, loadOcrPages, type ProjectManifest, safeFileName, stageOutputs } from '../project/index.js';

export interface WrittenExport {
  format: string;
  path: string;
  bytes: number;
}

export interface WriteExportsOptions {
  /** Output files are `<fileStem><extension>`; default the document name made safe as a file name. */
  fileStem?: string;
  /** Called for each output once all are in place. */
  onWritten?: (output: WrittenExport) => void;
  exporters?: ExportRegistry;
  /** Checked between exports and before the outputs are moved into place: a cancelled write leaves nothing. */
  signal?: AbortSignal;
  /** Bytes the exports are expected to take: said beside the free space when the device fills up. */
  expectedBytes?: number;
}

/**
 * Write every requested export to `outDir` as `<document name>.<ext>`, as one transaction: each is written into a
 * staging folder inside `outDir`, and only when all succeeded are they moved into place, replacing earlier files of
 * the same names. When one fails (or the write is cancelled) nothing in `outDir` changes. A file-system failure is
 * said in one sentence that names the output and the reason.
 */
export async function writeExports(
  project: { dir: string; manifest: ProjectManifest },
  requests: ExportRequest[],
  outDir: string,
  options: WriteExportsOptions = {},
): Promise<WrittenExport[]> {
  const { dir: projectDir, manifest } = project;
  const exporters = options.exporters ?? exportRegistry;
  const chosen = requests.map((req) => {
    const exporter = exporters.get(req.format);
    if (!exporter) throw new QuireError(ERROR_CODES.UNKNOWN_FORMAT, `Export format "${req.format}" is not available.`);
    return { exporter, options: req.options };
  });
  const { dir } = await checkOutputFolder(outDir);
  const stem = join(dir, options.fileStem ?? safeFileName(manifest.name));
  const ocr = await loadOcrPages(projectDir, manifest);
  const staged = await stageOutputs(dir);
  const outputs: WrittenExport[] = [];
  const stopIfCancelled = (): void => {
    if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
  };
  try {
    for (const { exporter, options: exporterOptions } of chosen) {
      stopIfCancelled();
      const path = `${stem}${exporter.extension}`;
      const temp = staged.pathFor(path);
      try {
        const bytes = await exporter.write({ projectDir, manifest, ocr, path: temp }, exporterOptions);
        outputs.push({ format: exporter.name, path, bytes });
      } catch (e) {
        throw await outputError(e, temp, path, options.expectedBytes);
      }
    }
    stopIfCancelled();
    await staged.commit();
  } catch (e) {
    await staged.discard();
    throw e;
  }
  for (const output of outputs) options.onWritten?.(output);
  return outputs;
}

/** An exporter's failure, worded with the output's own name rather than the staging name it was written under. */
async function outputError(e: unknown, temp: string, path: string, needed: number | undefined): Promise<unknown> {
  if (isQuireError(e)) return e.message.includes(temp) ? new QuireError(e.code, e.message.split(temp).join(path), e.detail) : e;
  if (!(e instanceof Error) || !('code' in e)) return e;
  return fileSystemError(e, temp, { label: path, ...(needed ? { needed } : {}) });
}
