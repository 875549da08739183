// The CLI under collisions, failures, Ctrl-C and hostile names: what a user would notice (files on disk, exit
// codes, messages, processes and folders left behind). Runs the built CLI (`npm run build`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CAN_MOUNT, deepFolder, fillUp, QUIRE_BIN, readZip, ROOT, SAMPLE, runQuire, withTempDir, withTmpfs } from '../helpers.js';

/** The example bundle's files, by name. */
let sample: Promise<Map<string, Buffer>> | undefined;
function sampleFiles(): Promise<Map<string, Buffer>> {
  return (sample ??= readZip(SAMPLE));
}

/** An unpacked scan bundle of the example's first `frames` frames, under the project name `project`. */
async function bundle(path: string, project: string, frames = 1): Promise<string> {
  const files = await sampleFiles();
  const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
  const lines = files.get('pages.jsonl')!.toString('utf8').trim().split('\n').slice(0, frames);
  await mkdir(join(path, 'images'), { recursive: true });
  await writeFile(join(path, 'manifest.json'), JSON.stringify({ ...manifest, project, page_count: frames }));
  await writeFile(join(path, 'pages.jsonl'), lines.join('\n') + '\n');
  for (const line of lines) {
    const file = JSON.parse(line).file as string;
    await writeFile(join(path, file), files.get(file)!);
  }
  return path;
}

/** A PDF of `pages` pages, each one JPEG scan with a line of text, and that JPEG. */
async function scanPdf(path: string, pages = 2): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1275" height="1650"><rect width="100%" height="100%" fill="#f4efe6"/><text x="150" y="300" font-size="60" font-family="DejaVu Serif" fill="#222">The quick brown fox jumps</text><text x="150" y="420" font-size="60" font-family="DejaVu Serif" fill="#222">over the lazy dog again.</text></svg>`;
  const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 72 }).toBuffer();
  const doc = await PDFDocument.create();
  const image = await doc.embedJpg(jpeg);
  for (let i = 0; i < pages; i++) doc.addPage([612, 792]).drawImage(image, { x: 0, y: 0, width: 612, height: 792 });
  await writeFile(path, await doc.save());
  return jpeg;
}

const sha1 = (data: Buffer): string => createHash('sha1').update(data).digest('hex');

/** The files `pdfimages -all` extracts from `pdf`, in page order. */
function extractedImages(pdf: string, dir: string): Buffer[] {
  const prefix = join(dir, `img-${sha1(Buffer.from(pdf)).slice(0, 8)}`);
  execFileSync('pdfimages', ['-all', pdf, prefix]);
  return readdirSync(dir)
    .filter((f) => join(dir, f).startsWith(prefix))
    .sort()
    .map((f) => readFileSync(join(dir, f)));
}

