/* global fetch, FormData, Blob -- Node 20 globals the shared lint config does not list */
// npm run bench:server — the job server on loopback, measured from outside its process (build first).
// GET /health and GET /check: requests/s and p99 (autocannon, 10 connections). POST /run: p50/p99 with 1 MB
// uploads from 16 concurrent clients, also while a job converts (in its own process). RSS growth of the server
// while one client streams a 1 GiB upload (generated, never held in memory). Peak RSS of the server while a pixel
// bomb (a ~1 KB bundle whose page declares 16000×9000) is refused. GET /list (a page of 50) with 10,000 jobs for one
// key. Targets on 2 cores: /run p99 ≤ 50 ms, RSS growth ≤ 64 MB, /list ≤ 20 ms.
// Then, when PostgreSQL is installed (a throwaway cluster, scripts/pg-cluster.mjs): `quire server --no-worker` and
// 1, 2 and 4 `quire worker` processes on one database: jobs per minute on the example bundle, and the queue latency
// (submission → claim, from the database's own times) of jobs submitted one at a time to idle workers; goal ≤ 1 s.
// `--cluster` runs those rows alone; BENCH_CLUSTER_JOBS (default 8) jobs per row.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;
const MB = 1024 * 1024;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

if (process.argv[2] === '--serve') await serve(process.argv[3]);
else if (process.argv[2] === '--baseline') await baseline(process.argv[3]);
else if (process.argv[2] === '--cluster') printRows(await clusterRows());
else if (process.argv[2] === '--http') printRows(await httpRows());
else await main();

/**
 * The floor to compare /run with: fastify and @fastify/multipart alone, writing each upload to a file that is kept,
 * as /run does — no key, no database, no job. What this costs is the machine's, not Quire's.
 */
