// npm run bench:pipeline — converts the example bundle repeated to 100 frames (200 pages) into a G4 PDF
// and prints pages/second, per-step milliseconds and peak RSS. Each size runs in a fresh process so its
// peak RSS is its own; the 20-frame run beside the 100-frame one shows whether memory stays flat.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yauzl from 'yauzl';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sample = join(root, 'examples', 'sample.aglbundle');

if (process.argv[2] === '--one') {
  await runOne(process.argv[3], process.argv[4]);
} else {
  await main();
}

async function main() {
  const sizes = (process.env.BENCH_FRAMES ?? '20,100').split(',').map(Number);
  const work = mkdtempSync(join(tmpdir(), 'quire-bench-'));
  const rows = [];
  try {
    const frames = await readSampleFrames();
    for (const n of sizes) {
      const bundle = join(work, `bench-${n}`);
      writeFolderBundle(bundle, frames, n);
      const out = join(work, `out-${n}`);
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', bundle, out], { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (child.status !== 0) {
        process.stderr.write(child.stderr);
        throw new Error(`benchmark run of ${n} frames failed`);
      }
      const r = JSON.parse(child.stdout);
      const pdf = r.outputs[0].path;
      r.pdfPages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? NaN);
      rows.push(r);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  printTable(rows);
}

async function runOne(bundle, out) {
  const { convert } = await import(join(root, 'dist', 'index.js'));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const result = await convert(bundle, { exports: 'pdf:g4', outDir: out });
  clearInterval(sampler);
  const maxRssMb = Math.max(peak / 1048576, process.resourceUsage().maxRSS / 1024);
  // CPU of every thread of the process (the pipeline's workers, libvips' threads, the main thread).
  const { user, system } = process.cpuUsage();
  process.stdout.write(JSON.stringify({ ...result, maxRssMb, cpuMs: (user + system) / 1000 }));
}

function printTable(rows) {
  const steps = [...new Set(rows.flatMap((r) => Object.keys(r.timings.steps)))];
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(line(['frames', 'pages', 'pdf pages', 'wall s', 'pages/s', 'CPU ms/page', 'cores busy', 'peak RSS MB', ...steps.map((s) => `${s} ms/page`)]));
  console.log(line(Array(8 + steps.length).fill('---')));
  for (const r of rows) {
    const secs = r.timings.total / 1000;
    console.log(
      line([
        r.frames,
        r.pages,
        r.pdfPages,
        secs.toFixed(1),
        (r.pages / secs).toFixed(2),
        (r.cpuMs / r.pages).toFixed(0),
        (r.cpuMs / r.timings.total).toFixed(2),
        r.maxRssMb.toFixed(0),
        ...steps.map((s) => ((r.timings.steps[s] ?? 0) / r.pages).toFixed(1)),
      ]),
    );
  }
  console.log(
    `\nstep times are the time spent in each step summed over worker threads, per page; CPU ms/page is the process's CPU time (all threads, start-up included) per page, cores busy that CPU time over the wall time (${availableParallelism()} cores here; the load average at the end was ${loadavg()[0].toFixed(1)}: other work on the machine slows every figure but the CPU per page); targets: ≥ 8 pages/s, peak RSS ≤ 700 MB, flat in pages.`,
  );
}

function readSampleFrames() {
  return new Promise((resolve, reject) => {
    yauzl.open(sample, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const files = new Map();
      zip.on('entry', (entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => {
        const images = [...files.keys()].filter((f) => f.startsWith('images/')).sort();
        resolve({ manifest: JSON.parse(files.get('manifest.json').toString('utf8')), images: images.map((f) => files.get(f)) });
      });
      zip.readEntry();
    });
  });
}

function writeFolderBundle(dir, sampleBundle, n) {
  const frames = sampleBundle.images;
  mkdirSync(join(dir, 'images'), { recursive: true });
  const lines = [];
  for (let i = 1; i <= n; i++) {
    const file = `images/${String(i).padStart(4, '0')}.jpg`;
    writeFileSync(join(dir, file), frames[(i - 1) % frames.length]);
    lines.push(JSON.stringify({ index: i, file, captured: '2026-01-01T00:00:00Z', w: 1920, h: 1080 }));
  }
  writeFileSync(join(dir, 'pages.jsonl'), lines.join('\n') + '\n');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...sampleBundle.manifest, project: `bench ${n}`, page_count: n }));
}
