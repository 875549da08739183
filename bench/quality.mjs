// npm run bench:quality — how well Quire reads webcam captures of books, accents first.
//
// Makes its own corpus (scripts/quality-corpus.mjs: French, Latin and English book pages of known text, photographed
// like a webcam does it, at x-heights of 8, 10 and 14 camera pixels, with blur, uneven light, JPEG 60 and page
// curl), converts each set with `quire run … --ocr-lang <lang> --keep-project`, and prints per degradation: word
// recall and accented-word recall over all the page's text (headings, notes and folios too; a word found anywhere on
// the page) and over its body text alone (the running text the target is for; a word found in its place, by
// a word alignment), CER, and e/c and accent confusion counts, for
//   (a) the bitonal page the PDF shows, read by the same engine,
//   (b) the page the OCR actually reads (the bitonal one, or the grey reading image where the pipeline keeps one),
//       before correction — the words as the engine read them (corrections undone),
//   (c) after the lexicon-checked correction: the text Quire exports.
//
//   npm run bench:quality [-- --only x8,x10] [--corpus DIR] [--quire path/to/bin/quire.js] [--keep DIR]
//
// --corpus reuses a corpus made before; --quire measures another build of Quire on the same corpus (its (b) and
// (c) only); --keep leaves the projects and outputs there to look at.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeQualityCorpus } from '../scripts/quality-corpus.mjs';
import { bodyRecall, confusions, wordRecall } from './text-metrics.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const only = flag('--only')?.split(',');
const quire = resolve(flag('--quire') ?? join(root, 'bin', 'quire.js'));
const keep = flag('--keep');
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'quire-bench-quality-'));
mkdirSync(work, { recursive: true });

const { getOcrEngine, ocrPageText, closeOcrEngines } = await import(join(root, 'dist', 'ocr', 'index.js'));

try {
  const t0 = performance.now();
  const corpusDir = flag('--corpus') ? resolve(flag('--corpus')) : join(work, 'corpus');
  const corpus = existsSync(join(corpusDir, 'corpus.json'))
    ? JSON.parse(readFileSync(join(corpusDir, 'corpus.json'), 'utf8'))
    : await makeQualityCorpus(corpusDir, { only });
  const corpusSeconds = (performance.now() - t0) / 1000;
  const rows = [];
  let ocrSeconds = 0;
  let wallSeconds = 0;
  let engineUsed = '';
  for (const degradation of corpus.degradations.filter((d) => !only || only.includes(d.name))) {
    const byLanguage = new Map();
    for (const page of degradation.pages) byLanguage.set(page.language, [...(byLanguage.get(page.language) ?? []), page]);
    const totals = { a: empty(), b: empty(), c: empty() };
    for (const [language, pages] of byLanguage) {
      const out = join(work, 'runs', degradation.name, language);
      rmSync(out, { recursive: true, force: true });
      const project = join(out, 'project');
      const started = performance.now();
      const run = spawnSync(
        process.execPath,
        [quire, 'run', ...pages.map((p) => join(corpusDir, p.file)), '--ocr-lang', language, '--export', 'pdf', '-o', out, '--keep-project', project, '--json'],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        },
      );
      if (run.status !== 0) throw new Error(`quire run failed on ${degradation.name}/${language}: ${run.stderr}`);
      wallSeconds += (performance.now() - started) / 1000;
      // One document: `quire run --json` prints an array of them (a single object in older builds, for --quire).
      const printed = JSON.parse(run.stdout);
      const summary = Array.isArray(printed) ? printed[0] : printed;
      ocrSeconds += summary.timings_ms.ocr / 1000;
      engineUsed = summary.ocr?.engine ?? engineUsed;
      const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8'));
      for (const projectPage of manifest.pages) {
        const truthPage = pages.find((p) => basename(p.file) === basename(projectPage.source.input));
        if (!truthPage) throw new Error(`no truth for ${projectPage.source.input}`);
        const lines = truthPage.lines;
        const result = JSON.parse(readFileSync(join(project, projectPage.ocr), 'utf8'));
        const corrected = ocrPageText(result);
        const asRead = ocrPageText(asEngineRead(result));
        // (a): the bitonal page itself, when the OCR read another image; otherwise it is (b).
        let bitonal = asRead;
        if (projectPage.ocrImage && !flag('--quire')) {
          const engine = getOcrEngine(summary.ocr.engine);
          const page = await engine.recognize(
            { file: join(project, projectPage.file), width: projectPage.width, height: projectPage.height, dpi: projectPage.dpi },
            summary.ocr.languages,
          );
          bitonal = ocrPageText(page);
        }
        add(totals.a, lines, bitonal);
        add(totals.b, lines, asRead);
        add(totals.c, lines, corrected);
      }
    }
    rows.push({ degradation, totals });
  }

  console.log(
    `\nOCR quality on ${rows.reduce((n, r) => n + r.degradation.pages.length, 0)} synthetic webcam pages (French, Latin, English), engine ${engineUsed}`,
  );
  console.log('(a) bitonal page as the PDF shows it · (b) the page the OCR reads, before correction · (c) after correction\n');
  console.log(
    '| degradation | read | word recall | accented-word recall | body word recall | body accented recall | CER | e/c confusions | accent confusions | . , confusions |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const all = { a: empty(), b: empty(), c: empty() };
  for (const { degradation, totals } of rows) {
    for (const k of ['a', 'b', 'c']) {
      console.log(line(degradation.label, k, totals[k]));
      merge(all[k], totals[k]);
    }
  }
  for (const k of ['a', 'b', 'c']) console.log(line('**all pages**', k, all[k]));
  console.log(`\ncorpus ${corpusSeconds.toFixed(1)} s, quire runs ${wallSeconds.toFixed(1)} s wall (OCR ${ocrSeconds.toFixed(1)} s of it)`);
} finally {
  await closeOcrEngines();
  if (!keep) rmSync(work, { recursive: true, force: true });
}

function empty() {
  return {
    words: 0,
    found: 0,
    accented: 0,
    accentedFound: 0,
    bodyWords: 0,
    bodyFound: 0,
    bodyAccented: 0,
    bodyAccentedFound: 0,
    edits: 0,
    chars: 0,
    ec: 0,
    accent: 0,
    stops: 0,
  };
}

/** Add a page's figures: `lines` is its truth, `{ kind, text }` per printed line. */
function add(total, lines, got) {
  const truth = lines.map((l) => l.text).join('\n');
  merge(total, { ...wordRecall(truth, got), ...bodyRecall(lines, got), ...confusions(truth, got) });
}

function merge(into, from) {
  for (const key of Object.keys(into)) into[key] += from[key];
}

function line(label, k, t) {
  const pct = (a, b) => (b === 0 ? '–' : (a / b).toFixed(3));
  return `| ${label} | (${k}) | ${pct(t.found, t.words)} | ${pct(t.accentedFound, t.accented)} | ${pct(t.bodyFound, t.bodyWords)} | ${pct(t.bodyAccentedFound, t.bodyAccented)} | ${((100 * t.edits) / Math.max(1, t.chars)).toFixed(2)} % | ${t.ec} | ${t.accent} | ${t.stops} |`;
}

/** A page's words as the engine read them: every recorded correction undone. */
function asEngineRead(page) {
  const copy = JSON.parse(JSON.stringify(page));
  for (const block of copy.blocks)
    for (const p of block.paragraphs) for (const l of p.lines) for (const w of l.words) if (w.correction) w.text = w.correction.from;
  return copy;
}
