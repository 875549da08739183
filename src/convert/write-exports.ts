import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { exportRegistry, type ExportRegistry, type ExportRequest } from '../export/index.js';
import { loadOcrPages, type ProjectManifest, safeFileName } from '../project/index.js';

export interface WrittenExport {
  format: string;
  path: string;
  bytes: number;
}

/**
 * Write every requested export to `outDir` as `<document name>.<ext>`. All or nothing: if one
 * export fails, the ones already written are removed.
 */
export async function writeExports(
  project: { dir: string; manifest: ProjectManifest },
  requests: ExportRequest[],
  outDir: string,
  options: { fileStem?: string; onWritten?: (output: WrittenExport) => void; exporters?: ExportRegistry } = {},
): Promise<WrittenExport[]> {
  const { dir: projectDir, manifest } = project;
  const exporters = options.exporters ?? exportRegistry;
  const chosen = requests.map((req) => {
    const exporter = exporters.get(req.format);
    if (!exporter) throw new QuireError(ERROR_CODES.UNKNOWN_FORMAT, `Export format "${req.format}" is not available.`);
    return { exporter, options: req.options };
  });
  await mkdir(outDir, { recursive: true });
  const stem = join(outDir, options.fileStem ?? safeFileName(manifest.name));
  const ocr = await loadOcrPages(projectDir, manifest);
  const outputs: WrittenExport[] = [];
  try {
    for (const { exporter, options: exporterOptions } of chosen) {
      const path = `${stem}${exporter.extension}`;
      const bytes = await exporter.write({ projectDir, manifest, ocr, path }, exporterOptions);
      const output = { format: exporter.name, path, bytes };
      outputs.push(output);
      options.onWritten?.(output);
    }
  } catch (e) {
    await Promise.all(outputs.map((o) => rm(o.path, { force: true })));
    throw e;
  }
  return outputs;
}