/** Processes named `name` whose parent is `pid`, read from /proc. */
function childrenNamed(pid: number, name: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const m = /^\d+ \((.*)\) \S (\d+)/.exec(readFileSync(`/proc/${d}/stat`, 'utf8'));
        return m && m[1] === name && Number(m[2]) === pid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The CLI started in the background: its stderr as it comes, and its end. */
function startQuire(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [QUIRE_BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

async function until(what: string, test: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const hasNativeTesseract = spawnSync('tesseract', ['--version']).status === 0;
const workFolders = (tmp: string): string[] => readdirSync(tmp).filter((f) => f.startsWith('quire-'));

describe('outputs as transactions', () => {
  it('three documents with one name in one run: three files, named apart and said so', async () => {
    await withTempDir(async (dir) => {
      const inputs = await Promise.all([1, 2, 3].map((i) => bundle(join(dir, `b${i}`), 'Bad test')));
      const out = join(dir, 'out');
      const r = await runQuire(['run', ...inputs, '--pipeline', 'flat', '-o', out, '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout) as Array<{ input: string; file_stem: string; renamed: string | null; outputs: Array<{ path: string }> }>;
      expect(summary.map((s) => [s.input, s.file_stem, s.renamed])).toEqual([
        [inputs[0], 'Bad test', null],
        [inputs[1], 'Bad test (2)', 'taken'],
        [inputs[2], 'Bad test (3)', 'taken'],
      ]);
      expect(readdirSync(out).sort()).toEqual(['Bad test (2).pdf', 'Bad test (3).pdf', 'Bad test.pdf']);
      expect(summary.map((s) => s.outputs[0].path)).toEqual(['Bad test.pdf', 'Bad test (2).pdf', 'Bad test (3).pdf'].map((f) => join(out, f)));

      const text = await runQuire(['run', inputs[0], inputs[1], '--pipeline', 'flat', '-o', join(dir, 'text')]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('Bad test: 1 frame → 1 page in');
      expect(text.stdout).toContain('  written as "Bad test (2)": another document of this run is also called "Bad test"');
    });
  }, 300_000);

  it('a re-run whose second export cannot be written keeps the earlier PDF, untouched, and does no work', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'Book');
      const out = join(dir, 'out');
      expect((await runQuire(['run', input, '--pipeline', 'flat', '-o', out])).code).toBe(0);
      const before = sha1(readFileSync(join(out, 'Book.pdf')));
      mkdirSync(join(out, 'Book.quire'));
      const r = await runQuire(['run', input, '--pipeline', 'flat', '-e', 'pdf:jpeg+slim', '-o', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`quire: Could not write ${join(out, 'Book.quire')}: a folder has that name.\n`);
      expect(sha1(readFileSync(join(out, 'Book.pdf')))).toBe(before);
      expect(readdirSync(out).sort()).toEqual(['Book.pdf', 'Book.quire']);
    });
  }, 300_000);
});

describe('check before work', () => {
  it('with two inputs, a bad second one is found before the first is converted', async () => {
    await withTempDir(async (dir) => {
      const good = await bundle(join(dir, 'good'), 'Good');
      const bad = join(dir, 'bad');
      await bundle(bad, 'Bad');
      await writeFile(join(bad, 'manifest.json'), JSON.stringify({ format_version: 2, project: 'Bad', page_count: 1 }));
      const out = join(dir, 'out');
      const r = await runQuire(['run', good, bad, '-o', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^quire: .*format_version.*\.\n$/);
      expect(existsSync(out)).toBe(false);
    });
  }, 300_000);

  it('a document that fails half-way leaves nothing, and the next one is still converted (exit 1)', async () => {
    await withTempDir(async (dir) => {
      const broken = await bundle(join(dir, 'broken'), 'Broken');
      // A JPEG cut short: its header passes the check, its pixels do not decode.
      const image = join(broken, 'images', readdirSync(join(broken, 'images'))[0]);
      await writeFile(image, readFileSync(image).subarray(0, 3000));
      const good = await bundle(join(dir, 'good'), 'Good');
      const out = join(dir, 'out');
      const r = await runQuire(['run', broken, good, '--pipeline', 'flat', '-o', out, '--json']);
      expect(r.code).toBe(1);
      const [failed, done] = JSON.parse(r.stdout);
      expect(failed).toMatchObject({
        input: broken,
        status: 'failed',
        outputs: [],
        error: { code: 'bad_image', message: expect.stringMatching(/is not an image Quire can read\.$/) },
      });
      expect(done).toMatchObject({ input: good, status: 'done', name: 'Good', error: null });
      expect(readdirSync(out)).toEqual(['Good.pdf']);
      expect(r.stderr).toMatch(new RegExp(`^quire: ${broken}: .*is not an image Quire can read\\.\nquire: 1 document of 2 failed\\.\n$`));
    });
  }, 300_000);

  it('refuses --ocr none with a Markdown export, and an OCR engine without its key, before any page', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'Book');
      const none = await runQuire(['run', input, '--ocr', 'none', '-e', 'md', '-o', join(dir, 'out'), '--json']);
      expect(none.code).toBe(2);
      expect(JSON.parse(none.stdout)).toMatchObject([{ input, status: 'failed', error: { code: 'usage', message: expect.stringMatching(/--ocr none/) } }]);
      expect(existsSync(join(dir, 'out'))).toBe(false);

      const pdf = join(dir, 'scan.pdf');
      await scanPdf(pdf, 1);
      const env = { QUIRE_HOME: join(dir, 'home'), QUIRE_REMOTEOCR_API_KEY: '' };
      const remote = await runQuire(['ocr', pdf, '--ocr', 'remoteocr', '-o', join(dir, 'out')], { env });
      expect(remote.code).not.toBe(0);
      expect(remote.stderr).toMatch(/^quire: .*key.*\n$/);
      expect(existsSync(join(dir, 'out'))).toBe(false);
    });
  }, 300_000);

  it('shortens names to what the output folder takes, and says so', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'A History of the Printed Book in Forty Volumes, Volume the First');
      const out = deepFolder(dir, 3990);
      const r = await runQuire(['run', input, '--pipeline', 'flat', '-e', 'pdf+slim', '-o', out, '--json']);
      expect(r.code).toBe(0);
      const [summary] = JSON.parse(r.stdout);
      expect(summary.renamed).toBe('shortened');
      expect('A History of the Printed Book in Forty Volumes, Volume the First'.startsWith(summary.file_stem)).toBe(true);
      expect(readdirSync(out).sort()).toEqual([`${summary.file_stem}.pdf`, `${summary.file_stem}.quire`]);
    });
  }, 300_000);

  it('says why the output folder cannot be used: a file on the way', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'Book');
      const file = join(dir, 'notes.txt');
      await writeFile(file, 'hello');
      const r = await runQuire(['run', input, '-o', join(file, 'out')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`quire: Could not create the folder ${join(file, 'out')}: ${file} is a file, not a folder.\n`);
    });
  }, 300_000);

  it.skipIf(!CAN_MOUNT)(
    'says why the output folder cannot be used: full, read-only, immutable',
    async () => {
      await withTempDir(async (dir) => {
        const input = await bundle(join(dir, 'book'), 'Book');
        await withTmpfs('16k', async (mnt) => {
          const r = await runQuire(['run', input, '-o', join(mnt, 'out')]);
          expect(r.code).toBe(1);
          expect(r.stderr).toMatch(new RegExp(`^quire: Not enough space in ${mnt}/out: \\d+\\.\\d KiB free, about \\d+\\.\\d KiB needed\\.\\n$`));
          fillUp(mnt);
          const full = await runQuire(['run', input, '-o', mnt]);
          expect(full.stderr).toMatch(
            new RegExp(`^quire: (Not enough space in ${mnt}: 0 bytes free|Could not write ${mnt}: no space is left on the device \\(0 bytes free)`),
          );
        });
        // Roomy enough for the run's estimate (space is checked first), so read-only is what it meets.
        await withTmpfs(
          '1m',
          async (mnt) => {
            const r = await runQuire(['run', input, '-o', mnt, '--json']);
            expect(r.code).toBe(1);
            expect(JSON.parse(r.stdout)).toMatchObject([
              { input, status: 'failed', error: { code: 'output', message: `Could not write ${mnt}: the file system is read-only.` } },
            ]);
          },
          { readOnly: true },
        );
        await withTmpfs('1m', async (mnt) => {
          execFileSync('chattr', ['+i', mnt]);
          try {
            const r = await runQuire(['run', input, '-o', mnt]);
            expect(r.stderr).toBe(`quire: Could not write ${mnt}: permission denied.\n`);
          } finally {
            execFileSync('chattr', ['-i', mnt]);
          }
        });
      });
    },
    300_000,
  );
});

