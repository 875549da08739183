import { existsSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ocrPageText } from '../../src/ocr/tesseract-result.js';
import { hocrPages, parseHocr, unescapeHtml } from '../../src/ocr/tesseract-cli-hocr.js';
import { createTesseractCliEngine, parseLanguageFolder, parseLanguageList, parseTesseractVersion } from '../../src/ocr/tesseract-cli.js';
import { listInstalledLanguages } from '../../src/ocr/tesseract-data.js';
import type { OcrInput } from '../../src/ocr/types.js';
import { encodeBitonalDraft, type OcrPage } from '../../src/project/index.js';
import { cer } from './cer.js';
import { ENGLISH, FRENCH, renderTextPage, toG4Tiff, writePage, writeTurnedPage, type TextPage } from './pages.js';

/** What tesseract 5.3 writes, trimmed, with the cases a parser can trip on. The image was read at twice the page's size. */
const HOCR = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head><title></title><meta http-equiv="Content-Type" content="text/html;charset=utf-8"/></head>
 <body>
  <div class='ocr_page' id='page_1' title='image "a&amp;b.png"; bbox 0 0 2000 1000; ppageno 0; scan_res 600 600'>
   <div class='ocr_carea' id='block_1_1' title="bbox 100 100 1900 400">
    <p class='ocr_par' id='par_1_1' lang='fra' title="bbox 100 100 1900 400">
     <span class='ocr_line' id='line_1_1' title="bbox 100 100 1100 200; baseline 0.01 -20; x_size 60; x_descenders 12; x_ascenders 14">
      <span class='ocrx_word' id='word_1_1' title='bbox 100 110 300 180; x_wconf 96'>l&#39;&#233;t&#xe9;</span>
      <span class='ocrx_word' id='word_1_2' title='bbox 320 110 500 200; x_wconf 91'>&quot;A&amp;B&quot;</span>
      <span class='ocrx_word' id='word_1_3' title='bbox 520 110 700 180; x_wconf 88'><strong>&lt;gras&gt;</strong></span>
      <span class='ocrx_word' id='word_1_4' title='bbox 720 100 1100 200; x_wconf 95'> </span>
     </span>
     <span class='ocr_caption' id='line_1_2' title="bbox 100 300 900 400; baseline -0.02 -10; x_size 60">
      <span class='ocrx_word' id='word_1_5' title='bbox 100 300 900 390; x_wconf 77'>Légende</span>
     </span>
    </p>
   </div>
   <div class='ocr_carea' id='block_1_2' title="bbox 0 500 2000 1000">
    <p class='ocr_par' id='par_1_2' title="bbox 0 500 2000 1000">
     <span class='ocr_line' id='line_1_3' title="bbox 0 500 2000 1000; baseline 0 0">
      <span class='ocrx_word' id='word_1_6' title='bbox 0 500 2000 1000; x_wconf 95'>  </span>
     </span>
    </p>
   </div>
   <div class='ocr_carea' id='block_1_3' title="bbox 100 600 1900 900">
    <p class='ocr_par' id='par_1_3' title="bbox 100 600 1900 900">
     <span class='ocr_header' id='line_1_4' title="bbox 100 600 1000 700">
      <span class='ocrx_word' id='word_1_7' title='bbox 100 600 1000 700; x_wconf 90'>Titre</span>
     </span>
     <span class='ocr_textfloat' id='line_1_5' title="bbox 100 800 1000 900; baseline 0 -5">
      <span class='ocrx_word' id='word_1_8' title='bbox 100 800 1000 900; x_wconf 85'>flottant</span>
     </span>
    </p>
   </div>
  </div>
 </body>
