// npm run bench:progress — how true the web app's "about N left" is, on the example bundle.
// The sample is opened and OCR'd as `quire gui` does it (the conversion verbs, the OCR panel's default engine
// and languages: tesseract.js, detected), every progress event timed. The events are then replayed second by
// second through the time-left estimate of the progress panel as it was (pace = stage time / units done, counted
// down and never hidden) and as it is (dist/web/stages.js: OCR timed by each page's work — its ink — at the pace
// measured per unit of work, pages read side by side, a page read again counted when its second reading starts).
// For every second a figure is on screen, its error against the time the stage really had left; a range ("65–102 s",
// pages that may yet be read again) is judged by its middle, and the share of its seconds holding the truth is told.
// Build first.
// BENCH_BASE_STAGES=<a stages.js> replays the same timeline through another build's estimate too (rows "base"), so
// before and after come from one run; BENCH_PROGRESS_SAVE=<file> keeps the timeline, BENCH_PROGRESS_REPLAY=<file>
// replays a kept one instead of converting again.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const engine = process.env.BENCH_OCR_ENGINE ?? 'tesseract';
const languages = process.env.BENCH_OCR_LANG ?? 'auto';
const { openDocument, processPages, readyOcr, recognize } = await import(join(root, 'dist/convert/index.js'));
const stages = await import(join(root, 'dist/web/stages.js'));

const replayFile = process.env.BENCH_PROGRESS_REPLAY;
/** Per stage: when it started and ended, and when each count arrived (ms from t0). */
const timeline = replayFile && existsSync(replayFile) ? JSON.parse(readFileSync(replayFile, 'utf8')) : await record();
if (process.env.BENCH_PROGRESS_SAVE) writeFileSync(process.env.BENCH_PROGRESS_SAVE, JSON.stringify(timeline));
const base = process.env.BENCH_BASE_STAGES ? await import(process.env.BENCH_BASE_STAGES) : undefined;

