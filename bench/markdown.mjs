// npm run bench:markdown — how well the Markdown export reads a book: a synthetic French book with a known
// structure (test/export/book-corpus.ts: running heads the OCR reads differently on each page, a side note and
// line numbers in the margins, superscript calls as OCR garbles them, notes continued across pages, a critical
// apparatus, line-end and page-end splits, real hyphens, headings of three ranks), scored against its truth
// (test/export/corpus-metrics.ts). Two inputs: the words as set (what a perfect OCR would report, exact), and the
// same pages drawn and read by tesseract.js (fra+lat). Then the line-end hyphen decision alone on a few thousand
// French dictionary words and compounds.
//
//   npm run bench:markdown [-- --compare <git ref>] [-- --no-ocr]
//
// --compare  also score the Markdown export of that commit on the same inputs, side by side (e.g. the commit before
//            a change); its sources are extracted from git into .bench/ and removed afterwards
// --no-ocr   skip the drawn and OCR'd pages (the slow half)
// --no-real  skip the real capture (../shared/samples/athanase.aglbundle, scored against ../shared/gt/athanase/,
//            read at run time only, when they are there; about a minute and a half of OCR)
// --keep <dir>  write each column's Markdown there, to read
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const compareRef = args.includes('--compare') ? args[args.indexOf('--compare') + 1] : undefined;
const withOcr = !args.includes('--no-ocr');
const withReal = !args.includes('--no-real');
const keepDir = args.includes('--keep') ? args[args.indexOf('--keep') + 1] : undefined;