</html>`;

const HALF = { width: 1000, height: 500, dpi: 300, scaleX: 0.5, scaleY: 0.5 };

function words(page: OcrPage) {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
}

function lines(page: OcrPage) {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
}

describe('hOCR from the tesseract program', () => {
  it('splits the hOCR of a list of images into one page each, in order', () => {
    const page = HOCR.slice(HOCR.indexOf("<div class='ocr_page'"), HOCR.lastIndexOf('</body>'));
    const two = HOCR.replace('</body>', `${page.replace("id='page_1'", "id='page_2'").replace('Titre', 'Second')}</body>`);
    const pages = hocrPages(two);
    expect(pages).toHaveLength(2);
    expect(
      pages.map((p) =>
        words(parseHocr(p, HALF, ['fra']))
          .map((w) => w.text)
          .at(-2),
      ),
    ).toEqual(['Titre', 'Second']);
    expect(hocrPages('<html><body></body></html>')).toEqual([]);
  });

  it('keeps blocks, paragraphs, lines (captions, headers, floats too) and words, in page pixels', () => {
    const page = parseHocr(HOCR, HALF, ['fra']);
    expect(page).toMatchObject({ width: 1000, height: 500, dpi: 300, engine: 'tesseract-cli', languages: ['fra'] });
    // The block holding only an empty word (a picture) is dropped.
    expect(page.blocks).toHaveLength(2);
    expect(page.blocks[0].box).toEqual({ x0: 50, y0: 50, x1: 950, y1: 200 });
    expect(page.blocks[0].paragraphs[0].lines.map((l) => l.words.map((w) => w.text).join(' '))).toEqual(['l\'été "A&B" <gras>', 'Légende']);
    expect(page.blocks[1].paragraphs[0].lines.map((l) => l.words[0].text)).toEqual(['Titre', 'flottant']);
    expect(words(page)[1]).toEqual({ text: '"A&B"', box: { x0: 160, y0: 55, x1: 250, y1: 100 }, confidence: 91 });
    expect(ocrPageText(page)).toBe('l\'été "A&B" <gras>\nLégende\n\nTitre\nflottant');
  });

  it('turns `baseline slope offset` into a segment across the line, and leaves it out when not given', () => {
    const [first, caption, header, float] = lines(parseHocr(HOCR, HALF, ['fra']));
    // y = bottom + offset + slope × (x − left): 200 − 20 = 180 at the left, + 0.01 × 1000 = 190 at the right; halved.
    expect(first.baseline).toEqual({ x0: 50, y0: 90, x1: 550, y1: 95 });
    expect(caption.baseline).toEqual({ x0: 50, y0: 195, x1: 450, y1: 187 });
    expect(header.baseline).toBeUndefined();
    expect(float.baseline).toEqual({ x0: 50, y0: 447.5, x1: 500, y1: 447.5 });
  });

  it('reads an empty or page-less answer as a page without text', () => {
    expect(parseHocr('', HALF, ['eng']).blocks).toEqual([]);
    expect(parseHocr("<div class='ocr_page' title='bbox 0 0 10 10'></div>", HALF, ['eng']).blocks).toEqual([]);
  });

  it('decodes the entities tesseract writes, numeric ones included', () => {
    expect(unescapeHtml('&lt;a&gt; &amp;amp; &quot;&#39;&apos; &#x153;&#233; &unknown;')).toBe("<a> &amp; \"'' œé &unknown;");
  });

  it('reads the version and language list the program prints', () => {
    expect(parseTesseractVersion('tesseract 5.3.0\n leptonica-1.82.0')).toEqual({ major: 5, version: '5.3.0' });
    expect(parseTesseractVersion('tesseract 4.1.1')).toMatchObject({ major: 4 });
    expect(parseTesseractVersion('command not found')).toBeUndefined();
    expect(parseLanguageList('List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\neng\nfra\nosd\n')).toEqual(['eng', 'fra']);
    expect(parseLanguageFolder('List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\neng\n')).toBe(
      '/usr/share/tesseract-ocr/5/tessdata/',
    );
  });
});

/** A stand-in for tesseract: a shell script that logs its arguments and environment, then answers `hocr`. */
async function fakeTesseract(dir: string, name: string, body: string, version = 'tesseract 5.3.0'): Promise<string> {
  const file = join(dir, name);
  await writeFile(
    file,
    `#!/bin/sh
