/**
 * A slim project made for proofreading tests: two pages of known text set in DejaVu Sans Mono (so every word's box
 * is known to the pixel), with OCR results that misread a few words the way an engine does — low confidence on
 * some, one changed by the correction step — while the page images show the true text.
 */
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import yazl from 'yazl';
import type { OcrPage, OcrWord, ProjectManifest } from '../../src/project/index.js';

export const PAGE = { width: 1240, height: 1754, dpi: 150 };
const FONT = 52;
/** DejaVu Sans Mono advances 1233/2048 em per character. */
const ADVANCE = (FONT * 1233) / 2048;
const LEFT = 110;
const TOP = 200;
const LEADING = 84;

/** One word as drawn, and as the engine "read" it. */
interface Reading {
  read?: string;
  confidence?: number;
  correction?: { from: string; reason: string };
}

/** Each page: paragraphs of lines of words; a word is its true text, or [true text, what the engine gave]. */
type Word = string | [string, Reading];
const PAGES: Word[][][][] = [
  [
    [['Chapter', 'One']],
    [
      ['It', 'was', ['the', { read: 'tbe', confidence: 41 }], 'best', 'of', 'times,', 'it'],
      ['was', 'the', 'worst', 'of', 'times,', 'in', 'a'],
      [
        ['modern', { correction: { from: 'rnodern', reason: 'not in the dictionary; the dictionary has modern' } }],
        'age',
        'of',
        ['wisdom.', { read: 'wisd0m.', confidence: 55 }],
      ],
    ],
  ],
  [
    [
      ['The', 'second', 'page', 'has', 'one'],
      [['doubtful', { read: 'doubtfu1', confidence: 38 }], 'word', 'and', 'the', 'rest'],
      ['reads', 'clean.'],
    ],
  ],
];

/** The words each page's OCR gives, in reading order, and which are doubtful. */
export const READ_WORDS = PAGES.map((page) => page.flat(2).map((w) => (typeof w === 'string' ? w : (w[1].read ?? w[0]))));
/** The true text of every page, one string per page. */
export const TRUE_TEXT = PAGES.map((page) =>
  page.map((para) => para.map((line) => line.map((w) => (typeof w === 'string' ? w : w[0])).join(' ')).join(' ')).join('\n'),
);

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function pageOf(paragraphs: Word[][][]): Promise<{ jpeg: Buffer; ocr: OcrPage }> {
  const texts: string[] = [];
  const ocrParagraphs: OcrPage['blocks'][number]['paragraphs'] = [];
  let baseline = TOP;
  for (const paragraph of paragraphs) {
    const lines: OcrPage['blocks'][number]['paragraphs'][number]['lines'] = [];
    for (const line of paragraph) {
      let column = 0;
      const words: OcrWord[] = [];
      const truth: string[] = [];
      for (const w of line) {
        const [text, reading] = typeof w === 'string' ? [w, {} as Reading] : w;
        const x0 = Math.round(LEFT + column * ADVANCE);
        const x1 = Math.round(LEFT + (column + text.length) * ADVANCE);
        words.push({
          text: reading.read ?? text,
          box: { x0, y0: Math.round(baseline - FONT * 0.78), x1, y1: Math.round(baseline + FONT * 0.22) },
          confidence: reading.confidence ?? 93,
          ...(reading.correction ? { correction: reading.correction } : {}),
        });
        truth.push(text);
        column += text.length + 1;
      }
      texts.push(`<text x="${LEFT}" y="${baseline}">${escapeXml(truth.join(' '))}</text>`);
      const box = { x0: words[0].box.x0, y0: words[0].box.y0, x1: words[words.length - 1].box.x1, y1: words[0].box.y1 };
      lines.push({ box, baseline: { x0: box.x0, y0: baseline, x1: box.x1, y1: baseline }, words });
      baseline += LEADING;
    }
    baseline += LEADING / 2;
    const box = { x0: LEFT, y0: lines[0].box.y0, x1: Math.max(...lines.map((l) => l.box.x1)), y1: lines[lines.length - 1].box.y1 };
    ocrParagraphs.push({ box, lines });
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}" height="${PAGE.height}">` +
    `<rect width="100%" height="100%" fill="#fff"/>` +
    `<g font-family="DejaVu Sans Mono" font-size="${FONT}" fill="#111" xml:space="preserve">${texts.join('')}</g></svg>`;
  const jpeg = await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).greyscale().jpeg({ quality: 85 }).toBuffer();
  const all = ocrParagraphs.flatMap((p) => [p.box]);
  const block = { x0: LEFT, y0: Math.min(...all.map((b) => b.y0)), x1: Math.max(...all.map((b) => b.x1)), y1: Math.max(...all.map((b) => b.y1)) };
  return {
    jpeg,
    ocr: {
      width: PAGE.width,
      height: PAGE.height,
      dpi: PAGE.dpi,
      engine: 'tesseract',
      languages: ['eng'],
      blocks: [{ box: block, paragraphs: ocrParagraphs }],
    },
  };
}

/** Write the slim project (`.quire`) to `path`, named `name`. */
export async function writeProofProject(path: string, name = 'Proof sample'): Promise<void> {
  const zip = new yazl.ZipFile();
  const manifest: ProjectManifest = {
    format: 'quire-project',
    version: 1,
    name,
    created: new Date(0).toISOString(),
    inputs: ['proof.png'],
    pages: [],
    ocr: { engine: 'tesseract', languages: ['eng'] },
  };
  for (const [i, paragraphs] of PAGES.entries()) {
    const index = i + 1;
    const { jpeg, ocr } = await pageOf(paragraphs);
    const file = `pages/${String(index).padStart(4, '0')}.jpg`;
    const ocrFile = `ocr/${String(index).padStart(4, '0')}.json`;
    zip.addBuffer(jpeg, file);
    zip.addBuffer(Buffer.from(JSON.stringify(ocr)), ocrFile);
    manifest.pages.push({
      index,
      file,
      kind: 'gray',
      width: PAGE.width,
      height: PAGE.height,
      dpi: PAGE.dpi,
      ocr: ocrFile,
      source: { input: 'proof.png', frame: index, side: 'single' },
      // The second page was photographed out of focus: its edges measured as a blurred webcam capture's.
      decisions: {
        preset: 'flat',
        inputDpi: { value: PAGE.dpi, source: 'image' },
        ...(index === 2 ? { scale: 2.1, sharpen: { edgeBlurPx: 1.66, amount: 0 } } : {}),
      },
    });
  }
  zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2)), 'project.json');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
}
