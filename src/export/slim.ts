import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type yazl from 'yazl';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { assertProjectFiles, PROJECT_FILE, replaceAtomically, unsafeEntryReason, type ProjectManifest } from '../project/index.js';

/** JPEG and G4 data do not shrink under deflate: store them as they are. */
const ALREADY_COMPRESSED = /\.(jpe?g|tiff?)$/i;

/**
 * Write a slim project: a zip (`.quire`) of `project.json` and the final page images, hidden
 * pages included, the source PDF when pages are kept from it, nothing else (no intermediates).
 * The file appears whole or not at all.
 */
export async function writeSlim(projectDir: string, manifest: ProjectManifest, outPath: string): Promise<{ bytes: number }> {
  const files = slimFiles(manifest);
  await assertProjectFiles(projectDir, manifest);

  const zip = new (await import('yazl')).default.ZipFile();
  zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), PROJECT_FILE, { compress: true, mode: 0o644 });
  for (const file of files) {
    zip.addFile(join(projectDir, file), file, { compress: !ALREADY_COMPRESSED.test(file), mode: 0o644 });
  }
  try {
    await replaceAtomically(outPath, (temp) => pipeZip(zip, temp));
  } catch (e) {
    throw new QuireError(ERROR_CODES.OUTPUT, `Could not write the slim project "${outPath}".`, describeError(e));
  }
  return { bytes: (await stat(outPath)).size };
}

/** The page image files a slim project carries, each checked to be a safe relative path. */
function slimFiles(manifest: ProjectManifest): string[] {
  const files = new Set<string>();
  for (const page of manifest.pages) {
    if (typeof page.file !== 'string' || unsafeEntryReason(page.file) || page.file === PROJECT_FILE) {
      throw new QuireError(ERROR_CODES.BAD_PROJECT, `Page ${page.index} names an image outside the project.`, String(page.file));
    }
    files.add(page.file);
    if (page.ocr !== undefined) {
      if (typeof page.ocr !== 'string' || unsafeEntryReason(page.ocr) || page.ocr === PROJECT_FILE) {
        throw new QuireError(ERROR_CODES.BAD_PROJECT, `Page ${page.index} names an OCR result outside the project.`, String(page.ocr));
      }
      files.add(page.ocr);
    }
  }
  return [...files];
}

function pipeZip(zip: yazl.ZipFile, temp: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const out = createWriteStream(temp, { mode: 0o644 });
    // yazl reports unreadable input files on the ZipFile, not on its output stream.
    zip.on('error', (e: unknown) => {
      out.destroy();
      reject(e);
    });
    pipeline(zip.outputStream, out).then(resolve, reject);
    zip.end();
  });
}
