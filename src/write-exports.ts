import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { ERROR_CODES, QuireError } from './errors.js';
import {
  documentToMarkdown,
  pdfPagesFromProject,
  replaceAtomically,
  writeFileAtomically,
  writePdf,
  writeSlim,
  type ExportRequest,
  type PdfOutputPage,
} from './export/index.js';
import type { OcrPage } from './ocr/index.js';
import { safeFileName, visiblePages, type ProjectManifest } from './project/index.js';
import { loadOcrPages } from './recognize.js';

export interface WrittenExport {
  format: string;
  path: string;
  bytes: number;
}

/** Everything an exporter may use, loaded once per run. */
interface ExportContext {
  projectDir: string;
  manifest: ProjectManifest;
  stem: string;
  ocr: Map<number, OcrPage>;
}

/**
 * Write every requested export to `outDir` as `<document name>.<ext>`. All or nothing: if one
 * export fails, the ones already written are removed.
 */
export async function writeExports(
  projectDir: string,
  manifest: ProjectManifest,
  requests: ExportRequest[],
  outDir: string,
  onWritten?: (output: WrittenExport) => void,
): Promise<WrittenExport[]> {
  await mkdir(outDir, { recursive: true });
  const ctx: ExportContext = { projectDir, manifest, stem: join(outDir, safeFileName(manifest.name)), ocr: await loadOcrPages(projectDir, manifest) };
  const outputs: WrittenExport[] = [];
  try {
    for (const req of requests) {
      const output = await writeOne(ctx, req);
      outputs.push(output);
      onWritten?.(output);
    }
  } catch (e) {
    await Promise.all(outputs.map((o) => rm(o.path, { force: true })));
    throw e;
  }
  return outputs;
}

async function writeOne(ctx: ExportContext, req: ExportRequest): Promise<WrittenExport> {
  switch (req.format) {
    case 'pdf': {
      const path = `${ctx.stem}.pdf`;
      const profile = (req.options.profile as 'auto' | 'g4' | 'jpeg' | undefined) ?? 'auto';
      const { bytes } = await writePdf(pdfPages(ctx), path, { profile, title: ctx.manifest.name });
      return { format: 'pdf', path, bytes };
    }
    case 'md': {
      const path = `${ctx.stem}.md`;
      const text = Buffer.from(markdownOf(ctx));
      await writeFileAtomically(path, text);
      return { format: 'md', path, bytes: text.length };
    }
    case 'textpack':
      return writeTextpack(ctx);
    case 'slim': {
      const path = `${ctx.stem}.quire`;
      const { bytes } = await writeSlim(ctx.projectDir, ctx.manifest, path);
      return { format: 'slim', path, bytes };
    }
    default:
      throw new QuireError(ERROR_CODES.UNKNOWN_FORMAT, `Export format "${req.format}" is not available.`);
  }
}

function pdfPages(ctx: ExportContext): PdfOutputPage[] {
  const pages = visiblePages(ctx.manifest);
  return pdfPagesFromProject(ctx.projectDir, ctx.manifest).map((p, i) => {
    // A page kept from the source PDF has its own text: no layer goes over it.
    const ocr = p.kind === 'pdf' ? undefined : ctx.ocr.get(pages[i].index);
    return ocr ? { ...p, ocr } : p;
  });
}

function ocrPagesInOrder(ctx: ExportContext): OcrPage[] {
  const pages = visiblePages(ctx.manifest);
  if (pages.some((p) => !ctx.ocr.has(p.index))) {
    throw new QuireError(ERROR_CODES.USAGE, 'Markdown and textpack exports need OCR; run again with --ocr auto.');
  }
  return pages.map((p) => ctx.ocr.get(p.index) as OcrPage);
}

function markdownOf(ctx: ExportContext): string {
  return documentToMarkdown(ocrPagesInOrder(ctx), { title: ctx.manifest.name });
}

/** `<name>_OCR.textpack`: the searchable PDF, the Markdown and the raw OCR result, for a corpus. */
async function writeTextpack(ctx: ExportContext): Promise<WrittenExport> {
  const path = `${ctx.stem}_OCR.textpack`;
  const ocrPages = ocrPagesInOrder(ctx);
  const pdfTemp = join(ctx.projectDir, `textpack-source-${process.pid}.pdf`);
  try {
    await writePdf(pdfPages(ctx), pdfTemp, { profile: 'auto', title: ctx.manifest.name });
    const bytes = await replaceAtomically(path, async (temp) => {
      const zip = new yazl.ZipFile();
      zip.addFile(pdfTemp, 'source.pdf', { compress: false });
      zip.addBuffer(Buffer.from(documentToMarkdown(ocrPages, { title: ctx.manifest.name })), 'text.md');
      zip.addBuffer(Buffer.from(JSON.stringify(ocrPages)), 'ocr.json');
      zip.end();
      await pipeline(zip.outputStream, createWriteStream(temp));
      return (await stat(temp)).size;
    });
    return { format: 'textpack', path, bytes };
  } finally {
    await rm(pdfTemp, { force: true });
  }
}
