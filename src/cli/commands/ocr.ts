import { Command } from 'commander';
import { addSharedOptions, runConversion, type ConversionFlags } from './run.js';

/**
 * `quire ocr`: OCR documents that need no geometry (born-digital PDFs, flat scans) with the `flat` preset. PDF pages
 * that already have a text layer are kept as they are unless `--force-ocr`.
 */
export function ocrCommand(): Command {
  const cmd = new Command('ocr')
    .description(
      'make PDFs and images searchable without reshaping their pages (the flat preset), and write Markdown from them; PDF pages that already have text are kept as they are',
    )
    .argument('<inputs...>', 'a PDF, a scan bundle, or image files (taken together as one document)')
    .option('-e, --export <formats>', 'exports, +-joined (e.g. pdf+md+textpack); see `quire list exports`', 'pdf')
    .option('-o, --output <dir>', 'folder for the outputs', '.')
    .option('--ocr <engine>', 'OCR engine spec: auto, tesseract, tesseract:lang=fra+lat', 'auto')
    .option(
      '--force-ocr',
      'rasterise and OCR every PDF page, even one that already has text (by default such a page is copied as it is, its own text used for md and textpack)',
    );
  addSharedOptions(cmd);
  return cmd.action((inputs: string[], flags: ConversionFlags) => runConversion(inputs, { ...flags, pipeline: 'flat', keepTextPages: true }));
}