async function baseline(home) {
  const { default: Fastify } = await import('fastify');
  const { default: multipart } = await import('@fastify/multipart');
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const app = Fastify();
  await app.register(multipart);
  let n = 0;
  app.post('/run', async (request) => {
    for await (const part of request.parts({ limits: { fileSize: 2 * 1024 * MB } })) {
      if (part.type === 'file') await pipeline(part.file, createWriteStream(join(home, `upload-${n++}`)));
    }
    return { ok: true };
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(JSON.stringify({ address }) + '\n');
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
}

/** The server under test, in its own process so its RSS is its own. */
async function serve(home) {
  const { createApp } = await import(dist('server/index.js'));
  const server = await createApp({
    dbPath: join(home, 'quire-server.db'),
    dataDir: join(home, 'server_data'),
    runRateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
    // The bench is one key sending hundreds of uploads: its allowances are lifted, the rest is as shipped.
    limits: { uploadsPerKey: 64, uploadsTotal: 64, queuedJobsPerKey: 1_000_000, storedBytesPerKey: 1024 ** 4, minFreeDisk: 0 },
    startWorker: false,
  });
  const address = await server.app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(JSON.stringify({ address, secret: server.adminSecret }) + '\n');
  // The bench starts the worker when it wants it (the first /run figure is taken without it).
  process.stdin.on('data', () => server.startWorker());
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

async function main() {
  const home = await mkdtemp(join(tmpdir(), 'quire-bench-server-'));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', home], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rows = [];
  try {
    const { address, secret } = await firstLine(child);
    const key = await json(`${address}/admin/keys?secret=${secret}&email=bench@example.org`, 'POST');
    const apiKey = key.api_key;

    const health = await cannon({ url: `${address}/health`, connections: 10, duration: seconds });
    rows.push(['GET /health', `${fmt(health.requests.average)} req/s`, `p99 ${health.latency.p99} ms`, '']);

    // Random bytes named .zip: each upload becomes a job; with the worker on, it fails it at once (not a zip).
    const { body, contentType } = multipartBuffer(apiKey, 'bench.zip', randomBytes(MB));
    const runUploads = async (label, target = { address, pid: child.pid }) => {
      const uploads = 16 * 20;
      // A warm-up burst first, so the figure is not the JIT's or the first files' of a fresh process.
      await cannon({ url: `${target.address}/run`, method: 'POST', headers: { 'content-type': contentType }, body, connections: 16, amount: 32 });
      const cpu0 = cpuMs(target.pid);
      const run = await cannon({
        url: `${target.address}/run`,
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
        connections: 16,
        amount: uploads,
      });
      const cpu = (cpuMs(target.pid) - cpu0) / uploads;
      const goal = label.includes('floor') ? '' : '; target p99 ≤ 50 ms';
      const note = `${fmt(run.requests.average)} uploads/s, server CPU ${cpu.toFixed(1)} ms each${run.non2xx ? `, ${run.non2xx} non-2xx` : ''}${goal}`;
      rows.push([`POST /run, 1 MB, 16 clients, ${label}`, `p50 ${run.latency.p50} ms`, `p99 ${run.latency.p99} ms`, note]);
    };
    await runUploads('worker paused');
    const floor = spawn(process.execPath, [fileURLToPath(import.meta.url), '--baseline', await mkdtemp(join(home, 'baseline-'))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await runUploads('bare fastify + multipart to disk (floor)', { address: (await firstLine(floor)).address, pid: floor.pid });
    } finally {
      floor.kill('SIGTERM');
    }

    // The uploads above are queued jobs; each would fail in a process of its own. They are cancelled, so each figure
    // below is its own.
    await cancelQueued(home, apiKey);
    child.stdin.write('start worker\n');
    const t0 = performance.now();
    const job = await submitSmall(address, apiKey);
    while ((await json(`${address}/check/${job}?api_key=${apiKey}`)).status !== 'done') await new Promise((r) => setTimeout(r, 100));
    rows.push([
      'example bundle (3 frames, 6 pages), submit → done',
      `${fmt((performance.now() - t0) / 1000)} s`,
      '',
      'the job in a process of its own (started for it)',
    ]);
    const start = jobProcessStart();
    rows.push([
      'a job process starting (node + the conversion modules)',
      `${fmt(start)} ms`,
      '',
      'one is started ahead and waits loaded, so a job pays this only when jobs come faster',
    ]);

    const check = await cannon({ url: `${address}/check/${job}?api_key=${apiKey}`, connections: 10, duration: seconds });
    rows.push(['GET /check', `${fmt(check.requests.average)} req/s`, `p99 ${check.latency.p99} ms`, '']);

    await runUploads('worker failing each beside it');
    await cancelQueued(home, apiKey);

    // A conversion running (in its own process) the whole time the uploads come in: a second key's samples.
    const other = (await json(`${address}/admin/keys?secret=${secret}&email=bench2@example.org`, 'POST')).api_key;
    const converting = [];
    for (let i = 0; i < 4; i++) converting.push(await submitSmall(address, other));
    while ((await json(`${address}/check/${converting[0]}?api_key=${other}`)).status !== 'processing') await new Promise((r) => setTimeout(r, 50));
    await runUploads('while a job converts');
    const stillRunning = (await Promise.all(converting.map(async (id) => (await json(`${address}/check/${id}?api_key=${other}`)).status))).filter(
      (st) => st === 'processing' || st === 'pending',
    ).length;
    rows[rows.length - 1][3] += `; ${stillRunning} of 4 sample jobs still converting or queued at the end`;
    await cancelQueued(home, apiKey);
    for (const id of converting)
      while (!['done', 'failed'].includes((await json(`${address}/check/${id}?api_key=${other}`)).status)) await new Promise((r) => setTimeout(r, 200));

    const bomb = await pixelBombWatchingRss(address, apiKey, child.pid);
    rows.push([
      'pixel bomb job (16000×9000 declared)',
      `peak RSS ${fmt(bomb.peakMb)} MB`,
      `+${fmt(bomb.growthMb)} MB over ${fmt(bomb.seconds)} s`,
      `job ${bomb.status}: ${bomb.error}`,
    ]);

    const growth = await uploadHugeWatchingRss(address, apiKey, child.pid, 1024 * MB);
    await cancelQueued(home, apiKey);
    rows.push([
      '1 GiB upload, 1 client',
      `RSS +${fmt(growth.growthMb)} MB`,
      `${fmt(growth.seconds)} s (${fmt(1024 / growth.seconds)} MB/s)`,
      `HTTP ${growth.status}; target ≤ 64 MB`,
    ]);

    const jobs = await fillJobs(home, apiKey, 10_000);
    // Rows only (no upload behind them): cancelled, so the worker does not start a process for each while measuring.
    await cancelQueued(home, apiKey);
    const list = await cannon({ url: `${address}/list?api_key=${apiKey}`, connections: 1, amount: 50 });
    rows.push([`GET /list (a page of 50), ${jobs} jobs of one key`, `p50 ${list.latency.p50} ms`, `p99 ${list.latency.p99} ms`, 'target ≤ 20 ms']);
    const checkBig = await cannon({ url: `${address}/check/${job}?api_key=${apiKey}`, connections: 10, duration: seconds });
    rows.push([`GET /check, ${jobs} jobs in the database`, `${fmt(checkBig.requests.average)} req/s`, `p99 ${checkBig.latency.p99} ms`, '']);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(home, { recursive: true, force: true });
  }
  const { postgresBin } = await import('../scripts/pg-cluster.mjs');
  if (postgresBin() !== null) rows.push(...(await clusterRows()));
  else rows.push(['PostgreSQL with 1, 2, 4 workers', 'not measured', '', 'PostgreSQL is not installed (apt-get install postgresql)']);
  printRows(rows);
}

/**
 * `--http`: the /run rows alone, side by side in one run — bare fastify + multipart (the floor), Quire's /run with
 * its worker paused, while jobs convert (in processes of their own), and while 64 connections from one address hold
 * /run open without a key, dribbling a field (the unauthenticated flood). Goal: /run p99 while converting ≤ 1.5× the
 * floor's; keyed uploads unhurt by the flood.
 */
async function httpRows() {
  const { connect } = await import('node:net');
  const home = await mkdtemp(join(tmpdir(), 'quire-bench-http-'));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', home], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rows = [];
  try {
    const { address, secret } = await firstLine(child);
    const apiKey = (await json(`${address}/admin/keys?secret=${secret}&email=bench@example.org`, 'POST')).api_key;
    const { body, contentType } = multipartBuffer(apiKey, 'bench.zip', randomBytes(MB));
    const uploads = async (label, target = { address }) => {
      await cannon({ url: `${target.address}/run`, method: 'POST', headers: { 'content-type': contentType }, body, connections: 16, amount: 32 });
      const run = await cannon({
        url: `${target.address}/run`,
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
        connections: 16,
        amount: 16 * 20,
      });
      rows.push([
        `POST /run, 1 MB, 16 clients, ${label}`,
        `p50 ${run.latency.p50} ms`,
        `p99 ${run.latency.p99} ms`,
        `${fmt(run.requests.average)} uploads/s${run.non2xx ? `, ${run.non2xx} non-2xx` : ''}`,
      ]);
      return run.latency.p99;
    };
    const floorProcess = spawn(process.execPath, [fileURLToPath(import.meta.url), '--baseline', await mkdtemp(join(home, 'baseline-'))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let floor;
    try {
      floor = await uploads('bare fastify + multipart to disk (floor)', { address: (await firstLine(floorProcess)).address });
    } finally {
      floorProcess.kill('SIGTERM');
    }
    await uploads('worker paused');
    await cancelQueued(home, apiKey);

    // 64 keyless connections from another address (127.0.0.2), each dribbling a field: they hold no slot (and past the per-address
    // allowance are refused), so keyed uploads go on.
    const url = new URL(address);
    const keyless = [];
    for (let i = 0; i < 64; i++) {
      const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: '127.0.0.2' });
      socket.on('error', () => undefined);
      socket.write(
        `POST /run HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name="note"\r\n\r\n`,
      );
      keyless.push(socket);
    }
    const drip = setInterval(() => keyless.forEach((s) => s.destroyed || s.write('x')), 500);
    try {
      await uploads('while 64 keyless connections hold /run open');
    } finally {
      clearInterval(drip);
      keyless.forEach((s) => s.destroy());
    }
    await cancelQueued(home, apiKey);

    child.stdin.write('start worker\n');
    const other = (await json(`${address}/admin/keys?secret=${secret}&email=bench2@example.org`, 'POST')).api_key;
    const converting = [];
    for (let i = 0; i < 4; i++) converting.push(await submitSmall(address, other));
    while ((await json(`${address}/check/${converting[0]}?api_key=${other}`)).status !== 'processing') await new Promise((r) => setTimeout(r, 50));
    const busy = await uploads('while a job converts');
    rows[rows.length - 1][3] += `; ${fmt(busy / floor)}× the floor's p99 (goal ≤ 1.5×)`;
    await cancelQueued(home, apiKey);
    for (const id of converting)
      while (!['done', 'failed'].includes((await json(`${address}/check/${id}?api_key=${other}`)).status)) await new Promise((r) => setTimeout(r, 200));
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(home, { recursive: true, force: true });
  }
  return rows;
}

function printRows(rows) {
  console.log('| measure | figure | latency / detail | note |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

/** A `quire` process of the built CLI; resolves once `ready` matches what it printed. */
async function quireProcess(args, env, ready) {
  const child = spawn(process.execPath, [join(root, 'bin', 'quire.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    if (ready.test(out)) return { child, out: () => out, exited };
    if (child.exitCode !== null) throw new Error(`quire ${args[0]} did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The PostgreSQL rows: one database per number of workers, a server without a worker in front of them. */
async function clusterRows() {
  const { startPgCluster } = await import('../scripts/pg-cluster.mjs');
  const { default: pg } = await import('pg');
  const jobs = Number(process.env.BENCH_CLUSTER_JOBS ?? 8);
  const cluster = await startPgCluster();
  const rows = [];
  try {
    for (const workers of [1, 2, 4]) {
      const admin = new pg.Client(cluster.url);
      await admin.connect();
      await admin.query(`CREATE DATABASE bench_${workers}`);
      await admin.end();
      const url = cluster.url.replace(/\/postgres$/, `/bench_${workers}`);
      const home = await mkdtemp(join(tmpdir(), 'quire-bench-cluster-'));
      const env = { QUIRE_HOME: home, QUIRE_DATABASE_URL: url };
      const started = [];
      try {
        const server = await quireProcess(['server', '--port', '0', '--no-worker'], env, /^Admin panel: .*\n/m);
        started.push(server);
        const address = /^Quire server listening on (\S+)$/m.exec(server.out())[1];
        const secret = /secret=([A-Za-z0-9_-]+)$/m.exec(server.out())[1];
        const apiKey = (await json(`${address}/admin/keys?secret=${secret}&email=bench@example.org`, 'POST')).api_key;
        for (let i = 0; i < workers; i++) started.push(await quireProcess(['worker'], env, /^Quire worker .*\n/m));
        const t0 = performance.now();
        const ids = [];
        for (let i = 0; i < jobs; i++) ids.push(await submitSmall(address, apiKey));
        const statuses = async () => Promise.all(ids.map(async (id) => (await json(`${address}/check/${id}?api_key=${apiKey}`)).status));
        let ended;
        while (!(ended = await statuses()).every((st) => st === 'done' || st === 'failed')) await new Promise((r) => setTimeout(r, 200));
        const minutes = (performance.now() - t0) / 60_000;
        const failed = ended.filter((st) => st === 'failed').length;

        // Idle workers, one job at a time: how long it waits before a worker claims it. The upload is not a zip, so
        // the job fails at once and the next one finds the workers idle again.
        const { body, contentType } = multipartBuffer(apiKey, 'idle.zip', randomBytes(1024));
        const waits = [];
        for (let i = 0; i < 20; i++) {
          const id = (await json(`${address}/run`, 'POST', { headers: { 'content-type': contentType }, body })).job_id;
          while (!['done', 'failed'].includes((await json(`${address}/check/${id}?api_key=${apiKey}`)).status)) await new Promise((r) => setTimeout(r, 20));
          const db = new pg.Client(url);
          await db.connect();
          const {
            rows: [row],
          } = await db.query('SELECT started_at, created_at FROM jobs WHERE job_id = $1', [id]);
          await db.end();
          waits.push(Number(row.started_at) - Date.parse(row.created_at));
        }
        waits.sort((a, b) => a - b);
        const pct = (p) => waits[Math.min(waits.length - 1, Math.ceil((p / 100) * waits.length) - 1)];
        rows.push([
          `PostgreSQL, server --no-worker + ${workers} worker${workers > 1 ? 's' : ''}, ${jobs} example bundles`,
          `${fmt(jobs / minutes)} jobs/min`,
          `idle queue wait p50 ${pct(50)} ms, p99 ${pct(99)} ms`,
          `${failed ? `${failed} failed; ` : ''}goal ≤ 1 s; each job in a process of its own, pipeline threads = cores`,
        ]);
      } finally {
        for (const p of started.reverse()) {
          p.child.kill('SIGTERM');
          await p.exited;
        }
        await rm(home, { recursive: true, force: true });
      }
    }
  } finally {
    cluster.stop();
  }
  return rows;
}

function firstLine(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function json(url, method = 'GET', init = {}) {
  const res = await fetch(url, { method, ...init });
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${await res.text()}`);
  return res.json();
}

function cannon(options) {
  return new Promise((resolve, reject) => autocannon(options, (err, result) => (err ? reject(err) : resolve(result))));
}

function fmt(n) {
  return n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(1);
}

function multipartBuffer(apiKey, name, data) {
  const boundary = `----quirebench${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${apiKey}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function submitSmall(address, apiKey) {
  const form = new FormData();
  form.set('api_key', apiKey);
  form.set('file', new Blob([readFileSync(join(root, 'examples', 'sample.aglbundle'))]), 'sample.aglbundle');
  return (await json(`${address}/run`, 'POST', { body: form })).job_id;
}

/** CPU time (user + system, all threads) of a process from /proc (Linux), in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** RSS of a process from /proc (Linux), in bytes. */
function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** Stream `size` bytes of upload from a generator, sampling the server's RSS; growth is peak minus the level before. */
async function uploadHugeWatchingRss(address, apiKey, pid, size) {
  await new Promise((r) => setTimeout(r, 2000));
  const baseline = rssOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const boundary = `----quirebig${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${apiKey}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = randomBytes(MB);
  let left = size;
  let sentHead = false;
  const body = new Readable({
    read() {
      if (!sentHead) return void ((sentHead = true), this.push(head));
      if (left <= 0) return void (this.push(tail), this.push(null));
      const n = Math.min(MB, left);
      left -= n;
      this.push(n === MB ? chunk : chunk.subarray(0, n));
    },
  });
  const t0 = performance.now();
  const url = new URL(`${address}/run`);
  const status = await new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
  clearInterval(sampler);
  return { growthMb: (peak - baseline) / MB, seconds: (performance.now() - t0) / 1000, status };
}

/** What a job's process pays before it converts anything: Node starting and the conversion modules loading (median of 5). */
function jobProcessStart() {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(dist('convert/index.js'))})`]);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2];
}

/** A scan bundle of about a kilobyte whose one page is a JPEG declaring 16000×9000 pixels. */
async function pixelBomb() {
  const { default: sharp } = await import('sharp');
  const { default: yazl } = await import('yazl');
  const jpeg = Buffer.from(
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } })
      .jpeg({ quality: 50 })
      .toBuffer(),
  );
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(9000, sof + 5);
  jpeg.writeUInt16BE(16000, sof + 7);
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify({ format_version: 1, project: 'Bomb', page_count: 1 })), 'manifest.json');
  zip.addBuffer(Buffer.from(JSON.stringify({ index: 1, file: 'images/0001.jpg' }) + '\n'), 'pages.jsonl');
  zip.addBuffer(jpeg, 'images/0001.jpg');
  zip.end();
  const chunks = [];
  for await (const c of zip.outputStream) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Submit the bomb and sample the server's RSS until its job ends; the peak is the larger of the samples and VmHWM's growth. */
async function pixelBombWatchingRss(address, apiKey, pid) {
  const bytes = await pixelBomb();
  await new Promise((r) => setTimeout(r, 1000));
  const baseline = rssOf(pid);
  const hwm0 = hwmOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const t0 = performance.now();
  const form = new FormData();
  form.set('api_key', apiKey);
  form.set('file', new Blob([bytes]), 'bomb.aglbundle');
  const id = (await json(`${address}/run`, 'POST', { body: form })).job_id;
  let job;
  while (!['done', 'failed'].includes((job = await json(`${address}/check/${id}?api_key=${apiKey}`)).status)) await new Promise((r) => setTimeout(r, 50));
  clearInterval(sampler);
  peak = Math.max(peak, baseline + (hwmOf(pid) - hwm0));
  return {
    peakMb: peak / MB,
    growthMb: (peak - baseline) / MB,
    seconds: (performance.now() - t0) / 1000,
    status: job.status,
    error: `${bytes.length} B upload; ${job.error}`,
  };
}

/** Peak RSS of a process from /proc (Linux), in bytes. */
function hwmOf(pid) {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

/** Cancel the bench key's jobs that have not run, straight in the database (the server reads the same file). */
async function cancelQueued(home, apiKey) {
  const { openSqliteStore } = await import(dist('server/sqlite-store.js'));
  const { createHash } = await import('node:crypto');
  const store = openSqliteStore(join(home, 'quire-server.db'));
  const key = await store.findActiveKey(createHash('sha256').update(apiKey).digest('hex'));
  await store.cancelKeyJobs(key.keyId, Date.now());
  await store.close();
}

/** 10,000 jobs for the bench key, written straight into the database (the server reads the same file). */
async function fillJobs(home, apiKey, count) {
  const { openSqliteStore } = await import(dist('server/sqlite-store.js'));
  const { createHash } = await import('node:crypto');
  const store = openSqliteStore(join(home, 'quire-server.db'));
  const key = await store.findActiveKey(createHash('sha256').update(apiKey).digest('hex'));
  const existing = (await store.listJobs(key.keyId)).length;
  for (let i = existing; i < count; i++) {
    await store.insertJob(
      { jobId: randomBytes(16).toString('base64url'), keyId: key.keyId, emailNotif: false, ocr: null, dpi: null, uploadName: `book ${i}.pdf`, inputExt: 'pdf' },
      Date.now(),
    );
  }
  const total = (await store.listJobs(key.keyId)).length;
  await store.close();
  return total.toLocaleString('en');
}
