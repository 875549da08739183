/// <reference lib="dom" />
/**
 * Setting a frame's pages by hand, as in ScanTailor: on the capture, drag an edge or a corner of a page box, or the
 * split between the two pages of a spread; with the keyboard, each edge and the split is a slider (Tab to it, the
 * arrow keys move it, Shift moves it ten times as far). Apply makes the frame's pages again with these boxes (and
 * reads their text again when the document has text); Reset to automatic goes back to the boxes Quire finds.
 */
import { h, type ComponentChild } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { BoxView, DocumentSummary, FrameView, PageView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { ConfirmDialog } from './dialog.js';

/** The smallest page box the pipeline takes, in capture pixels (`MIN_PAGE_BOX`). */
const MIN_BOX = 32;

type Edge = 'left' | 'right' | 'top' | 'bottom';
type Grip = { box: number; edges: Edge[] } | { gutter: true };

const EDGE_WORDS: Record<Edge, string> = { left: 'Left edge', right: 'Right edge', top: 'Top edge', bottom: 'Bottom edge' };

function edgeValue(b: BoxView, edge: Edge): number {
  return edge === 'left' ? b.x : edge === 'right' ? b.x + b.width : edge === 'top' ? b.y : b.y + b.height;
}

/** The box with one edge moved to `to`, kept inside the frame and never smaller than the pipeline takes. */
function moveEdge(b: BoxView, edge: Edge, to: number, frame: { width: number; height: number }): BoxView {
  const right = b.x + b.width;
  const bottom = b.y + b.height;
  const v = Math.round(to);
  switch (edge) {
    case 'left': {
      const x = Math.max(0, Math.min(right - MIN_BOX, v));
      return { ...b, x, width: right - x };
    }
    case 'right':
      return { ...b, width: Math.min(frame.width, Math.max(b.x + MIN_BOX, v)) - b.x };
    case 'top': {
      const y = Math.max(0, Math.min(bottom - MIN_BOX, v));
      return { ...b, y, height: bottom - y };
    }
    case 'bottom':
      return { ...b, height: Math.min(frame.height, Math.max(b.y + MIN_BOX, v)) - b.y };
  }
}

/** The split between two boxes moved to x: the left page ends there and the right one starts there. */
function moveGutter(boxes: BoxView[], x: number, frame: { width: number; height: number }): BoxView[] {
  const at = Math.max(boxes[0].x + MIN_BOX, Math.min(boxes[1].x + boxes[1].width - MIN_BOX, Math.round(x)));
  return [moveEdge(boxes[0], 'right', at, frame), moveEdge(boxes[1], 'left', at, frame)];
}

function gutterOf(boxes: BoxView[]): number | undefined {
  return boxes.length === 2 ? Math.round((boxes[0].x + boxes[0].width + boxes[1].x) / 2) : undefined;
}

type Handlers = {
  /** What a pointer does to a grip: dragging it moves its edges. */
  grab: (grip: Grip) => Record<string, (e: PointerEvent) => void>;
  /** What an arrow key does to a grip at `value`: moves it one step (Shift: ten). */
  nudge: (grip: Grip, value: number, across: boolean) => (e: KeyboardEvent) => void;
};

/** Moving the boxes' edges and the split, by pointer (in the frame's pixels) and by arrow keys. */
function useBoxMoves(svg: { current: SVGSVGElement | null }, frame: FrameView, setBoxes: (f: (now: BoxView[]) => BoxView[]) => void): Handlers {
  const drag = useRef<{ id: number; grip: Grip } | null>(null);
  const step = Math.max(1, Math.round(frame.width / 200));
  const apply = (grip: Grip, point: { x: number; y: number }): void => {
    setBoxes((now) => {
      if ('gutter' in grip) return moveGutter(now, point.x, frame);
      return now.map((b, i) =>
        i !== grip.box ? b : grip.edges.reduce((acc, edge) => moveEdge(acc, edge, edge === 'left' || edge === 'right' ? point.x : point.y, frame), b),
      );
    });
  };
  const framePoint = (e: PointerEvent): { x: number; y: number } => {
    const matrix = svg.current?.getScreenCTM();
    if (!matrix) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
    return { x: p.x, y: p.y };
  };
  const grab = (grip: Grip) => ({
    onPointerDown: (e: PointerEvent) => {
      if (e.button !== 0) return;
      e.preventDefault();
      drag.current = { id: e.pointerId, grip };
      (e.currentTarget as Element).setPointerCapture(e.pointerId);
      (e.currentTarget as SVGElement).focus?.();
    },
    onPointerMove: (e: PointerEvent) => {
      if (drag.current?.id === e.pointerId) apply(drag.current.grip, framePoint(e));
    },
    onPointerUp: () => (drag.current = null),
    onPointerCancel: () => (drag.current = null),
  });
  const nudge = (grip: Grip, value: number, across: boolean) => (e: KeyboardEvent) => {
    const by = (e.shiftKey ? 10 : 1) * step;
    const delta = across ? { ArrowLeft: -by, ArrowRight: by }[e.key] : { ArrowUp: -by, ArrowDown: by }[e.key];
    if (delta === undefined) return;
    e.preventDefault();
    apply(grip, { x: value + delta, y: value + delta });
  };

  return { grab, nudge };
}

/** The capture with the page boxes on it: each edge and the split a slider, each corner a grip. */
function BoxCanvas({
  svg,
  frame,
  boxes,
  stroke,
  grab,
  nudge,
}: { svg: { current: SVGSVGElement | null }; frame: FrameView; boxes: BoxView[]; stroke: number } & Handlers): ComponentChild {
  const sideWords = (i: number): string => (boxes.length === 1 ? 'the page' : i === 0 ? 'the left page' : 'the right page');
  const gutter = gutterOf(boxes);
  const edges: Edge[] = ['left', 'right', 'top', 'bottom'];
  return h(
    'svg',
    {
      ref: svg,
      class: 'capture editing',
      viewBox: `0 0 ${frame.width} ${frame.height}`,
      role: 'group',
      'aria-label': `Page boxes of ${frame.input}, frame ${frame.index}: move an edge or the split with the arrow keys`,
      preserveAspectRatio: 'xMidYMid meet',
    },
    h('image', { href: frame.image, x: 0, y: 0, width: frame.width, height: frame.height }),
    boxes.map((b, i) => h('rect', { class: 'page-box', x: b.x, y: b.y, width: b.width, height: b.height, 'stroke-width': stroke * 1.5, 'data-box': i })),
    boxes.flatMap((b, i) =>
      edges.map((edge) => {
        const v = edgeValue(b, edge);
        const across = edge === 'left' || edge === 'right';
        // A band along the edge, thick enough to grab (a line has no area: it could not be hit nor seen as there).
        const t = stroke * 6;
        const band = across ? { x: v - t / 2, y: b.y, width: t, height: b.height } : { x: b.x, y: v - t / 2, width: b.width, height: t };
        return h('rect', {
          key: `${i}-${edge}`,
          class: 'edge',
          ...band,
          tabindex: 0,
          role: 'slider',
          'aria-label': `${EDGE_WORDS[edge]} of ${sideWords(i)}`,
          'aria-orientation': across ? 'horizontal' : 'vertical',
          'aria-valuemin': 0,
          'aria-valuemax': across ? frame.width : frame.height,
          'aria-valuenow': v,
          'data-edge': `${i}-${edge}`,
          onKeyDown: nudge({ box: i, edges: [edge] }, v, across),
          ...grab({ box: i, edges: [edge] }),
        });
      }),
    ),
    boxes.flatMap((b, i) =>
      (
        [
          ['left', 'top'],
          ['right', 'top'],
          ['left', 'bottom'],
          ['right', 'bottom'],
        ] as Edge[][]
      ).map((pair) => {
        const size = stroke * 8;
        return h('rect', {
          key: `${i}-${pair.join('')}`,
          class: 'corner',
          x: edgeValue(b, pair[0]) - size / 2,
          y: edgeValue(b, pair[1]) - size / 2,
          width: size,
          height: size,
          'aria-hidden': 'true',
          ...grab({ box: i, edges: pair }),
        });
      }),
    ),
    gutter !== undefined
      ? h('rect', {
          class: 'gutter edge',
          x: gutter - stroke * 3,
          y: 0,
          width: stroke * 6,
          height: frame.height,
          tabindex: 0,
          role: 'slider',
          'aria-label': 'Split between the pages',
          'aria-orientation': 'horizontal',
          'aria-valuemin': 0,
          'aria-valuemax': frame.width,
          'aria-valuenow': gutter,
          'data-edge': 'gutter',
          onKeyDown: nudge({ gutter: true }, gutter, true),
          ...grab({ gutter: true }),
        })
      : null,
  );
}

export function PageBoxEditor({
  doc,
  frame,
  page,
  siblings,
  onClose,
}: {
  doc: DocumentSummary;
  frame: FrameView;
  page: PageView;
  /** Every page of the frame, this one among them, left to right. */
  siblings: PageView[];
  onClose: () => void;
}): ComponentChild {
  const start = siblings.flatMap((p) => (p.split ? [p.split.box] : [])).sort((a, b) => a.x - b.x);
  const [boxes, setBoxes] = useState<BoxView[]>(start);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  /** What waits for the person's answer: new pages need new text, and the corrections on the old text go. */
  const [asking, setAsking] = useState<{ boxes: BoxView[] } | null | undefined>(undefined);
  const checked = siblings.reduce((n, p) => n + (p.proofreading?.checked ?? 0), 0);
  const svg = useRef<SVGSVGElement>(null);
  const stroke = Math.max(2, Math.round(frame.width / 400));

  const { grab, nudge } = useBoxMoves(svg, frame, setBoxes);

  const send = async (body: { boxes: BoxView[] } | null): Promise<void> => {
    setSending(true);
    setError(null);
    try {
      const url = `/api/documents/${doc.id}/frames/${frame.index}/pages`;
      await (body ? api('PUT', url, body) : api('DELETE', url));
      onClose();
    } catch (e) {
      setError(messageOf(e));
      setSending(false);
    }
  };

  const ask = (body: { boxes: BoxView[] } | null): void => {
    if (checked > 0) setAsking(body);
    else void send(body);
  };

  return h(
    'div',
    {
      class: 'box-editor',
      onKeyDown: (e: KeyboardEvent) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        onClose();
      },
    },
    h(BoxCanvas, { svg, frame, boxes, stroke, grab, nudge }),
    h(
      'p',
      { class: 'muted small' },
      'Drag an edge, a corner or the split; or Tab to an edge and move it with the arrow keys (Shift: farther). Esc leaves without changing anything.',
    ),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    h(
      'div',
      { class: 'box-editor-actions' },
      h(
        'button',
        { type: 'button', class: 'button primary', disabled: sending, onClick: () => ask({ boxes }) },
        doc.ocr ? 'Apply and read the text again' : 'Apply',
      ),
      page.split?.handSet ? h('button', { type: 'button', class: 'button', disabled: sending, onClick: () => ask(null) }, 'Reset to automatic') : null,
      h('button', { type: 'button', class: 'button', disabled: sending, onClick: onClose }, 'Cancel'),
    ),
    asking !== undefined
      ? h(
          ConfirmDialog,
          {
            title: "Make this frame's pages again?",
            confirmLabel: 'Apply and discard them',
            cancelLabel: 'Keep my corrections',
            onConfirm: () => {
              const body = asking;
              setAsking(undefined);
              void send(body);
            },
            onCancel: () => setAsking(undefined),
          },
          h(
            'p',
            null,
            `Its pages are made anew and their text recognised again, so the ${checked} word${checked === 1 ? '' : 's'} you checked or corrected on them ${checked === 1 ? 'is' : 'are'} lost. The other pages keep theirs.`,
          ),
        )
      : null,
  );
}
