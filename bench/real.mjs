// npm run bench:real — how well Quire reads a real capture it was not made on, against a careful hand transcription.
//
// Converts ../shared/samples/athanase.aglbundle (two webcam photos of a French scholarly book with Greek quotations)
// with the command a user types (`quire run <bundle> --ocr auto --export pdf+md`, no language named) and compares,
// page by page, with ../shared/gt/athanase/ (body, running head and notes of each page, transcribed by hand):
//   md      Quire's Markdown (the page's section: body and its footnotes; running heads are left out by design)
//   pdf     Quire's PDF text layer (pdftotext, one page at a time)
//   read    Quire's own reading before the lexicon-checked correction (the OCR page files, corrections undone)
//   plain   the plain engine on Quire's own cleaned page: Debian's `tesseract -l fra+ell` (fast models) reading the
//           bitonal page image the PDF shows — the baseline Quire must never fall below
// Figures: body word recall, accented-word recall (Latin letters with accents, body), Greek-word recall (body and
// notes), notes word recall, and CER over the page's text. Words are matched in order (a word alignment), so a body
// word is found only in its place.
//
//   npm run bench:real [-- --quire path/to/bin/quire.js] [--keep DIR] [--shared DIR] [--verbose]
//
// --verbose lists, page by page, the words a proofreader would miss (wrong in the text, not flagged) and the ones
// flagged for nothing (right), each with its confidence and what the correction step did to it.
//
// The transcription and the sample are read from ../shared at run time and never copied into the project; without
// them the benchmark says so and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagMetrics, pageWords, realTextMetrics, sumMetrics } from './text-metrics.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { isDoubtful } = await import(join(root, 'dist', 'project', 'index.js'));
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const quire = resolve(flag('--quire') ?? join(root, 'bin', 'quire.js'));
const shared = resolve(flag('--shared') ?? join(root, '..', 'shared'));
const sample = join(shared, 'samples', 'athanase.aglbundle');
const gtDir = join(shared, 'gt', 'athanase');
if (!existsSync(sample) || !existsSync(join(gtDir, 'README.md'))) {
  console.log(`bench:real: no real capture and transcription at ${shared} (samples/athanase.aglbundle, gt/athanase/): nothing to measure.`);
  process.exit(0);
}
const keep = flag('--keep');
const verbose = args.includes('--verbose');
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'quire-bench-real-'));
mkdirSync(work, { recursive: true });

