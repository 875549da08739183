/// <reference lib="dom" />
/** A document's running task, live: each frame through the pipeline, each page through OCR, and Cancel. */
import { h, type ComponentChild } from 'preact';
import type { DocumentSummary, TaskProgress } from '../api-types.js';
import { Icon } from './icons.js';

const TITLES: Record<TaskProgress['kind'], string> = {
  open: 'Opening',
  rerun: 'Making the pages again',
  ocr: 'Recognising the text',
  export: 'Exporting',
};

function share(task: TaskProgress): number {
  if (task.stage === 'ocr' && task.ocr) return task.ocr.pagesTotal > 0 ? task.ocr.pagesDone / task.ocr.pagesTotal : 0;
  if (task.stage === 'pipeline') return task.framesTotal > 0 ? task.framesDone / task.framesTotal : 0;
  return task.stage === 'done' ? 1 : 0;
}

function stageLine(task: TaskProgress): string {
  switch (task.stage) {
    case 'pipeline':
      return `Pipeline: frame ${Math.min(task.framesDone + 1, task.framesTotal)} of ${task.framesTotal} — ${task.pagesDone} page${task.pagesDone === 1 ? '' : 's'} so far`;
    case 'ocr':
      return task.ocr ? `OCR: page ${task.ocr.pagesDone} of ${task.ocr.pagesTotal} recognised` : 'OCR: starting the engine and choosing the languages…';
    case 'export':
      return 'Writing the file…';
    default:
      return 'Done';
  }
}

type StepState = 'waiting' | 'running' | 'done';

function steps(task: TaskProgress): Array<{ name: string; state: StepState; detail: string }> {
  const order = ['pipeline', 'ocr', 'export', 'done'];
  const at = order.indexOf(task.stage);
  const state = (i: number): StepState => (i < at ? 'done' : i === at ? 'running' : 'waiting');
  const list: Array<{ name: string; state: StepState; detail: string }> = [];
  if (task.kind === 'open' || task.kind === 'rerun') list.push({ name: 'Pipeline', state: state(0), detail: `${task.framesDone} of ${task.framesTotal} frames, ${task.pagesDone} pages` });
  if (task.ocr || task.kind === 'ocr') list.push({ name: 'OCR', state: state(1), detail: task.ocr ? `${task.ocr.pagesDone} of ${task.ocr.pagesTotal} pages` : 'waiting' });
  if (task.kind === 'export') list.push({ name: 'Export', state: state(2), detail: task.stage === 'done' ? 'written' : task.stage === 'export' ? 'writing' : 'waiting' });
  return list;
}

export function TaskPanel({ doc, onCancel, compact = false }: { doc: DocumentSummary; onCancel: () => void; compact?: boolean }): ComponentChild {
  const task = doc.task;
  if (!task) return null;
  const percent = Math.round(share(task) * 100);
  return h(
    'section',
    { class: compact ? 'task compact' : 'task', 'aria-labelledby': 'task-title', 'aria-busy': 'true' },
    h(
      'div',
      { class: 'task-head' },
      h('h2', { id: 'task-title' }, `${TITLES[task.kind]} ${compact ? '' : doc.name}`.trim()),
      h('button', { type: 'button', class: 'button', onClick: onCancel }, 'Cancel'),
    ),
    h('p', { class: 'task-line', id: 'task-line' }, stageLine(task)),
    h('progress', { max: 100, value: percent, 'aria-labelledby': 'task-line' }),
    h(
      'ol',
      { class: 'steps', 'aria-label': 'Steps' },
      steps(task).map((s) =>
        h(
          'li',
          { class: `step ${s.state}` },
          h('span', { class: 'step-mark', 'aria-hidden': 'true' }, s.state === 'done' ? h(Icon, { name: 'check', size: 16 }) : s.state === 'running' ? h('span', { class: 'spinner' }) : null),
          h('span', { class: 'step-name' }, s.name),
          h('span', { class: 'step-detail' }, `${s.detail}${s.state === 'running' ? ' — running' : s.state === 'done' ? ' — done' : ''}`),
        ),
      ),
    ),
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
