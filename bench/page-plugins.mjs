// npm run bench:page-plugins — what a processor plugin costs a page beside the built-in steps.
//
// Row 1, the sandbox round trip: a 300-dpi A4 page (2480×3508, one grey channel) handed to a processor that
// returns it as it came, in its own isolated process (bubblewrap where it works, prlimit, the permission model),
// the pixels through the memory file system and back: the overhead of any processor, per page. Beside it, two
// processors that change the page: `specks` blots out 40 small spots (what despeckle does to a page: a few changed
// rows), `repaint` writes every pixel anew (a filter over the whole page; its own work, a fill, is counted in).
// Row 2, in a run: the example bundle converted with and without `--steps +identity`, alternated (the machine is
// shared: only the ratio side by side in one run means anything), the median per-page difference.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { findPagePlugin, openPagePlugin, recordAcceptance, pluginIsolation } = await import(join(root, 'dist', 'plugins', 'index.js'));

const toml = (slug) => `slug = "${slug}"\nname = "${slug}"\nversion = "1.0.0"\nkind = "processor"\nentry = "plugin.mjs"\n\n[requires]\napi = 1\n`;
const processorJs = (slug, body) => `import { Processor, registerProcessor } from 'quire/plugin-api';
class Bench extends Processor {
  name = '${slug}';
  display = '${slug}';
  summary = 'a benchmark of the round trip';
  process(page) { ${body} return { image: page, facts: { seen: true } }; }
}
registerProcessor(Bench);
`;
const PROCESSORS = {
  identity: '',
  // 40 spots of 4×4 pixels, spread down the page, set to black and back to white on alternate pages.
  specks:
    'const v = (this.n = (this.n ?? 0) + 1) % 2 ? 0 : 255; for (let s = 0; s < 40; s++) { const x = 100 + ((s * 379) % (page.width - 200)), y = 50 + Math.floor((s * (page.height - 100)) / 40); for (let dy = 0; dy < 4; dy++) page.pixels.fill(v, (y + dy) * page.width + x, (y + dy) * page.width + x + 4); }',
  repaint: 'page.pixels.fill((this.n = ((this.n ?? 0) + 1) % 2) ? 120 : 130);',
};

/** CPU milliseconds (user + system) of this process's descendants (the plugin's process, bubblewrap), from /proc. */
function descendantsCpuMs(pid = process.pid) {
  let total = 0;
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    let children;
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      continue;
    }
    for (const child of children) {
      try {
        const fields = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ');
        total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
      } catch {
        // gone
      }
      total += descendantsCpuMs(Number(child));
    }
  }
  return total;
}

