// npm run bench:markdown — how well the Markdown export reads a book: a synthetic French book with a known
// structure (test/export/book-corpus.ts: running heads the OCR reads differently on each page, a side note and
// line numbers in the margins, superscript calls as OCR garbles them, notes continued across pages, a critical
// apparatus, line-end and page-end splits, real hyphens, headings of three ranks), scored against its truth
// (test/export/corpus-metrics.ts). Two inputs: the words as set (what a perfect OCR would report, exact), and the
// same pages drawn and read by tesseract.js (fra+lat).
//
//   npm run bench:markdown [-- --compare <git ref>] [-- --no-ocr]
//
// --compare  also score the Markdown export of that commit on the same inputs, side by side (e.g. the commit before
//            a change); its sources are extracted from git into .bench/ and removed afterwards
// --no-ocr   skip the drawn and OCR'd pages (the slow half)
// --keep <dir>  write each column's Markdown there, to read
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const compareRef = args.includes('--compare') ? args[args.indexOf('--compare') + 1] : undefined;
const withOcr = !args.includes('--no-ocr');
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
  const exporters = [{ name: 'this tree', toMarkdown: await markdownOf('/src') }];
  if (compareRef) {
    const sha = execFileSync('git', ['rev-parse', '--short', compareRef], { cwd: root, encoding: 'utf8' }).trim();
    compareDir = join(root, '.bench', `markdown-${sha}`);
    rmSync(compareDir, { recursive: true, force: true });
    mkdirSync(compareDir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} src | tar -x -C "${compareDir}"`], { cwd: root });
    exporters.unshift({ name: `${compareRef} (${sha})`, toMarkdown: await markdownOf(`/.bench/markdown-${sha}/src`) });
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
  console.log(`\nMarkdown of a synthetic book (${corpus.pages.length} A5 pages, French and Latin), scored against its truth`);
  console.log(`| measure | ${columns.map((c) => c.label).join(' | ')} |`);
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
  for (const [label, measure] of rows) {
    console.log(`| ${label} | ${columns.map((c) => `${c.scores[measure].right}/${c.scores[measure].total}`).join(' | ')} |`);
  }
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  if (compareDir) rmSync(compareDir, { recursive: true, force: true });
}

/** The Markdown export of the sources under `src` (this tree's, or a commit's), as the exporter runs it. */
async function markdownOf(src) {
  const markdown = await server.ssrLoadModule(`${src}/export/markdown.ts`);
  // An older export, without the structure module, checks no lexicon.
  const isWord = existsSync(join(root, src, 'export', 'structure.ts'))
    ? await (await server.ssrLoadModule(`${src}/export/structure.ts`)).openWordCheck(['fra', 'lat'])
    : undefined;
  return (pages) => markdown.documentToMarkdown(pages, { title: 'Les Confessions', ...(isWord ? { isWord } : {}) });
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