for arg in "$@"; do
  case "$arg" in
    --version) echo "${version}"; exit 0;;
    --list-langs) echo 'List of available languages in "/fake/" (3):'; echo eng; echo fra; echo osd; exit 0;;
  esac
done
${body}
`,
  );
  await chmod(file, 0o755);
  return file;
}

describe('the tesseract-cli engine, with a stand-in program', () => {
  let dir: string;
  let input: OcrInput;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-ocr-cli-fake-'));
    await writeFile(join(dir, 'answer.hocr'), HOCR);
    input = await writePage(dir, 'page.png', await renderTextPage('A page.', { dpi: 300 }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs one single-threaded process per page, at most `workers` at once, with the page on stdin', async () => {
    const binary = await fakeTesseract(
      dir,
      'counting.sh',
      `cat > "${dir}/stdin.$$"
touch "${dir}/running.$$"
ls "${dir}" | grep -c '^running\\.' >> "${dir}/at-once.log"
echo "$OMP_THREAD_LIMIT $*" >> "${dir}/calls.log"
sleep 0.3
rm "${dir}/running.$$"
cat "${dir}/answer.hocr"`,
    );
    const models = join(dir, 'models');
    const engine = createTesseractCliEngine({ binary, workers: 2, modelsDir: models });
    // The program's own languages and those of the npm models, which it reads from the unpacked folder.
    expect(engine.languages()).toEqual(expect.arrayContaining(['eng', 'fra', ...listInstalledLanguages()]));
    const pages = await Promise.all([1, 2, 3, 4, 5].map(() => engine.recognize(input, ['eng', 'fra'])));
    expect(pages.every((p) => ocrPageText(p).startsWith("l'été"))).toBe(true);
    const atOnce = (await readFile(join(dir, 'at-once.log'), 'utf8')).trim().split('\n').map(Number);
    expect(atOnce).toHaveLength(5);
    expect(Math.max(...atOnce)).toBe(2);
    const calls = (await readFile(join(dir, 'calls.log'), 'utf8')).trim().split('\n');
    expect(calls[0]).toBe(
      `1 - stdout --tessdata-dir ${models} -l eng+fra --dpi 300 --psm 3 -c tessedit_create_hocr=1 -c thresholding_method=2 -c tessedit_do_invert=0 -c lstm_choice_mode=2`,
    );
    // The npm best_int models, unpacked once for the program (it cannot read them gzipped).
    expect((await readdir(models)).filter((f) => f.endsWith('.traineddata')).sort()).toEqual(['eng.traineddata', 'fra.traineddata']);
    const stdin = (await readdir(dir)).filter((f) => f.startsWith('stdin.'));
    expect(stdin).toHaveLength(5);
    expect((await readFile(join(dir, stdin[0]))).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(engine.running()).toBe(0);
    // Cut-out words read again: images listed in a file, each one block, a global threshold (the words are on clean
    // white paper), without choices (their text is what is taken); one page for each.
    const again = await engine.readWords!([input], ['fra']);
    expect(again.map((p) => words(p).map((w) => w.text)[0])).toEqual(["l'été"]);
    expect((await readFile(join(dir, 'calls.log'), 'utf8')).trim().split('\n').at(-1)).toMatch(
      new RegExp(`^1 \\S+/images\\.txt stdout --tessdata-dir ${models} -l fra --dpi 300 --psm 6 -c tessedit_create_hocr=1 -c tessedit_do_invert=0$`),
    );
    // Two images, one page read: said, not taken for two.
    await expect(engine.readWords!([input, input], ['fra'])).rejects.toMatchObject({ message: 'Tesseract read 1 of 2 word images.' });
  });

  it('reads a book’s many word images in batches of 400, two processes at once, each image its own page, in order', async () => {
    // Answers one hOCR page per listed image, the image's name as its only word.
    const binary = await fakeTesseract(
      dir,
      'words.sh',
      `echo "$1" >> "${dir}/lists.log"