async function record() {
  const work = mkdtempSync(join(tmpdir(), 'quire-bench-progress-'));
  const t0 = Date.now();
  const timeline = { pages: { start: 0, counts: [] }, ocr: { start: 0, counts: [] } };
  try {
    const project = await openDocument(join(root, 'examples/sample.aglbundle'), { projectDir: join(work, 'project') });
    await processPages(project, {
      onProgress: (e) => e.type === 'frame' && timeline.pages.counts.push({ at: Date.now() - t0, done: e.framesDone, total: e.framesTotal }),
    });
    timeline.pages.end = Date.now() - t0;
    timeline.ocr.start = Date.now() - t0;
    const pagesTotal = project.manifest.pages.length;
    timeline.ocr.counts.push({ at: timeline.ocr.start, done: 0, total: pagesTotal });
    const spec = await readyOcr(engine, languages);
    await recognize(project, spec, {
      timeLeft: true,
      onProgress: (e) => {
        if (e.type === 'ocr') timeline.ocr.counts.push({ at: Date.now() - t0, done: e.pagesDone, total: e.pagesTotal, read: e.read });
        // A page read again (turned, or in its own language): the estimate as it is counts its work again.
        if (e.type === 'ocr-again') timeline.ocr.counts.push({ at: Date.now() - t0, again: true, read: e.read });
        // Every page read: the correction checks the words, untimed (the panel says so and shows no figure).
        if (e.type === 'ocr-check') timeline.ocr.counts.push({ at: Date.now() - t0, check: true });
      },
    });
    timeline.ocr.end = Date.now() - t0;
    await project.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return timeline;
}

/** The estimate as it was: pace from the stage's start, shown from the first unit on, counted down to 1 s. */
function before(stage, count) {
  if (count.again || count.check) return 'same';
  if (!count.done || count.done >= count.total) return undefined;
  const perUnit = (count.at - stage.start) / 1000 / count.done;
  return { left: Math.max(1, Math.round(perUnit * (count.total - count.done))), unit: 0 };
}

/** The estimate as it is, through the app's own code (or another build's, `code`). */
function after(code = stages) {
  const progress = { kind: 'open', stages: [code.ocrStage()], stage: 'ocr', framesTotal: 0, framesDone: 0, pagesDone: 0, started: 0 };
  return (stage, count) => {
    if (progress.stages[0].state !== 'running') code.startStage(progress, 'ocr', stage.start);
    if ((count.again && !code.rereadStage) || (count.check && !code.doingStage)) return 'same';
    if (count.check) code.doingStage(progress, 'ocr', 'checking the words', count.at);
    else if (count.again) code.rereadStage(progress, 'ocr', count.read, count.at);
    else code.countStage(progress, 'ocr', count.done, count.total, count.at, count.read);
    // A figure counting down from an earlier estimate (one the new count agreed with) is shown from when it was made.
    return progress.secondsLeft === undefined
      ? undefined
      : {
          left: progress.secondsLeft,
          most: progress.secondsLeftMost ?? progress.secondsLeft,
          unit: progress.unitSeconds ?? 1,
          at: progress.estimatedAt ?? count.at,
        };
  };
}

/** Second by second through a stage: the figure on screen (counted down from the last estimate) against the truth. */
function replay(stage, estimate) {
  const errors = [];
  let seconds = 0;
  let firstShown;
  // Every count reaches the estimate, in order (two may come within one second: the app hears both).
  let fed = 0;
  let shownAt;
  let shown;
  let ranges = 0;
  let inRange = 0;
  for (let t = stage.start; t < stage.end; t += 1000) {
    seconds++;
    while (fed < stage.counts.length && stage.counts[fed].at <= t) {
      const count = stage.counts[fed++];
      const estimated = estimate(stage, count);
      if (estimated === 'same') continue;
      shown = estimated;
      shownAt = estimated?.at ?? count.at;
    }
    if (!shown) continue;
    // A range ("35–58 s left", pages that may yet be read again) is judged by its middle, and by whether the truth
    // lies within it; a single figure is a range of no width.
    const low = shown.left - (t - shownAt) / 1000;
    const high = (shown.most ?? shown.left) - (t - shownAt) / 1000;
    const figure = (low + high) / 2;
    // As the card does: a range counting down is taken off once wider than 60 % of its near end.
    if (high - low > low * 0.6) continue;
    if (figure < Math.max(1, shown.unit)) {
      if (shown.unit === 0) errors.push(Math.abs(1 - (stage.end - t) / 1000) / ((stage.end - t) / 1000));
      continue;
    }
    const truth = (stage.end - t) / 1000;
    firstShown ??= { at: (t - stage.start) / 1000, low, high, truth };
    errors.push(Math.abs(figure - truth) / truth);
    if (high > low) {
      ranges++;
      if (truth >= low - 0.5 && truth <= high + 0.5) inRange++;
    }
  }
  errors.sort((a, b) => a - b);
  const pct = (x) => (x === undefined ? '–' : `${Math.round(x * 100)} %`);
  return {
    shown: `${errors.length} of ${seconds} s`,
    median: pct(errors[Math.floor(errors.length / 2)]),
    worst: pct(errors[errors.length - 1]),
    within30: errors.length ? `${Math.round((errors.filter((e) => e <= 0.3).length / errors.length) * 100)} %` : '–',
    ranges: ranges ? `${ranges} s, truth inside ${Math.round((inRange / ranges) * 100)} %` : '–',
    first: firstShown
      ? `${firstShown.low.toFixed(0)}${firstShown.high > firstShown.low ? `–${firstShown.high.toFixed(0)}` : ''} s shown, ${firstShown.truth.toFixed(0)} s true (at ${firstShown.at.toFixed(0)} s)`
      : '–',
  };
}

console.log(
  `Example bundle (3 frames → 6 pages), OCR ${engine} ${languages}; stage times: pages ${((timeline.pages.end - timeline.pages.start) / 1000).toFixed(1)} s, OCR ${((timeline.ocr.end - timeline.ocr.start) / 1000).toFixed(1)} s`,
);
console.log(
  `OCR pages done at: ${timeline.ocr.counts
    .filter((c) => c.done > 0)
    .map((c) => `${((c.at - timeline.ocr.start) / 1000).toFixed(1)} s`)
    .join(', ')}`,
);
console.log('| stage | estimate | seconds with a figure | median error | worst error | within 30 % | shown as a range | first figure |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const key of ['pages', 'ocr']) {
  const stage = timeline[key];
  for (const [name, estimate] of [['before', before], ...(base ? [['base', after(base)]] : []), ['after', after()]]) {
    const r = replay(stage, estimate);
    console.log(`| ${key} | ${name} | ${r.shown} | ${r.median} | ${r.worst} | ${r.within30} | ${r.ranges} | ${r.first} |`);
  }
}
process.exit(0);
