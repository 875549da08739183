/// <reference lib="dom" />
/**
 * A document's running task, live: its stages in order (making the pages frame by frame, OCR page by page,
 * writing each format, sending to each destination), the running one with its count and the time it still
 * needs, and Cancel.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { DocumentSummary, StageProgress, TaskProgress } from '../api-types.js';
import { Icon } from './icons.js';

const TITLES: Record<TaskProgress['kind'], string> = {
  open: 'Opening',
  rerun: 'Making the pages again',
  ocr: 'Recognising the text',
  export: 'Exporting',
};

/** A range of time left wider than this share of its near end is not shown (as the server decides: `stages.ts`). */
const WIDEST_RANGE = 0.6;

/** "4 s", "1 min 20 s", "12 min". */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m >= 10) return `${Math.round(s / 60)} min`;
  const rest = s % 60;
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
}

/**
 * The time left as the card says it: "about 40 s", or, with pages that may yet be read again, the range from without
 * their second readings to with them: "35–58 s", "1 min 5 s to 1 min 46 s".
 */
export function formatTimeLeft(left: number, most?: number): string {
  const low = Math.max(0, Math.round(left));
  const high = most === undefined ? low : Math.max(low, Math.round(most));
  if (formatSeconds(high) === formatSeconds(low)) return `about ${formatSeconds(low)}`;
  if (high < 60) return `${low}–${high} s`;
  return `${formatSeconds(low)} to ${formatSeconds(high)}`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** How many units are done: pages are read and frames made side by side, so there is no single "page N" being worked on. */
function countWords(stage: StageProgress): string | null {
  if (stage.total === undefined || stage.unit === undefined) return null;
  if (stage.state === 'done') return plural(stage.total, stage.unit);
  const done = `${Math.min(stage.done ?? 0, stage.total)} of ${plural(stage.total, stage.unit)} done`;
  return stage.doing ? `${done}, ${stage.doing}` : done;
}

function stageDetail(stage: StageProgress): string {
  const count = countWords(stage);
  if (stage.state === 'done') {
    const took = stage.started !== undefined && stage.ended !== undefined ? `took ${formatSeconds((stage.ended - stage.started) / 1000)}` : 'done';
    return count ? `${count}, ${took}` : took;
  }
  if (stage.state === 'running') return count ?? stage.doing ?? 'running';
  if (stage.state === 'failed') return 'stopped';
  return 'waiting';
}

/** The share of the running stage done, for the progress bar. */
function share(task: TaskProgress): number {
  const running = task.stages.find((s) => s.state === 'running');
  if (!running) return task.stages.length > 0 && task.stages.every((s) => s.state === 'done') ? 1 : 0;
  return running.total ? (running.done ?? 0) / running.total : 0;
}

/**
 * The time a running stage still needs (a range while pages may yet be read again), counted down between the server's
 * reports; none once the count-down is below one unit's time (the last unit, which no pace predicts), and the seconds the stage has run meanwhile.
 */
function useTimes(task: TaskProgress | undefined): { left?: number; most?: number; running?: number } {
  const [now, setNow] = useState(Date.now());
  const received = useMemo(() => Date.now(), [task?.estimatedAt]);
  const stage = task?.stages.find((s) => s.state === 'running');
  useEffect(() => {
    if (!stage) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [stage?.key, stage?.started]);
  const running = stage?.started !== undefined ? Math.max(0, (now - stage.started) / 1000) : undefined;
  if (task?.secondsLeft === undefined) return { running };
  const left = task.secondsLeft - (now - received) / 1000;
  const most = task.secondsLeftMost === undefined ? left : task.secondsLeftMost - (now - received) / 1000;
  // A range is taken off as its middle goes below one unit's time, as a single figure is, and as it counts down to be
  // wider than 60 % of its near end (its middle could then be more than 30 % off).
  const hidden = (left + most) / 2 < (task.unitSeconds ?? 1) || most - left > left * WIDEST_RANGE;
  return hidden ? { running } : { left, most, running };
}

/** The stages of a task (running or finished) as a list. */
export function StageList({ stages, label = 'Stages' }: { stages: StageProgress[]; label?: string }): ComponentChild {
  return h(
    'ol',
    { class: 'steps', 'aria-label': label },
    stages.map((s) =>
      h(
        'li',
        { key: s.key, class: `step ${s.state}` },
        h(
          'span',
          { class: 'step-mark', 'aria-hidden': 'true' },
          s.state === 'done'
            ? h(Icon, { name: 'check', size: 16 })
            : s.state === 'running'
              ? h('span', { class: 'spinner' })
              : s.state === 'failed'
                ? '✕'
                : '·',
        ),
        h('span', { class: 'step-name' }, s.label),
        h('span', { class: 'step-detail' }, ` — ${stageDetail(s)}`),
      ),
    ),
  );
}

export function TaskPanel({ doc, onCancel, compact = false }: { doc: DocumentSummary; onCancel: () => void; compact?: boolean }): ComponentChild {
  const task = doc.task;
  const times = useTimes(task);
  if (!task) return null;
  const percent = Math.round(share(task) * 100);
  const running = task.stages.find((s) => s.state === 'running');
  const count = running ? countWords(running) : null;
  const line = running ? `${running.label}${count ? `: ${count}` : '…'}` : 'Starting…';
  // With no pace to go by yet (or on the last unit), the time the stage has run says it is alive, and nothing false.
  const when =
    times.left !== undefined
      ? ` — ${formatTimeLeft(times.left, times.most)} left`
      : times.running !== undefined && times.running >= 5
        ? ` — running for ${formatSeconds(times.running)}`
        : '';
  return h(
    'section',
    { class: compact ? 'task compact' : 'task', 'aria-labelledby': 'task-title', 'aria-busy': 'true' },
    h(
      'div',
      { class: 'task-head' },
      h('h2', { id: 'task-title' }, `${TITLES[task.kind]} ${compact ? '' : doc.name}`.trim()),
      h('button', { type: 'button', class: 'button', onClick: onCancel }, 'Cancel'),
    ),
    h('p', { class: 'task-line', id: 'task-line' }, line, when ? h('span', { class: 'task-left' }, when) : null),
    h('progress', { max: 100, value: percent, 'aria-labelledby': 'task-line' }),
    h(StageList, { stages: task.stages }),
    !compact && task.frames
      ? h(
          'ul',
          { class: 'frames', 'aria-label': 'Frames' },
          task.frames.map((f) =>
            h(
              'li',
              { class: f.done ? 'frame done' : 'frame' },
              h('span', { class: 'frame-mark', 'aria-hidden': 'true' }, f.done ? h(Icon, { name: 'check', size: 14 }) : '·'),
              `Frame ${f.index}`,
              h('span', { class: 'frame-input' }, f.input),
              h('span', { class: 'visually-hidden' }, f.done ? ' done' : ' waiting'),
            ),
          ),
        )
      : null,
  );
}