touch "${dir}/reading-words.$$"
ls "${dir}" | grep -c '^reading-words\\.' >> "${dir}/words-at-once.log"
sleep 0.3
echo '<html><body>'
while read -r image; do
  name=$(basename "$image" .png)
  echo "<div class='ocr_page' title='bbox 0 0 10 10'><div class='ocr_carea' title='bbox 0 0 10 10'><p class='ocr_par' title='bbox 0 0 10 10'><span class='ocr_line' title='bbox 0 0 10 10'><span class='ocrx_word' title='bbox 0 0 10 10; x_wconf 90'>$name</span></span></p></div></div>"
done < "$1"
echo '</body></html>'
rm "${dir}/reading-words.$$"`,
    );
    const engine = createTesseractCliEngine({ binary, workers: 2, tessdataDir: '/fake/' });
    const images = Array.from({ length: 801 }, (_, k) => ({ file: join(dir, `w${k}.png`), width: 10, height: 10, dpi: 300 }));
    const pages = await engine.readWords!(images, ['fra']);
    expect(pages.map((p) => words(p)[0]?.text)).toEqual(images.map((_, k) => `w${k}`));
    expect((await readFile(join(dir, 'lists.log'), 'utf8')).trim().split('\n')).toHaveLength(3);
    expect(Math.max(...(await readFile(join(dir, 'words-at-once.log'), 'utf8')).trim().split('\n').map(Number))).toBe(2);
    // Nothing at all: no process.
    expect(await engine.readWords!([], ['fra'])).toEqual([]);
    expect((await readFile(join(dir, 'lists.log'), 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('gives the program a bitonal page stored in strips by its file name, and an old tiled one as PNG on stdin', async () => {
    const binary = await fakeTesseract(
      dir,
      'by-name.sh',
      `head -c 4 | od -An -c | tr -d ' ' >> "${dir}/by-name-stdin.log"
echo "$1" >> "${dir}/by-name.log"
cat "${dir}/answer.hocr"`,
    );
    const engine = createTesseractCliEngine({ binary, workers: 1, tessdataDir: '/fake/' });
    const page = await renderTextPage('A page.', { dpi: 300 });
    const stored = await writePage(dir, 'stored.tif', page, await toG4Tiff(page));
    const tiled = await writePage(dir, 'tiled.tif', page, await toG4Tiff(page, 'tile'));
    // A strip TIFF smaller than the page it stands for is made into a PNG of the page's size, as before.
    const smaller = await writePage(dir, 'smaller.tif', page, await toG4Tiff(page));
    for (const input of [stored, tiled, { ...smaller, width: smaller.width * 2, height: smaller.height * 2 }]) {
      expect(ocrPageText(await engine.recognize(input, ['eng']))).toMatch(/^l'été/);
    }
    expect((await readFile(join(dir, 'by-name.log'), 'utf8')).trim().split('\n')).toEqual([stored.file, '-', '-']);
    expect((await readFile(join(dir, 'by-name-stdin.log'), 'utf8')).trim().split('\n')).toEqual(['211PNG', '211PNG']);
  });

  it('refuses a language that is not installed, listing those that are, without starting a process', async () => {
    // Told to use one tessdata folder as it is, the engine has the languages the program lists there.
    const engine = createTesseractCliEngine({ binary: await fakeTesseract(dir, 'never.sh', 'exit 3'), tessdataDir: '/fake/' });
    expect(engine.languages()).toEqual(['eng', 'fra']);
    await expect(engine.recognize(input, ['eng', 'xyz'])).rejects.toMatchObject({
      code: 'usage',
      message: 'The OCR language xyz is not installed; installed languages: eng, fra.',
    });
    await expect(engine.recognize(input, [])).rejects.toMatchObject({ code: 'usage' });
  });

  it('reads each page alone when the process reading a list of them fails, so the error names the page', async () => {
    const page = await renderTextPage('A page.', { dpi: 300 });
    const good = await Promise.all(['good-1', 'good-2'].map(async (name) => writePage(dir, `${name}.tif`, page, await toG4Tiff(page))));
    const bad = await writePage(dir, 'bad.tif', page, await toG4Tiff(page));
    const binary = await fakeTesseract(
      dir,
      'bad-in-list.sh',
      `echo "$1" >> "${dir}/bad-in-list.log"
