/// <reference lib="dom" />
/**
 * What a screen reader hears of the work running on the document being looked at: a polite live region that says
 * when a task starts, when each of its stages starts, every quarter of a counted stage (not every frame: that would
 * drown everything else), and how the task ended. The region is on the page from the start, as live regions must be.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DocumentSummary, StageProgress } from '../api-types.js';

const STARTS: Record<string, string> = { open: 'Opening', rerun: 'Making the pages again of', ocr: 'Recognising the text of', export: 'Exporting' };

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** How a finished task is said, from the document's state once it ended. */
export function endedMessage(doc: DocumentSummary): string | null {
  const last = doc.lastTask;
  if (!last) return null;
  const what = { open: 'Opening', rerun: 'Making the pages again', ocr: 'Recognising the text', export: 'The export' }[last.kind];
  if (last.outcome === 'cancelled') return `${what} was cancelled.`;
  if (last.outcome === 'failed') return `${what} failed: ${last.message ?? ''}`;
  const checks = doc.proofreading ? `, ${plural(doc.proofreading.doubtful, 'word')} to check` : '';
  if (last.kind === 'export') return `${doc.name} is exported.`;
  if (last.kind === 'ocr') return `The text of ${doc.name} is recognised${checks}.`;
  return `${doc.name} is ready: ${plural(doc.pages, 'page')}${doc.ocr ? ` with text${checks}` : ''}.`;
}

/** The quarter of a counted stage reached (0 to 3; 4 is the end, said by the stage or task after it). */
function quarter(stage: StageProgress): number {
  if (!stage.total) return 0;
  return Math.min(3, Math.floor(((stage.done ?? 0) / stage.total) * 4));
}

export function Announcer({ doc }: { doc: DocumentSummary | null }): ComponentChild {
  const [message, setMessage] = useState('');
  const seen = useRef<{ id?: string; task?: string; stage?: string; quarter?: number; working?: boolean }>({});
  useEffect(() => {
    const before = seen.current;
    if (!doc) {
      seen.current = {};
      return;
    }
    const task = doc.task;
    const stage = task?.stages.find((s) => s.state === 'running');
    const now = {
      id: doc.id,
      working: doc.status === 'working',
      ...(task ? { task: `${task.kind}:${task.started}` } : {}),
      ...(stage ? { stage: stage.key, quarter: quarter(stage) } : {}),
    };
    seen.current = now;
    // Another document chosen: its state is on screen to read; only one just opened is said.
    if (before.id !== doc.id) {
      if (task && Date.now() - task.started < 5_000) setMessage(`${STARTS[task.kind]} ${doc.name}.`);
      return;
    }
    if (task && now.task !== before.task) setMessage(`${STARTS[task.kind]} ${doc.name}.`);
    else if (stage && now.stage !== before.stage) setMessage(`${stage.label}${stage.total ? `: ${plural(stage.total, stage.unit ?? 'item')}` : ''}.`);
    else if (stage && stage.total && now.quarter !== before.quarter && (now.quarter ?? 0) > 0)
      setMessage(`${stage.label}: ${stage.done ?? 0} of ${plural(stage.total, stage.unit ?? 'item')} done.`);
    else if (before.working && !now.working) setMessage(endedMessage(doc) ?? '');
  }, [doc]);
  return h('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', id: 'announcer' }, message);
}