const server = await createServer({
  root,
  configFile: false,
  logLevel: 'error',
  server: { middlewareMode: true, hmr: false, ws: false },
  appType: 'custom',
  optimizeDeps: { noDiscovery: true, include: [] },
});
const work = mkdtempSync(join(tmpdir(), 'quire-bench-md-'));
let compareDir;
try {
  const { bookCorpus } = await server.ssrLoadModule('/test/export/book-corpus.ts');
  const { scoreCorpus } = await server.ssrLoadModule('/test/export/corpus-metrics.ts');
  const corpus = bookCorpus();
  const exporters = [{ name: 'this tree', ...(await markdownOf('/src')) }];
  if (compareRef) {
    const sha = execFileSync('git', ['rev-parse', '--short', compareRef], { cwd: root, encoding: 'utf8' }).trim();
    compareDir = join(root, '.bench', `markdown-${sha}`);
    rmSync(compareDir, { recursive: true, force: true });
    mkdirSync(compareDir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} src | tar -x -C "${compareDir}"`], { cwd: root });
    exporters.unshift({ name: compareRef === sha ? sha : `${compareRef} (${sha})`, ...(await markdownOf(`/.bench/markdown-${sha}/src`)) });
  }

  const inputs = [{ name: 'words as set', pages: corpus.pages.map((p) => p.ocr) }];
  if (withOcr) {
    const t0 = performance.now();
    inputs.push({ name: 'OCR’d (tesseract.js fra+lat)', pages: await ocrPages(corpus.pages) });
    console.error(`(OCR of ${corpus.pages.length} pages: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }

  if (keepDir) mkdirSync(keepDir, { recursive: true });
  const columns = inputs.flatMap((input, i) =>
    exporters.map((e, k) => {
      const markdown = e.toMarkdown(input.pages);
      if (keepDir) writeFileSync(join(keepDir, `${i === 0 ? 'words' : 'ocr'}-${k === exporters.length - 1 ? 'this' : 'compare'}.md`), markdown);
      return { label: `${e.name}, ${input.name}`, scores: scoreCorpus(markdown, corpus.truth) };
    }),
  );
  if (keepDir && inputs[1]) writeFileSync(join(keepDir, 'ocr-pages.json'), JSON.stringify(inputs[1].pages));
  const rows = [
    ['running heads and page numbers left in the text (of all printed)', 'headLeaks'],
    ['footnotes linked right (call at its word → its note)', 'notesLinked'],
    ['line-end and page-end splits joined right', 'splitsJoined'],
    ['compounds split at their hyphen, hyphen kept', 'compoundsKept'],
    ['real hyphens in the text, kept', 'hyphensKept'],
    ['headings at their rank’s level', 'headingLevels'],
    ['margin line numbers kept out of the text', 'lineNumbersOut'],
    ['side notes set apart (blockquote)', 'sideNotesApart'],
  ];
  const lexiconRows = await lexiconDecisions(exporters);
  const shortRows = await shortCaptureRows(exporters);
  const marginRows = await marginCaptureRows(exporters);
  const reconverted = [
    await reconversionRow(
      exporters,
      corpus.pages.map((p) => p.ocr),
      'words as set',
    ),
  ];
  if (inputs[1]) reconverted.push(await reconversionRow(exporters, inputs[1].pages, 'OCR’d pages'));
  const realRows = withReal ? await realCaptureRows(exporters) : [];

  console.log(`\nMarkdown of a synthetic book (${corpus.pages.length} A5 pages, French and Latin), scored against its truth`);
  console.log(`| measure | ${columns.map((c) => c.label).join(' | ')} |`);
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
  for (const [label, measure] of rows) {
    console.log(`| ${label} | ${columns.map((c) => `${c.scores[measure].right}/${c.scores[measure].total}`).join(' | ')} |`);
  }
  console.log(
    `\nShort captures (test/export/short-captures.ts: 1 to 4 pages, too few for a running head to recur; test/export/margin-captures.ts: margins the engine read with the text), words as set`,
  );
  console.log(`| measure | ${exporters.map((e) => e.name).join(' | ')} |`);
  console.log(`| --- | ${exporters.map(() => '---').join(' | ')} |`);
  for (const row of [...shortRows, ...marginRows, ...reconverted])
    console.log(`| ${row.label} | ${row.scores.map(([right, total]) => `${right}/${total}`).join(' | ')} |`);
  if (realRows.length) {
    console.log(`\nA real capture (../shared/samples/athanase.aglbundle, 4 pages, OCR by this build), against ../shared/gt/athanase/`);
    console.log(`| measure | ${exporters.map((e) => e.name).join(' | ')} |`);
    console.log(`| --- | ${exporters.map(() => '---').join(' | ')} |`);
    for (const row of realRows) console.log(`| ${row.label} | ${row.scores.map(([right, total]) => `${right}/${total}`).join(' | ')} |`);
  }
  console.log(`\nLine-end hyphens decided on French dictionary words (npm dictionary-fr), split where a typesetter would`);
  console.log(`| measure | ${exporters.map((e) => e.name).join(' | ')} |`);
  console.log(`| --- | ${exporters.map(() => '---').join(' | ')} |`);
  for (const row of lexiconRows)
    console.log(`| ${row.label} | ${row.scores.map((s) => `${s.right}/${s.total} (${((100 * s.right) / s.total).toFixed(1)} %)`).join(' | ')} |`);
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  if (compareDir) rmSync(compareDir, { recursive: true, force: true });
}

/**
 * The hyphen decision alone, on many words: every 40th plain word of seven letters or more in the French dictionary,
 * split at its middle break point (it must be joined), and every 8th compound, split at each of its hyphens (the
 * hyphen must stay). With the French lexicon, and no help from a document.
 */
async function lexiconDecisions(exporters) {
  const { breakPoints } = await server.ssrLoadModule('/test/export/book-corpus.ts');
  const entries = readFileSync(join(root, 'node_modules', 'dictionary-fr', 'index.dic'), 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('/')[0].trim());
  const plain = entries.filter((w) => /^\p{Ll}{7,}$/u.test(w)).filter((_, i) => i % 40 === 0);
  const compounds = entries.filter((w) => /^\p{L}+(-\p{L}+)+$/u.test(w)).filter((_, i) => i % 8 === 0);
  const splits = plain.flatMap((word) => {
    const points = breakPoints(word);
    const at = points[points.length >> 1];
    return at === undefined ? [] : [{ first: `${word.slice(0, at)}-`, second: word.slice(at), want: word }];
  });
  const hyphens = compounds.flatMap((word) =>
    [...word.matchAll(/-/gu)].map((m) => ({ first: word.slice(0, m.index + 1), second: word.slice(m.index + 1), want: word })),
  );
  const decide = await Promise.all(exporters.map((e) => e.joinHyphen));
  const score = (cases) => decide.map((join) => ({ right: cases.filter((c) => join(c.first, c.second) === c.want).length, total: cases.length }));
  return [
    { label: 'words split at a syllable, joined', scores: score(splits) },
    { label: 'compounds split at their hyphen, hyphen kept', scores: score(hyphens) },
  ];
}

/**
 * Short captures, typeset: titles kept as headings on documents of two and three pages (pages opening with the same
 * title included), running heads gone from the text on one-, two- and four-page captures, printed page numbers in
 * the page markers (misread ones mended from the sequence).
 */
async function shortCaptureRows(exporters) {
  const { shortCaptures, scoreCapture } = await server.ssrLoadModule('/test/export/short-captures.ts');
  const captures = shortCaptures();
  const sum = (scores) => scores.reduce(([r, t], [right, total]) => [r + right, t + total], [0, 0]);
  const scored = exporters.map((e) => captures.map((c) => ({ pages: c.pages.length, ...scoreCapture(e.untitledMarkdown(c.pages), c) })));
  const row = (label, pick, pages) => ({ label, scores: scored.map((s) => sum(s.filter((c) => pages === undefined || c.pages === pages).map(pick))) });
  return [
    row('titles kept as headings (2 and 3 pages, the same title opening two pages)', (c) => c.titles),
    row('running heads dropped, 1-page captures', (c) => c.heads, 1),
    row('running heads dropped, 2-page capture', (c) => c.heads, 2),
    row('running heads dropped, 4-page capture', (c) => c.heads, 4),
    row('printed page numbers right (read, or mended from the sequence)', (c) => c.folios),
  ];
}

/**
 * A critical text's line numbers set close to it (read right, as letters, glued to a hyphen), a side note read with its
 * lines, an apparatus, reference numbers in the margin.
 */
async function marginCaptureRows(exporters) {
  const { marginPage, sideNotePage, apparatusPage, referencePage, scoreMargins, scoreApparatus, scoreReferences } =
    await server.ssrLoadModule('/test/export/margin-captures.ts');
  const scored = exporters.map((e) => scoreMargins(e.untitledMarkdown([marginPage()]), e.untitledMarkdown([sideNotePage()])));
  return [
    { label: 'line numbers set half an em off the text, kept out of the words', scores: scored.map((s) => s.numbersOut) },
    { label: 'side note read with its body lines, set apart (blockquote)', scores: scored.map((s) => s.sideNoteApart) },
    {
      label: 'apparatus lines (lemma brackets read as parentheses) in the fenced apparatus block',
      scores: exporters.map((e) => scoreApparatus(e.untitledMarkdown([apparatusPage()]))),
    },
    {
      label: 'margin reference numbers as <!-- ref N --> at their line, text whole (read apart, read with the line)',
      scores: exporters.map((e) =>
        ['apart', 'with-line'].map((read) => scoreReferences(e.untitledMarkdown([referencePage(read)]))).reduce(([r, t], [a, b]) => [r + a, t + b]),
      ),
    },
  ];
}

/**
 * Quire's own searchable PDF converted again: the synthetic book's pages (the words as set, and as tesseract read
 * them when OCR runs) written as a PDF with their text layer (on blank page images), its text layer read back as the
 * PDF input does, and the blocks of the Markdown from it that are the same as the Markdown of the pages themselves.
 */
async function reconversionRow(exporters, pages, name) {
  const { writePdf } = await server.ssrLoadModule('/src/export/pdf.ts');
  const { writePageImage } = await server.ssrLoadModule('/src/project/index.ts');
  const { openPdf } = await server.ssrLoadModule('/src/ingest/pdf.ts');
  const inputs = [];
  for (const [i, ocr] of pages.entries()) {
    const white = new Uint8Array(ocr.width * ocr.height).fill(255);
    const file = await writePageImage(
      { data: white, width: ocr.width, height: ocr.height, channels: 1 },
      'bitonal',
      ocr.dpi,
      join(work, `blank-${name.replace(/\W+/gu, '-')}-${i + 1}`),
    );
    inputs.push({ file, kind: 'bitonal', width: ocr.width, height: ocr.height, dpi: ocr.dpi, ocr });
  }
  const pdf = join(work, `book-${name.replace(/\W+/gu, '-')}.pdf`);
  await writePdf(inputs, pdf);
  const opened = await openPdf(pdf, 'book.pdf');
  const again = await Promise.all(opened.frames.map((frame) => frame.textLayer.textContent()));
  await opened.close?.();
  const scores = exporters.map((e) => {
    const want = e.toMarkdown(pages).split('\n\n');
    const got = new Set(e.toMarkdown(again).split('\n\n'));
    return [want.filter((block) => got.has(block)).length, want.length];
  });
  return { label: `Quire’s own PDF converted again (${name}): Markdown blocks the same as from its pages`, scores };
}

/**
 * The real capture of the reading issue's benchmark, converted by this build (`bin/quire.js`, OCR auto) with its
 * project kept; each exporter writes the Markdown of the project's OCR pages. Per page: the running head removed (no
 * run of three of its words left in the page's Markdown), the notes linked (`[^N]` called and defined for each note
 * number the page prints), and the body words lost: words of the page's body that the OCR read but the Markdown does
 * not hold (what the structure dropped, misreadings aside).
 */
async function realCaptureRows(exporters) {
  const shared = [join(root, '..', 'shared'), '/work/shared'].find(
    (dir) => existsSync(join(dir, 'gt', 'athanase')) && existsSync(join(dir, 'samples', 'athanase.aglbundle')),
  );
  if (!shared) {
    console.error('(no ../shared/gt/athanase: the real capture is left out)');
    return [];
  }
  const out = join(work, 'real');
  const project = join(work, 'real-project');
  const t0 = performance.now();
  execFileSync(
    process.execPath,
    [
      join(root, 'bin', 'quire.js'),
      'run',
      join(shared, 'samples', 'athanase.aglbundle'),
      '--ocr',
      'auto',
      '--export',
      'md',
      '-o',
      out,
      '--keep-project',
      project,
    ],
    { stdio: 'ignore' },
  );
  console.error(`(real capture converted in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8'));
  const files = readdirSync(join(project, 'ocr'))
    .filter((f) => f.endsWith('.json'))
    .sort();
  const pages = files.map((f) => JSON.parse(readFileSync(join(project, 'ocr', f), 'utf8')));
  const stems = ['athanase_150_L', 'athanase_150_R', 'athanase_151_L', 'athanase_151_R'];
  const gt = (stem, kind) => readFileSync(join(shared, 'gt', 'athanase', `${stem}.${kind}.txt`), 'utf8');
  // Note calls (`vérité³`, `vérité[^3]`) are not part of the word.
  const wordsOf = (text) =>
    text
      .normalize('NFC')
      .replace(/['’]/gu, '’')
      .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\[\^[^\]]+\]/gu, ' ')
      .match(/[\p{L}\p{N}’]+/gu) ?? [];
  const bag = (words) => words.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map());
  const ocrWords = pages.map((page) => page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((w) => w.text)))).join(' '));
  const scores = exporters.map((e) => {
    const markdown = e.markdownWith(pages, { title: manifest.name });
    // The page's Markdown: from its marker to the next (a page begun inside a paragraph is marked after it).
    const segments = markdown.split(/<!-- page \d+[^>]*-->/u).slice(1);
    let heads = 0;
    let notes = 0;
    let noteTotal = 0;
    let lost = 0;
    let bodyTotal = 0;
    stems.forEach((stem, i) => {
      const head = wordsOf(gt(stem, 'header'))
        .filter((w) => /\p{L}{2}/u.test(w))
        .map((w) => w.toLowerCase());
      const text = wordsOf(segments[i] ?? '')
        .map((w) => w.toLowerCase())
        .join(' ');
      const runs = head.slice(0, -2).map((_, k) => head.slice(k, k + 3).join(' '));
      if (!runs.some((run) => text.includes(run))) heads++;
      for (const m of gt(stem, 'notes').matchAll(/^(\d+)\. /gmu)) {
        noteTotal++;
        if (markdown.includes(`[^${m[1]}]:`) && new RegExp(`\\[\\^${m[1]}\\](?!:)`, 'u').test(markdown)) notes++;
      }
      const body = bag(wordsOf(gt(stem, 'body').replace(/-\n/gu, '')));
      const read = bag(wordsOf(ocrWords[i].replace(/-\s/gu, '')));
      const written = bag(wordsOf(markdown));
      for (const [word, count] of body) {
        const inOcr = Math.min(count, read.get(word) ?? 0);
        bodyTotal += inOcr;
        lost += Math.max(0, inOcr - (written.get(word) ?? 0));
      }
    });
    return { heads: [heads, stems.length], notes: [notes, noteTotal], lost: [lost, bodyTotal] };
  });
  return [
    { label: 'running heads removed (pages)', scores: scores.map((s) => s.heads) },
    { label: 'notes linked (called and defined)', scores: scores.map((s) => s.notes) },
    { label: 'body words lost by the structure (of the body words the OCR read)', scores: scores.map((s) => s.lost) },
  ];
}

/** The Markdown export of the sources under `src` (this tree's, or a commit's), as the exporter runs it. */
async function markdownOf(src) {
  const markdown = await server.ssrLoadModule(`${src}/export/markdown.ts`);
  // An older export, without the structure module, checks no lexicon.
  const current = existsSync(join(root, src, 'export', 'structure.ts'));
  const isWord = current ? await (await server.ssrLoadModule(`${src}/export/structure.ts`)).openWordCheck(['fra', 'lat']) : undefined;
  const french = current ? await (await server.ssrLoadModule(`${src}/export/structure.ts`)).openWordCheck(['fra']) : undefined;
  const text = await server.ssrLoadModule(`${src}/export/${current ? 'structure-text' : 'markdown-text'}.ts`);
  return {
    toMarkdown: (pages) => markdown.documentToMarkdown(pages, { title: 'Les Confessions', ...(isWord ? { isWord } : {}) }),
    // A capture with no title known (as a bundle of photos named by the user).
    untitledMarkdown: (pages) => markdown.documentToMarkdown(pages, isWord ? { isWord } : {}),
    markdownWith: (pages, options) => markdown.documentToMarkdown(pages, { ...options, ...(isWord ? { isWord } : {}) }),
    // The line-end hyphen decision alone, with the French lexicon (an older export takes a word count instead).
    joinHyphen: current
      ? (first, second) => text.joinHyphenated(first, second, { counts: new Map(), isWord: french })
      : (first, second) => text.joinHyphenated(first, second, new Map()),
  };
}

/** The corpus pages drawn (DejaVu Serif, each piece of ink at its place and size) and read by tesseract.js. */
async function ocrPages(pages) {
  const { drawPage } = await server.ssrLoadModule('/test/export/book-corpus.ts');
  const { createTesseractEngine } = await server.ssrLoadModule('/src/ocr/index.ts');
  const engine = createTesseractEngine({ workers: 2 });
  try {
    return await Promise.all(
      pages.map(async (page, i) => {
        const file = join(work, `page-${i + 1}.png`);
        writeFileSync(file, await drawPage(page));
        const { width, height, dpi } = page.ocr;
        return engine.recognize({ file, width, height, dpi }, ['fra', 'lat']);
      }),
    );
  } finally {
    await engine.close();
  }
}
