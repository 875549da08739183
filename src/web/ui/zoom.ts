/// <reference lib="dom" />
/**
 * Zoom and pan on a page image, as in a desktop scan tool: the buttons (or `+`, `-` and `0` with the image focused)
 * zoom in, out and back to the whole page; the mouse wheel zooms around the pointer; dragging (or the arrow keys,
 * with the image focused) moves the enlarged page. The image stays in its box: nothing else on the screen moves.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 8;
const STEP = 1.5;
/** Arrow keys move the page by this share of the box. */
const KEY_PAN = 0.1;

interface View {
  zoom: number;
  /** Offset of the page's top left corner in the box, px (0 or less: the page covers the box). */
  x: number;
  y: number;
}

const WHOLE: View = { zoom: 1, x: 0, y: 0 };

/** Keep the enlarged page over the whole box: it never leaves an empty strip at an edge. */
function clamp(view: View, width: number, height: number): View {
  const zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, view.zoom));
  const x = Math.min(0, Math.max(width - width * zoom, view.x));
  const y = Math.min(0, Math.max(height - height * zoom, view.y));
  return { zoom, x, y };
}

/** Zoom to `zoom` keeping the page point under (px, py) of the box where it is. */
function zoomAround(view: View, zoom: number, px: number, py: number, width: number, height: number): View {
  const next = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
  const ratio = next / view.zoom;
  return clamp({ zoom: next, x: px - (px - view.x) * ratio, y: py - (py - view.y) * ratio }, width, height);
}

export function ZoomableImage({
  src,
  alt,
  width,
  height,
  resetKey,
}: {
  src: string;
  alt: string;
  width: number;
  height: number;
  resetKey: string;
}): ComponentChild {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<View>(WHOLE);
  const drag = useRef<{ id: number; x: number; y: number; from: View } | null>(null);
  useEffect(() => setView(WHOLE), [resetKey]);

  const size = (): { w: number; h: number } => ({ w: box.current?.clientWidth ?? 1, h: box.current?.clientHeight ?? 1 });
  const zoomBy = (factor: number, at?: { x: number; y: number }): void => {
    const { w, h: ht } = size();
    setView((v) => zoomAround(v, v.zoom * factor, at?.x ?? w / 2, at?.y ?? ht / 2, w, ht));
  };
  const panBy = (dx: number, dy: number): void => {
    const { w, h: ht } = size();
    setView((v) => clamp({ ...v, x: v.x + dx, y: v.y + dy }, w, ht));
  };

  // The wheel zooms the image rather than scrolling the page, so its listener cannot be passive.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent): void => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      zoomBy(e.deltaY < 0 ? STEP : 1 / STEP, { x: e.clientX - r.left, y: e.clientY - r.top });
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const percent = `${Math.round(view.zoom * 100)} %`;
  return h(
    'div',
    { class: 'zoomable' },
    h(
      'div',
      { class: 'zoom-tools', role: 'group', 'aria-label': 'Zoom' },
      h(
        'button',
        {
          type: 'button',
          class: 'icon-button',
          'aria-label': 'Zoom out',
          title: 'Zoom out (-)',
          disabled: view.zoom <= MIN_ZOOM,
          onClick: () => zoomBy(1 / STEP),
        },
        '−',
      ),
      h('output', { class: 'zoom-level', 'aria-live': 'polite', 'aria-label': 'Zoom level' }, percent),
      h(
        'button',
        { type: 'button', class: 'icon-button', 'aria-label': 'Zoom in', title: 'Zoom in (+)', disabled: view.zoom >= MAX_ZOOM, onClick: () => zoomBy(STEP) },
        '+',
      ),
      h(
        'button',
        { type: 'button', class: 'button small-button', title: 'The whole page (0)', disabled: view.zoom === 1, onClick: () => setView(WHOLE) },
        'Whole page',
      ),
    ),
    h(
      'div',
      {
        ref: box,
        class: `zoom-box${view.zoom > 1 ? ' zoomed' : ''}`,
        // The whole page fits the window's height, as the page image did before it could be zoomed.
        style: { aspectRatio: `${width} / ${height}`, maxWidth: `calc((100vh - 16rem) * ${(width / height).toFixed(4)})` },
        tabIndex: 0,
        role: 'group',
        'aria-label': `${alt}, at ${percent}: + and - zoom, arrow keys move the page, 0 shows it whole`,
        onKeyDown: (e: KeyboardEvent) => {
          const { w, h: ht } = size();
          const moves: Record<string, [number, number]> = {
            ArrowLeft: [w * KEY_PAN, 0],
            ArrowRight: [-w * KEY_PAN, 0],
            ArrowUp: [0, ht * KEY_PAN],
            ArrowDown: [0, -ht * KEY_PAN],
          };
          if (e.key === '+' || e.key === '=') zoomBy(STEP);
          else if (e.key === '-') zoomBy(1 / STEP);
          else if (e.key === '0') setView(WHOLE);
          // Arrows move an enlarged page; on the whole page they still turn the pages.
          else if (moves[e.key] && view.zoom > 1) panBy(...moves[e.key]);
          else return;
          e.preventDefault();
        },
        onPointerDown: (e: PointerEvent) => {
          if (view.zoom <= 1 || e.button !== 0) return;
          drag.current = { id: e.pointerId, x: e.clientX, y: e.clientY, from: view };
          (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
        },
        onPointerMove: (e: PointerEvent) => {
          const d = drag.current;
          if (!d || d.id !== e.pointerId) return;
          const { w, h: ht } = size();
          setView(clamp({ ...d.from, x: d.from.x + e.clientX - d.x, y: d.from.y + e.clientY - d.y }, w, ht));
        },
        onPointerUp: () => (drag.current = null),
        onPointerCancel: () => (drag.current = null),
      },
      h('img', {
        src,
        alt,
        class: 'page-image zoom-image',
        width,
        height,
        draggable: false,
        style: { transform: `translate(${view.x}px, ${view.y}px) scale(${view.zoom})` },
      }),
    ),
  );
}