try {
  const out = join(work, 'out');
  const project = join(work, 'project');
  rmSync(out, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
  const started = performance.now();
  const run = spawnSync(process.execPath, [quire, 'run', sample, '--ocr', 'auto', '--export', 'pdf+md', '-o', out, '--keep-project', project, '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const quireSeconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`quire run failed: ${run.stderr}`);
  const printed = JSON.parse(run.stdout);
  const summary = Array.isArray(printed) ? printed[0] : printed;
  const pdf = summary.outputs.find((o) => o.format === 'pdf').path;
  const md = readFileSync(summary.outputs.find((o) => o.format === 'md').path, 'utf8');
  const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8'));
  const stems = transcriptionStems(readFileSync(join(gtDir, 'README.md'), 'utf8'));

  const readers = ['md', 'pdf', 'read', 'plain'];
  const rows = [];
  let plainSeconds = 0;
  for (const [i, page] of manifest.pages.entries()) {
    const stem = stems.get(page.source.input);
    if (!stem) throw new Error(`the transcription has no page for ${page.source.input}`);
    const name = `${stem}_${page.source.side === 'right' ? 'R' : 'L'}`;
    const truth = {
      header: readLines(join(gtDir, `${name}.header.txt`)),
      body: readLines(join(gtDir, `${name}.body.txt`)),
      notes: readLines(join(gtDir, `${name}.notes.txt`)),
    };
    const plainStarted = performance.now();
    const plain = spawnSync('tesseract', [join(project, page.file), '-', '-l', 'fra+ell'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    plainSeconds += (performance.now() - plainStarted) / 1000;
    if (plain.status !== 0) throw new Error(`tesseract failed on ${page.file}: ${plain.stderr}`);
    const texts = {
      md: markdownPage(md, i + 1),
      pdf: spawnSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), '-enc', 'UTF-8', pdf, '-'], { encoding: 'utf8' }).stdout,
      read: ocrText(JSON.parse(readFileSync(join(project, page.ocr), 'utf8'))),
      plain: plain.stdout,
    };
    // The Markdown leaves the running head out on purpose (it is kept in the project); the others read it.
    const metrics = Object.fromEntries(readers.map((r) => [r, realTextMetrics(pageWords(truth, { header: r !== 'md' }), texts[r])]));
    // The words the proofreading view marks "to check", against the words that are wrong in the text Quire exports.
    const details = verbose ? [] : undefined;
    const flags = flagMetrics(
      pageWords(truth),
      ocrWords(JSON.parse(readFileSync(join(project, page.ocr), 'utf8'))).map((w) => ({
        text: w.text,
        flagged: isDoubtful(w),
        confidence: w.confidence,
        correction: w.correction,
        unknown: w.unknown,
      })),
      details,
    );
    rows.push({ name, folio: page.printed?.folio, metrics, flags, details });
  }

  const pct = (a, b) => (b === 0 ? '–' : (a / b).toFixed(3));
  const cells = (m) =>
    `${pct(m.bodyFound, m.body)} | ${pct(m.accentedFound, m.accented)} | ${pct(m.greekFound, m.greek)} | ${pct(m.notesFound, m.notes)} | ${((100 * m.edits) / Math.max(1, m.chars)).toFixed(2)} %`;
  console.log(
    `\nReal capture: ${basename(sample)}, ${manifest.pages.length} pages, against the hand transcription (engine ${summary.ocr?.engine}, languages ${summary.ocr?.languages?.join('+')})`,
  );
  console.log(
    "md: Quire's Markdown · pdf: Quire's PDF text layer · read: Quire's reading before correction · plain: `tesseract -l fra+ell` (Debian) on Quire's bitonal page\n",
  );
  console.log('| page | text | body words | accented | Greek | notes | CER |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) for (const r of readers) console.log(`| ${row.name} | ${r} | ${cells(row.metrics[r])} |`);
  for (const r of readers) console.log(`| **all** | ${r} | ${cells(sumMetrics(rows.map((row) => row.metrics[r])))} |`);
  const total = (r) => sumMetrics(rows.map((row) => row.metrics[r]));
  const flags = sumMetrics(rows.map((row) => row.flags));
  console.log(
    `\nwords to check (the proofreading view's doubtful words): ${flags.flagged} flagged, ${flags.wrong} wrong in the text; flag recall ${pct(flags.wrongFlagged, flags.wrong)} (wrong words flagged), flag precision ${pct(flags.wrongFlagged, flags.flagged)} (flagged words wrong)`,
  );
  if (verbose) {
    const describe = (d) =>
      `${d.text} (truth ${d.truth ?? '–'}; confidence ${Math.round(d.word.confidence)}${d.word.unknown ? ', unknown' : ''}${d.word.correction ? `, ${d.word.correction.reason} from ${d.word.correction.from}` : ''})`;
    for (const row of rows) {
      console.log(
        `\n${row.name}: wrong and not flagged: ${
          row.details
            .filter((d) => d.missed)
            .map(describe)
            .join(' · ') || 'none'
        }`,
      );
      console.log(
        `${row.name}: flagged and right: ${
          row.details
            .filter((d) => !d.missed)
            .map(describe)
            .join(' · ') || 'none'
        }`,
      );
    }
  }
  console.log(
    `counts (all pages): ${total('md').body} body words, ${total('md').accented} accented, ${total('md').greek} Greek, ${total('md').notes} note words`,
  );
  console.log(
    `quire run ${quireSeconds.toFixed(1)} s wall (OCR ${(summary.timings_ms.ocr / 1000).toFixed(1)} s of it); plain tesseract ${plainSeconds.toFixed(1)} s`,
  );
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}

function readLines(file) {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : [];
}

/** The transcription's own table: `| \`athanase_150\` | \`images/0001.jpg\` | …` → bundle file → image stem. */
function transcriptionStems(readme) {
  const stems = new Map();
  for (const m of readme.matchAll(/^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|/gm)) stems.set(m[2], m[1]);
  return stems;
}

/** Page `n`'s section of Quire's Markdown, as plain text: body paragraphs, headings and its footnotes. */
function markdownPage(md, n) {
  const sections = md.split(/<!-- page (\d+)[^>]*-->/);
  let text = '';
  for (let i = 1; i < sections.length; i += 2) if (Number(sections[i]) === n) text += sections[i + 1];
  return text
    .split('\n')
    .map((line) =>
      line
        .replace(/<!--[\s\S]*?-->/g, ' ')
        .replace(/^\[\^[^\]]+\]:\s*/, '')
        .replace(/^(#+|>)\s+/, '')
        .replace(/\[\^[^\]]+\]/g, '')
        .replace(/\\$/, '')
        .replace(/\\([\\`*_{}[\]()#+\-.!<>])/g, '$1'),
    )
    .join('\n');
}

/** An OCR page file's text as the engine read it: every recorded correction undone. */
function ocrText(page) {
  const lines = [];
  for (const block of page.blocks ?? [])
    for (const paragraph of block.paragraphs ?? [])
      for (const line of paragraph.lines ?? []) lines.push(line.words.map((w) => (w.correction ? w.correction.from : w.text)).join(' '));
  return lines.join('\n');
}

/** An OCR page file's words in reading order, a line-end hyphen's word joined to the next line's first word. */
function ocrWords(page) {
  const out = [];
  let carried;
  for (const block of page.blocks ?? [])
    for (const paragraph of block.paragraphs ?? [])
      for (const line of paragraph.lines ?? [])
        line.words.forEach((word, i) => {
          const w = carried
            ? {
                ...word,
                text: carried.text.replace(/[-‐]$/u, '') + word.text,
                confidence: Math.min(carried.confidence, word.confidence),
                correction: carried.correction ?? word.correction,
              }
            : word;
          carried = i === line.words.length - 1 && /\p{L}[-‐]$/u.test(w.text) ? w : undefined;
          if (!carried) out.push(w);
        });
  if (carried) out.push(carried);
  return out;
}