describe('signals', () => {
  it.skipIf(!hasNativeTesseract && process.env.CI !== 'true')(
    'SIGINT while native tesseract reads a page: tesseract killed, nothing left, exit 130',
    async () => {
      await withTempDir(async (dir) => {
        const input = await bundle(join(dir, 'book'), 'Book');
        const tmp = join(dir, 'tmp');
        mkdirSync(tmp);
        const out = join(dir, 'out');
        const run = startQuire(['run', input, '--ocr', 'tesseract-cli', '--ocr-lang', 'fr', '-e', 'pdf+md', '-o', out], { TMPDIR: tmp });
        let readers: number[] = [];
        await until('a tesseract process reading a page', () => {
          readers = run.stderr().includes('frame 1/1 done') ? childrenNamed(run.child.pid!, 'tesseract') : [];
          return readers.length > 0;
        });
        expect(workFolders(tmp)).toHaveLength(1);
        run.child.kill('SIGINT');
        const { code } = await run.exited;
        // Checked the moment Quire has exited: a tesseract that outlived it would still be running.
        expect(readers.filter(alive)).toEqual([]);
        expect(code).toBe(130);
        expect(run.stderr()).toMatch(/quire: Interrupted \(Ctrl-C\); nothing more was written\.\n$/);
        expect(workFolders(tmp)).toEqual([]);
        expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
      });
    },
    300_000,
  );

  it('SIGTERM in the pipeline exits 143; a second signal quits at once; kill -9 leaves a folder the next run removes', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'Book', 3);
      const tmp = join(dir, 'tmp');
      mkdirSync(tmp);
      const env = { TMPDIR: tmp };

      const term = startQuire(['run', input, '-o', join(dir, 'out')], env);
      await until('the first frame', () => term.stderr().includes('frame 1/3 done'));
      term.child.kill('SIGTERM');
      expect((await term.exited).code).toBe(143);
      expect(workFolders(tmp)).toEqual([]);
      expect(existsSync(join(dir, 'out'))).toBe(false);

      const twice = startQuire(['run', input, '-o', join(dir, 'out')], env);
      await until('the first frame', () => twice.stderr().includes('frame 1/3 done'));
      twice.child.kill('SIGINT');
      twice.child.kill('SIGINT');
      expect((await twice.exited).code).toBe(130);

      const killed = startQuire(['run', input, '-o', join(dir, 'out')], env);
      await until('the first frame', () => killed.stderr().includes('frame 1/3 done'));
      killed.child.kill('SIGKILL');
      await killed.exited;
      expect(workFolders(tmp).length).toBeGreaterThan(0);
      const next = await runQuire(['run', join(dir, 'missing.aglbundle')], { env });
      expect(next.code).toBe(1);
      expect(workFolders(tmp)).toEqual([]);
    });
  }, 300_000);
});