const home = mkdtempSync(join(tmpdir(), 'quire-bench-plugins-'));
try {
  for (const [slug, body] of Object.entries(PROCESSORS)) {
    const dir = join(home, 'plugins', 'processors', slug);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'quire-plugin.toml'), toml(slug));
    writeFileSync(join(dir, 'plugin.mjs'), processorJs(slug, body));
    recordAcceptance(slug, dir, home);
  }
  const host = { appData: home, keychain: null };
  const isolation = await pluginIsolation(host);
  const entry = await findPagePlugin('processor', 'identity', host);
  if (entry?.state !== 'usable') throw new Error(`identity plugin not usable: ${entry?.reason}`);

  console.log(
    `machine: ${availableParallelism()} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; isolation: ${isolation.level}`,
  );
  let startMs = 0;
  const rows = [
    ['identity', 'A4', 2480, 3508],
    ['identity', 'A5', 1748, 2480],
    ...(process.env.BENCH_CHANGING === '0'
      ? []
      : [
          ['specks', 'A4', 2480, 3508],
          ['repaint', 'A4', 2480, 3508],
        ]),
  ];
  for (const [slug, label, width, height] of rows) {
    const entry = await findPagePlugin('processor', slug, host);
    if (entry?.state !== 'usable') throw new Error(`${slug} plugin not usable: ${entry?.reason}`);
    const pixels = new Uint8Array(width * height).fill(255);
    for (let r = 0; r < 30; r++) for (let y = 0; y < 25; y++) pixels.fill(0, (300 + r * 60 + y) * width + 200, (300 + r * 60 + y) * width + width - 200);
    const facts = { kind: 'bitonal', textScale: { xHeightPx: 26, linePitchPx: 60 }, plugins: {} };
    const t0 = performance.now();
    const session = await openPagePlugin(entry, {}, host);
    startMs = performance.now() - t0;
    const times = [];
    const pages = 40;
    let hostCpu = 0;
    let childCpu = 0;
    try {
      for (let i = 0; i < pages; i++) {
        if (i === 5) {
          // the first pages warm the process up; CPU is counted from here
          hostCpu = process.cpuUsage();
          childCpu = descendantsCpuMs();
        }
        const t = performance.now();
        const out = await session.process({ width, height, dpi: 300, pixels }, facts);
        if (!out.ok) throw new Error(out.message);
        if (i >= 5) times.push(performance.now() - t);
      }
      const used = process.cpuUsage(hostCpu);
      hostCpu = (used.user + used.system) / 1000 / (pages - 5);
      childCpu = (descendantsCpuMs() - childCpu) / (pages - 5);
    } finally {
      await session.close();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const p90 = times[Math.floor(times.length * 0.9)];
    console.log(
      `${slug === 'identity' ? 'processor round trip' : `processor round trip (${slug})`}, 300-dpi ${label} page (${width}×${height} grey, ${((width * height) / 1e6).toFixed(1)} MB): wall median ${median.toFixed(1)} ms/page, p90 ${p90.toFixed(1)} ms; ` +
        `CPU host ${hostCpu.toFixed(1)} + plugin process ${childCpu.toFixed(1)} = ${(hostCpu + childCpu).toFixed(1)} ms/page (${times.length} pages); process start ${startMs.toFixed(0)} ms once per run`,
    );
  }

  if (process.env.BENCH_RUNS !== '0') {
    const sample = join(root, 'examples', 'sample.aglbundle');
    const bin = join(root, 'bin', 'quire.js');
    const runs = Number(process.env.BENCH_RUNS ?? 3);
    // bash's `time` counts the CPU of the whole process tree (the pipeline threads, the plugin's process) as well.
    const measure = (steps) => {
      const out = join(home, `out-${Math.random().toString(36).slice(2)}`);
      const quoted = [bin, 'run', sample, '-o', out, ...(steps ? ['--steps', '+identity'] : [])].map((a) => `'${a}'`).join(' ');
      const t = performance.now();
      const r = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time '${process.execPath}' ${quoted} >/dev/null 2>/dev/null`], {
        env: { ...process.env, QUIRE_HOME: home },
        encoding: 'utf8',
      });
      const wall = performance.now() - t;
      const [user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
      rmSync(out, { recursive: true, force: true });
      return { wall, cpu: (user + sys) * 1000 };
    };
    const without = [];
    const withStep = [];
    for (let i = 0; i < runs; i++) {
      without.push(measure(false));
      withStep.push(measure(true));
    }
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const pages = 6;
    const wall = [med(without.map((r) => r.wall)), med(withStep.map((r) => r.wall))];
    const cpu = [med(without.map((r) => r.cpu)), med(withStep.map((r) => r.cpu))];
    console.log(
      `example bundle (${pages} pages), ${runs} alternated runs, medians: without ${(wall[0] / 1000).toFixed(1)} s wall / ${(cpu[0] / 1000).toFixed(2)} s CPU, ` +
        `with --steps +identity ${(wall[1] / 1000).toFixed(1)} s / ${(cpu[1] / 1000).toFixed(2)} s CPU: +${((cpu[1] - cpu[0]) / 1000).toFixed(2)} s CPU a run ` +
        `(the plugin's process start and its isolation probe, once, and the pages' round trips), wall ratio ${(wall[1] / wall[0]).toFixed(2)} (noise at this load)`,
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