case "$1" in
  *.txt|*bad.tif) echo "Error in pixReadStream: Unknown format" >&2; exit 1;;
esac
cat "${dir}/answer.hocr"`,
    );
    const engine = createTesseractCliEngine({ binary, workers: 1, tessdataDir: '/fake/' });
    const read = await Promise.allSettled([good[0], good[1], bad].map((input) => engine.recognize(input, ['eng'])));
    expect(read.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    for (const r of read) if (r.status === 'fulfilled') expect(ocrPageText(r.value)).toMatch(/^l'été/);
    expect(read[2]).toMatchObject({ reason: { message: `Tesseract failed on the page image ${bad.file}.` } });
    // The list was tried first, then each of its pages alone.
    const calls = (await readFile(join(dir, 'bad-in-list.log'), 'utf8')).trim().split('\n');
    expect(calls.some((arg) => arg.endsWith('.txt'))).toBe(true);
    expect(calls.filter((arg) => arg === bad.file)).toHaveLength(1);
  });

  it('says which page failed and keeps what tesseract said for the log', async () => {
    const engine = createTesseractCliEngine({ binary: await fakeTesseract(dir, 'failing.sh', 'echo "Error in pixReadMem: Unknown format" >&2; exit 1') });
    await expect(engine.recognize(input, ['eng'])).rejects.toMatchObject({
      code: 'internal',
      message: `Tesseract failed on the page image ${input.file}.`,
      detail: 'exit code 1: Error in pixReadMem: Unknown format',
    });
  });

  it('ends a page that takes too long, and one that is cancelled, killing its process', async () => {
    const binary = await fakeTesseract(dir, 'slow.sh', `echo $$ > "${dir}/slow.pid"; exec sleep 30`);
    const impatient = createTesseractCliEngine({ binary, timeoutMs: 300 });
    await expect(impatient.recognize(input, ['eng'])).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/took longer than 0.3 s/) });

    const engine = createTesseractCliEngine({ binary, workers: 1 });
    const controller = new AbortController();
    const started = Date.now();
    const running = engine.recognize(input, ['eng'], { signal: controller.signal });
    const queued = engine.recognize(input, ['eng'], { signal: controller.signal });
    // The first page's program is running once it has written its pid (a loaded machine may take a while to start it).
    const pid = await vi.waitFor(
      async () => {
        const written = Number(await readFile(join(dir, 'slow.pid'), 'utf8'));
        if (!written) throw new Error('no pid written yet');
        return written;
      },
      { timeout: 30_000, interval: 20 },
    );
    controller.abort();
    const [first, second] = await Promise.allSettled([running, queued]);
    expect(first).toMatchObject({ status: 'rejected', reason: { code: 'cancelled' } });
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'cancelled' } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(engine.running()).toBe(0);
  });

  it('close() ends running pages; the engine reads pages again afterwards', async () => {
    const binary = await fakeTesseract(
      dir,
      'closing.sh',
      `if [ -e "${dir}/slow-once" ]; then cat > /dev/null; cat "${dir}/answer.hocr"; else touch "${dir}/slow-once"; exec sleep 30; fi`,
    );
    // One tessdata folder as it is: no models to unpack before the program starts.
    const engine = createTesseractCliEngine({ binary, workers: 1, tessdataDir: '/fake/' });
    const running = engine.recognize(input, ['eng']);
    // Closed once the program runs (a loaded machine may take a while to start it).
    for (let waited = 0; !existsSync(join(dir, 'slow-once')) && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    await engine.close();
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    expect(ocrPageText(await engine.recognize(input, ['eng']))).toContain('Légende');
  });

  it('tells the caller once the process reading its page runs, before the page is read', async () => {
    // The stand-in answers only once the caller, told the reading has begun, leaves a file for it.
    const go = join(dir, 'go');
    const binary = await fakeTesseract(dir, 'waiting.sh', `while [ ! -e "${go}" ]; do sleep 0.05; done; cat "${dir}/answer.hocr"`);
    const engine = createTesseractCliEngine({ binary, workers: 2, tessdataDir: '/fake/' });
    const told: string[] = [];
    const started = (name: string) => () => {
      told.push(name);
      writeFileSync(go, '');
    };
    const pages = await Promise.all(['one', 'two'].map((name) => engine.recognize(input, ['eng'], { started: started(name) })));
    expect(pages.map((p) => ocrPageText(p).startsWith("l'été"))).toEqual([true, true]);
    expect(told.sort()).toEqual(['one', 'two']);
  });

  it('reads a language sample with the system’s own models when it has them all, and without per-character choices', async () => {
    // The system's model folder holds eng and fra (Debian's fast models), not ell (an npm model only).
    const system = await mkdtemp(join(dir, 'system-'));
    for (const code of ['eng', 'fra']) await writeFile(join(system, `${code}.traineddata`), '');
    const binary = join(dir, 'sample.sh');
    await writeFile(
      binary,
      `#!/bin/sh