/** Characters that drive a terminal: none may reach it from an input. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/;

describe('safe printing', () => {
  it('prints a project name with terminal control characters escaped, and keeps it exact in JSON', async () => {
    await withTempDir(async (dir) => {
      const name = 'Evil\x1b]0;pwned\x07\x1b[2J\u202e name';
      const input = await bundle(join(dir, 'evil'), name);
      const r = await runQuire(['run', input, '--pipeline', 'flat', '-o', join(dir, 'out')]);
      expect(r.code).toBe(0);
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toMatch(CONTROL);
        expect(text).toContain('Evil\\x1b]0;pwned\\x07\\x1b[2J\\u202e name');
      }
      const json = await runQuire(['run', input, '--pipeline', 'flat', '-o', join(dir, 'json'), '--json']);
      expect(json.stdout).not.toMatch(CONTROL);
      expect(JSON.parse(json.stdout)[0].name).toBe(name);
      expect(readdirSync(join(dir, 'json'))).toEqual(['Evil_]0;pwned_[2J_ name.pdf']);

      const usage = await runQuire(['run', input, '--export', 'pdf\x1b[2J']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).not.toMatch(CONTROL);
    });
  }, 300_000);
});

describe('PDF pass-through', () => {
  it('quire ocr carries each JPEG page byte for byte, from a plain and from an owner-password PDF; run --pipeline flat too', async () => {
    await withTempDir(async (dir) => {
      const plain = join(dir, 'scan.pdf');
      const jpeg = await scanPdf(plain);
      const owner = join(dir, 'owner.pdf');
      execFileSync('qpdf', ['--encrypt', '', 'owner', '256', '--', plain, owner]);
      for (const input of [plain, owner]) {
        const r = await runQuire(['ocr', input, '--ocr-lang', 'en', '-o', join(dir, 'out'), '--json']);
        expect(r.code).toBe(0);
        const [summary] = JSON.parse(r.stdout);
        const images = extractedImages(summary.outputs[0].path, dir);
        expect(images.map(sha1)).toEqual([sha1(jpeg), sha1(jpeg)]);
        expect(execFileSync('pdftotext', ['-raw', summary.outputs[0].path, '-'], { encoding: 'utf8' })).toMatch(/quick brown fox/);
      }
      const flat = await runQuire(['run', plain, '--pipeline', 'flat', '-o', join(dir, 'flat')]);
      expect(flat.code).toBe(0);
      expect(flat.stdout).toContain('scan: 2 frames → 2 pages');
      expect(extractedImages(join(dir, 'flat', 'scan.pdf'), dir).map(sha1)).toEqual([sha1(jpeg), sha1(jpeg)]);
    });
  }, 300_000);
});

const REPORT_KEYS = [
  'error',
  'file_stem',
  'frames',
  'input',
  'kept_pages',
  'name',
  'ocr',
  'ocr_pending',
  'out_of_focus_pages',
  'outputs',
  'pages',
  'pages_per_second',
  'project',
  'renamed',
  'status',
  'timings_ms',
];

describe('scripting with --json', () => {
  it('prints an array for one document, for a usage error, and for quire list', async () => {
    await withTempDir(async (dir) => {
      const input = await bundle(join(dir, 'book'), 'Book');
      const one = await runQuire(['run', input, '--pipeline', 'flat', '-o', dir, '--json']);
      expect(one.code).toBe(0);
      const parsed = JSON.parse(one.stdout);
      expect(Array.isArray(parsed)).toBe(true);
      expect(parsed).toHaveLength(1);
      expect(parsed[0]).toMatchObject({ input, status: 'done', name: 'Book', file_stem: 'Book', frames: 1, pages: 1 });
      // Every field is there, empty or null when it has nothing: a script never tests whether a key exists.
      expect(Object.keys(parsed[0]).sort()).toEqual(REPORT_KEYS);
      expect(parsed[0]).toMatchObject({ ocr: null, out_of_focus_pages: [], kept_pages: 0, project: null, ocr_pending: null, error: null });

      const usage = await runQuire(['run', input, '--frobnicate', '--json']);
      expect(usage.code).toBe(2);
      expect(JSON.parse(usage.stdout)).toEqual([
        expect.objectContaining({ input: null, status: 'failed', outputs: [], error: { code: 'usage', message: "unknown option '--frobnicate'" } }),
      ]);
      // An input refused before any work is named; the others are skipped, not converted.
      const missing = await runQuire(['run', input, join(dir, 'nope.pdf'), '-o', join(dir, 'none'), '--json']);
      expect(missing.code).toBe(1);
      const [skipped, refused] = JSON.parse(missing.stdout);
      expect(refused).toMatchObject({
        input: join(dir, 'nope.pdf'),
        status: 'failed',
        outputs: [],
        out_of_focus_pages: [],
        error: { code: 'input_not_found', message: expect.stringContaining('nope.pdf') },
      });
      expect(Object.keys(refused).sort()).toEqual(REPORT_KEYS);
      expect(skipped).toMatchObject({ input, status: 'skipped', outputs: [], error: null });
      expect(existsSync(join(dir, 'none'))).toBe(false);
    });
    for (const what of ['pipelines', 'exports', 'ocr']) {
      const r = await runQuire(['list', what, '--json']);
      expect(r.code).toBe(0);
      const items = JSON.parse(r.stdout) as Array<{ name: string }>;
      expect(items.length).toBeGreaterThan(1);
    }
    const exportsList = JSON.parse((await runQuire(['list', 'exports', '--json'])).stdout) as Array<{ name: string; extension: string; needs_ocr: boolean }>;
    expect(exportsList.find((e) => e.name === 'md')).toMatchObject({ extension: '.md', needs_ocr: true });
    expect(JSON.parse((await runQuire(['list', 'pipelines', '--json'])).stdout).map((p: { name: string }) => p.name)).toEqual(['book', 'sheet', 'flat']);
  }, 300_000);
});
