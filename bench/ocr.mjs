// npm run bench:ocr — OCR quality and speed.
// A. The example bundle (synthetic camera frames, known text): CER of the Markdown and of the PDF
//    text layer against the truth.
// B. A 20-page clean 300-dpi PDF of known text: pages/minute of `quire ocr`, and — when Debian's
//    `ocrmypdf` and `tesseract` are installed — of `ocrmypdf --jobs 2` on the same file in the same
//    run, with CER and bytes per page of both.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { BOOKS } from '../scripts/sample-text.mjs';
import { cer, markdownBody } from './text-metrics.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quire = join(root, 'bin', 'quire.js');
const work = mkdtempSync(join(tmpdir(), 'quire-bench-ocr-'));

try {
  const a = await sampleQuality();
  const b = await cleanPdfSpeed();
  console.log('\nA. Example bundle (3 synthetic webcam frames → 6 pages), OCR auto');
  console.log('| measure | value |');
  console.log('| --- | --- |');
  console.log(`| languages detected | ${a.languages} |`);
  console.log(`| CER, Markdown body vs truth | ${(a.mdCer * 100).toFixed(2)} % |`);
  console.log(`| CER, PDF text layer (pdftotext -raw) vs truth | ${(a.pdfCer * 100).toFixed(2)} % |`);
  console.log(`| wall time | ${a.seconds.toFixed(1)} s |`);
  console.log(`\nB. ${b.pages}-page clean 300-dpi PDF (A5, 11 pt), English`);
  console.log('| tool | wall s | pages/min | CER | bytes/page | ratio of wall time to Quire |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of b.rows) {
    console.log(`| ${r.tool} | ${r.seconds.toFixed(1)} | ${((b.pages / r.seconds) * 60).toFixed(1)} | ${(r.cer * 100).toFixed(2)} % | ${Math.round(r.bytes / b.pages)} | ${(r.seconds / b.rows[0].seconds).toFixed(2)} |`);
  }
  if (!b.rows.some((r) => r.tool.startsWith('ocrmypdf'))) console.log('(ocrmypdf not installed: apt-get install ocrmypdf tesseract-ocr-eng to compare)');
  console.log('The Quire rows use 2 workers; `auto` picks Debian\'s native tesseract when it is installed with the languages needed.');
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function sampleQuality() {
  const out = join(work, 'sample');
  const t0 = performance.now();
  const r = runQuire(['run', join(root, 'examples', 'sample.aglbundle'), '--ocr', 'auto', '--export', 'pdf+md', '-o', out, '--json']);
  const seconds = (performance.now() - t0) / 1000;
  const [summary] = JSON.parse(r);
  const truth = JSON.parse(readFileSync(join(root, 'examples', 'sample.truth.json'), 'utf8'));
  const truthPages = truth.frames.flatMap((f) => f.pages);
  const md = readFileSync(summary.outputs.find((o) => o.format === 'md').path, 'utf8');
  const mdCer = cer(truthPages.map((p) => p.text).join('\n\n'), markdownBody(md));
  const pdf = summary.outputs.find((o) => o.format === 'pdf').path;
  let errors = 0;
  let chars = 0;
  truthPages.forEach((p, i) => {
    const want = [p.runningHead, p.text, ...p.footnotes, String(p.number)].join('\n');
    const got = execFileSync('pdftotext', ['-raw', '-f', String(i + 1), '-l', String(i + 1), pdf, '-'], { encoding: 'utf8' });
    const n = want.replace(/\s+/g, ' ').length;
    errors += cer(want, got) * n;
    chars += n;
  });
  return { mdCer, pdfCer: errors / chars, seconds, languages: summary.ocr.languages.join('+') };
}

async function cleanPdfSpeed() {
  const pages = 20;
  const text = BOOKS.flatMap((b) => b.chapters.flatMap((c) => c.paragraphs)).map((p) => p.replace(/\[\d+\]/g, '')).filter((p) => /^[\x20-\x7e“”’‘—]+$/.test(p));
  const lines = wrap(text.join(' '), 58);
  const perPage = 36;
  const doc = await PDFDocument.create();
  const truth = [];
  for (let i = 0; i < pages; i++) {
    const pageLines = Array.from({ length: perPage }, (_, k) => lines[(i * perPage + k) % lines.length]);
    truth.push(pageLines.join('\n'));
    const png = await renderPage(pageLines);
    const image = await doc.embedPng(png);
    const page = doc.addPage([419.53, 595.28]);
    page.drawImage(image, { x: 0, y: 0, width: 419.53, height: 595.28 });
  }
  const input = join(work, 'clean.pdf');
  writeFileSync(input, await doc.save());
  const rows = [];

  // `auto` (native tesseract when installed), then tesseract.js named explicitly.
  let t0 = performance.now();
  const [summary] = JSON.parse(runQuire(['ocr', input, '--ocr-lang', 'eng', '-o', join(work, 'quire-auto'), '--json']));
  rows.push(measure(`quire ocr, auto → ${summary.ocr.engine}`, (performance.now() - t0) / 1000, summary.outputs[0].path, truth));
  // The command a user types: no language named, so it is detected on sample pages first.
  t0 = performance.now();
  const [plain] = JSON.parse(runQuire(['ocr', input, '-o', join(work, 'quire-default'), '--json']));
  rows.push(measure(`quire ocr, default options (${plain.ocr.languages.join('+')} detected)`, (performance.now() - t0) / 1000, plain.outputs[0].path, truth));
  t0 = performance.now();
  const [wasm] = JSON.parse(runQuire(['ocr', input, '--ocr', 'tesseract', '--ocr-lang', 'eng', '-o', join(work, 'quire-wasm'), '--json']));
  rows.push(measure('quire ocr, tesseract.js', (performance.now() - t0) / 1000, wasm.outputs[0].path, truth));

  if (has('ocrmypdf')) {
    const mOut = join(work, 'ocrmypdf.pdf');
    t0 = performance.now();
    const r = spawnSync('ocrmypdf', ['--jobs', '2', '-l', 'eng', '--output-type', 'pdf', input, mOut], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ocrmypdf failed: ${r.stderr}`);
    rows.push(measure('ocrmypdf --jobs 2', (performance.now() - t0) / 1000, mOut, truth));
  }
  return { pages, rows };
}

function measure(tool, seconds, pdf, truth) {
  const got = execFileSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8' }).split('\f').slice(0, truth.length);
  return { tool, seconds, cer: cer(truth.join('\n'), got.join('\n')), bytes: statSync(pdf).size };
}

function runQuire(args) {
  const r = spawnSync(process.execPath, [quire, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`quire ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

function wrap(text, width) {
  const out = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** An A5 page at 300 dpi, 11 pt DejaVu Serif on 13 pt leading, black on white, 1 bit. */
async function renderPage(lines) {
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const rows = lines.map((l, i) => `<text x="180" y="${260 + i * 54}" font-family="DejaVu Serif" font-size="45.8">${esc(l)}</text>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1748" height="2480"><rect width="100%" height="100%" fill="#fff"/>${rows}</svg>`;
  return sharp(Buffer.from(svg)).flatten({ background: '#fff' }).greyscale().threshold(128).png({ colours: 2 }).toBuffer();
}