case "$1" in
  --version) echo "tesseract 5.3.0"; exit 0;;
  --list-langs) echo 'List of available languages in "${system}/" (2):'; echo eng; echo fra; exit 0;;
esac
echo "$*" >> "${dir}/sample-calls.log"
cat "${dir}/answer.hocr"`,
    );
    await chmod(binary, 0o755);
    const models = join(dir, 'sample-models');
    const engine = createTesseractCliEngine({ binary, workers: 1, modelsDir: models });
    const sample = await engine.readWords!([input], ['eng', 'fra'], { forLanguage: true });
    expect(ocrPageText(sample[0])).toContain("l'été");
    await engine.readWords!([input], ['eng', 'ell'], { forLanguage: true });
    await engine.readWords!([input], ['fra']);
    const [quick, npm, words] = (await readFile(join(dir, 'sample-calls.log'), 'utf8')).trim().split('\n');
    expect(quick).toMatch(new RegExp(`--tessdata-dir ${system}/ -l eng\\+fra .*-c tessedit_do_invert=0$`));
    // A language the system lacks: the npm models read the sample, still without choices.
    expect(npm).toMatch(new RegExp(`--tessdata-dir ${models} -l eng\\+ell .*-c tessedit_do_invert=0$`));
    // Words the correction reads again keep the npm models; their text is what is taken, so no choices either.
    expect(words).toMatch(new RegExp(`--tessdata-dir ${models} -l fra .*-c tessedit_do_invert=0$`));
  });

  it('is unavailable, with one sentence why, when the program is missing or too old', async () => {
    await expect(createTesseractCliEngine({ binary: join(dir, 'no-such-tesseract') }).available()).resolves.toEqual({
      ok: false,
      reason: `The tesseract program ${join(dir, 'no-such-tesseract')} could not be run.`,
    });
    const old = createTesseractCliEngine({ binary: await fakeTesseract(dir, 'old.sh', 'exit 0', 'tesseract 3.05.01') });
    await expect(old.available()).resolves.toEqual({ ok: false, reason: 'Tesseract 3.05.01 is too old; version 4 or later is needed.' });
    await expect(old.recognize(input, ['eng'])).rejects.toMatchObject({
      code: 'usage',
      message: 'Tesseract 3.05.01 is too old; version 4 or later is needed.',
    });
    const missing = createTesseractCliEngine({ binary: join(dir, 'no-such-tesseract') });
    expect(missing.languages()).toEqual([]);
    await expect(missing.recognize(input, ['eng'])).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('could not be run') });
  });
});

// Debian's tesseract-ocr (+ -eng, -fra) is installed where these run; in CI its absence is a failure, not a skip.
const native = createTesseractCliEngine({ workers: 2 });
const nativeState = await native.available();
const needsProgram = describe.skipIf(!nativeState.ok && process.env.CI !== 'true');

/** Every box lies on the page, and the first word sits where the text was drawn, on its baseline. */
function expectBoxesWhereDrawn(result: OcrPage, drawn: TextPage): void {
  expect(result.width).toBe(drawn.width);
  expect(result.height).toBe(drawn.height);
  for (const w of words(result)) {
    expect(w.box.x0).toBeGreaterThanOrEqual(0);
    expect(w.box.y0).toBeGreaterThanOrEqual(0);
    expect(w.box.x1).toBeLessThanOrEqual(drawn.width);
    expect(w.box.y1).toBeLessThanOrEqual(drawn.height);
    expect(w.box.x1).toBeGreaterThan(w.box.x0);
    expect(w.box.y1).toBeGreaterThan(w.box.y0);
    expect(w.confidence).toBeGreaterThan(50);
  }
  const em = drawn.fontPx;
  const found = lines(result);
  expect(found).toHaveLength(drawn.lines.length);
  found.forEach((line, i) => {
    // Drawn at 1.35 em leading; the baseline tesseract reports lies on the drawn one.
    const drawnBaseline = drawn.baseline + i * em * 1.35;
    expect(line.baseline).toBeDefined();
    expect(Math.abs((line.baseline?.y0 ?? 0) - drawnBaseline)).toBeLessThan(0.1 * em);
    expect(Math.abs((line.baseline?.y1 ?? 0) - drawnBaseline)).toBeLessThan(0.1 * em);
  });
  const first = found[0].words[0];
  expect(first.text).toBe('Reading');
  expect(Math.abs(first.box.x0 - drawn.x)).toBeLessThan(0.2 * em);
  // The capital R rises about 0.73 em above the baseline; the g descends below it.
  expect(Math.abs(first.box.y0 - (drawn.baseline - 0.73 * em))).toBeLessThan(0.15 * em);
  expect(first.box.y1).toBeGreaterThan(drawn.baseline);
}

needsProgram('the tesseract-cli engine, with Debian’s tesseract', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quire-ocr-cli-'));
  });
  afterAll(async () => {
    await native.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is installed, with English and French', () => {
    expect(nativeState).toEqual({ ok: true });
    expect(native.languages()).toEqual(expect.arrayContaining(['eng', 'fra']));
    expect(native.languages()).not.toContain('osd');
  });

  it('reads the pipeline’s bitonal G4 TIFF page almost without error, boxes and baselines where the text was drawn', async () => {
    const page = await renderTextPage(ENGLISH);
    const result = await native.recognize(await writePage(dir, 'english.tif', page, await toG4Tiff(page)), ['eng']);
    expect(cer(page.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expect(result).toMatchObject({ engine: 'tesseract-cli', languages: ['eng'], dpi: 300 });
    expectBoxesWhereDrawn(result, page);
  });

  it('reads a bitonal page stored as one G4 tile (projects made before pages were strips) just as well', async () => {
    const page = await renderTextPage(ENGLISH);
    const result = await native.recognize(await writePage(dir, 'english-tiled.tif', page, await toG4Tiff(page, 'tile')), ['eng']);
    expect(cer(page.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expectBoxesWhereDrawn(result, page);
  });

  it('reads a 150-dpi grey page (upsampled for tesseract) and gives boxes in the page’s own pixels', async () => {
    const page = await renderTextPage(ENGLISH, { dpi: 150 });
    const result = await native.recognize(await writePage(dir, 'english-150.png', page), ['eng']);
    expect(cer(page.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expect(result.dpi).toBe(150);
    expectBoxesWhereDrawn(result, page);
  });

  it('reads pages waiting together from one list file, with the same words and boxes as one page at a time', async () => {
    const texts = [ENGLISH, FRENCH, `${ENGLISH} ${FRENCH}`, FRENCH.split(' ').reverse().join(' ')];
    const inputs: OcrInput[] = [];
    for (const [k, text] of texts.entries()) {
      const page = await renderTextPage(text);
      inputs.push(await writePage(dir, `listed-${k}.tif`, page, await toG4Tiff(page)));
    }
    // The real program behind a script that notes what each process was given to read.
    const calls = join(dir, 'listed-calls.log');
    const binary = join(dir, 'logging-tesseract.sh');
    await writeFile(binary, `#!/bin/sh\necho "$1" >> "${calls}"\nexec tesseract "$@"\n`);
    await chmod(binary, 0o755);
    const logging = createTesseractCliEngine({ binary, workers: 1 });
    try {
      const together = await Promise.all(inputs.map((input) => logging.recognize(input, ['eng', 'fra'])));
      const read = (await readFile(calls, 'utf8')).trim().split('\n');
      const lists = read.filter((arg) => arg.endsWith('.txt'));
      expect(lists.length).toBeGreaterThan(0);
      expect(read.length).toBeLessThan(inputs.length + 1);
      await rm(calls);
      for (const [k, input] of inputs.entries()) {
        const alone = await logging.recognize(input, ['eng', 'fra']);
        expect(together[k]).toEqual(alone);
        expect(cer(texts[k], ocrPageText(alone))).toBeLessThan(0.02);
      }
      expect((await readFile(calls, 'utf8')).trim().split('\n')).toEqual(inputs.map((input) => input.file));
    } finally {
      await logging.close();
    }
  });

  it('reads a page the pipeline left as a draft (a Deflate TIFF) from its file, as the language sample does before the page size is set', async () => {
    const page = await renderTextPage(ENGLISH);
    const grey = await sharp(page.png).toColourspace('b-w').raw().toBuffer();
    const draft = Buffer.from(encodeBitonalDraft({ width: page.width, height: page.height, channels: 1, data: new Uint8Array(grey) }, page.dpi));
    const input = await writePage(dir, 'draft.tif', page, draft);
    const calls = join(dir, 'draft-calls.log');
    const binary = join(dir, 'draft-tesseract.sh');
    await writeFile(binary, `#!/bin/sh\necho "$1" >> "${calls}"\nexec tesseract "$@"\n`);
    await chmod(binary, 0o755);
    const engine = createTesseractCliEngine({ binary, workers: 1 });
    try {
      const result = await engine.recognize(input, ['eng']);
      expect(cer(page.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
      // The file itself, not a PNG of it on stdin.
      const read = (await readFile(calls, 'utf8'))
        .trim()
        .split('\n')
        .filter((arg) => !arg.startsWith('--'));
      expect(read).toEqual([input.file]);
    } finally {
      await engine.close();
    }
  });

  it('reads French accents and apostrophes through hOCR’s escapes', async () => {
    const page = await renderTextPage(FRENCH);
    const result = await native.recognize(await writePage(dir, 'french.png', page), ['fra']);
    expect(cer(page.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expect(ocrPageText(result)).toContain('pêcheur');
  });

  it('tells how far a page photographed upside down or sideways must turn, from the npm orientation data', async () => {
    const page = await renderTextPage(`${ENGLISH} ${ENGLISH} ${ENGLISH}`);
    expect(await native.detectOrientation!(await writePage(dir, 'upright.png', page), {})).toMatchObject({ rotate: 0 });
    const upsideDown = await native.detectOrientation!(await writeTurnedPage(dir, 'upside-down.png', page, 180), {});
    expect(upsideDown).toMatchObject({ rotate: 180 });
    expect(upsideDown!.confidence).toBeGreaterThan(2);
    expect(await native.detectOrientation!(await writeTurnedPage(dir, 'sideways.png', page, 90), {})).toMatchObject({ rotate: 270 });
  });

  it('says which page image it could not read', async () => {
    const file = join(dir, 'broken.png');
    await writeFile(file, 'not an image');
    await expect(native.recognize({ file, width: 100, height: 100, dpi: 300 }, ['eng'])).rejects.toMatchObject({
      code: 'bad_image',
      message: expect.stringContaining('broken.png'),
    });
  });
});
