/// <reference lib="dom" />
/**
 * Looking at the pages: the grid of thumbnails with an eye toggle per page (hidden pages stay in
 * the project and leave the exports), and the page view: the capture with the detected page box
 * and split drawn on it beside the cleaned page, and the recognised text when OCR has run.
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DocumentDetail, FrameView, PageText, PageView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { Icon } from './icons.js';

function sideWords(page: PageView): string {
  const frame = `frame ${page.source.frame}`;
  return page.source.side === 'single' ? frame : `${page.source.side} page of ${frame}`;
}

/** The short form under a thumbnail: `frame 1, left`. */
function shortSide(page: PageView): string {
  return page.source.side === 'single' ? `frame ${page.source.frame}` : `frame ${page.source.frame}, ${page.source.side}`;
}

function EyeToggle({ page, onToggle, disabled }: { page: PageView; onToggle: (page: PageView) => void; disabled: boolean }): ComponentChild {
  const label = page.hidden ? `Show page ${page.index} in exports` : `Hide page ${page.index} from exports`;
  return h(
    'button',
    { type: 'button', class: 'icon-button eye', 'aria-label': label, title: label, disabled, onClick: () => onToggle(page) },
    h(Icon, { name: page.hidden ? 'eyeOff' : 'eye' }),
  );
}

export function PageGrid({ doc, onOpen, onToggle, busy }: { doc: DocumentDetail; onOpen: (index: number) => void; onToggle: (page: PageView) => void; busy: boolean }): ComponentChild {
  return h(
    'ul',
    { class: 'grid', 'aria-label': 'Pages' },
    doc.pageList.map((page) =>
      h(
        'li',
        { key: page.index, class: page.hidden ? 'tile hidden-page' : 'tile' },
        h(
          'button',
          { type: 'button', class: 'tile-open', onClick: () => onOpen(page.index), 'aria-label': `Page ${page.index}, ${sideWords(page)}${page.hidden ? ', hidden from exports' : ''}` },
          h('img', { src: page.thumb, alt: `Page ${page.index}`, loading: 'lazy', width: 160, height: Math.round((160 * page.height) / page.width) }),
        ),
        h(
          'div',
          { class: 'tile-foot' },
          h('span', { class: 'tile-label' }, h('strong', null, `Page ${page.index}`), h('span', { class: 'muted' }, page.hidden ? 'hidden from exports' : shortSide(page))),
          h(EyeToggle, { page, onToggle, disabled: busy }),
        ),
      ),
    ),
  );
}

/** The capture with what the pipeline found drawn over it, in the frame's own pixels. */
function Capture({ frame, page, siblings }: { frame: FrameView; page: PageView; siblings: PageView[] }): ComponentChild {
  const label = `Capture: ${frame.input}, frame ${frame.index}, with the page box${page.split?.gutterX !== undefined ? ' and the split' : ''} drawn on it`;
  const stroke = Math.max(2, Math.round(frame.width / 400));
  return h(
    'svg',
    { class: 'capture', viewBox: `0 0 ${frame.width} ${frame.height}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'xMidYMid meet' },
    h('image', { href: frame.image, x: 0, y: 0, width: frame.width, height: frame.height }),
    siblings
      .filter((p) => p.index !== page.index && p.split)
      .map((p) => h('rect', { class: 'other-box', ...p.split?.box, 'stroke-width': stroke })),
    page.split ? h('rect', { class: 'content-box', ...page.split.content, 'stroke-width': stroke, 'stroke-dasharray': `${stroke * 4} ${stroke * 3}` }) : null,
    page.split ? h('rect', { class: 'page-box', ...page.split.box, 'stroke-width': stroke * 1.5 }) : null,
    page.split?.gutterX !== undefined ? h('line', { class: 'gutter', x1: page.split.gutterX, x2: page.split.gutterX, y1: 0, y2: frame.height, 'stroke-width': stroke * 1.5 }) : null,
  );
}

function Legend({ page }: { page: PageView }): ComponentChild {
  if (!page.split) return h('p', { class: 'muted small' }, 'This page was taken whole: the preset looks for no page box.');
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'What is drawn on the capture' },
    h('li', null, h('span', { class: 'swatch page-box', 'aria-hidden': 'true' }), 'Page box'),
    h('li', null, h('span', { class: 'swatch content-box', 'aria-hidden': 'true' }), 'Printed area'),
    page.split.gutterX !== undefined ? h('li', null, h('span', { class: 'swatch gutter', 'aria-hidden': 'true' }), 'Split') : null,
  );
}

/** A paragraph as one run of text: line breaks become spaces, a word broken at a line end is joined again. */
function readingLines(paragraph: string): string {
  return paragraph.replace(/-\n(?=\p{Ll})/gu, '').replace(/\s*\n\s*/g, ' ');
}

function decisions(page: PageView): string {
  const parts = [`preset ${page.preset}`, `${page.width}×${page.height} px at ${page.dpi} dpi`];
  if (page.deskew !== undefined) parts.push(`straightened by ${Math.abs(page.deskew).toFixed(1)}°`);
  if (page.dewarped) parts.push('page curl flattened');
  return parts.join(' · ');
}

export function PageViewer({
  doc,
  index,
  onIndex,
  onBack,
  onToggle,
  busy,
}: {
  doc: DocumentDetail;
  index: number;
  onIndex: (index: number) => void;
  onBack: () => void;
  onToggle: (page: PageView) => void;
  busy: boolean;
}): ComponentChild {
  const position = doc.pageList.findIndex((p) => p.index === index);
  const page = doc.pageList[Math.max(0, position)];
  const [frame, setFrame] = useState<FrameView | null>(null);
  const [frameError, setFrameError] = useState<string | null>(null);
  const [text, setText] = useState<PageText | null>(null);

  useEffect(() => {
    let live = true;
    setFrame(null);
    setFrameError(null);
    api<FrameView>('GET', `/api/documents/${doc.id}/frames/${page.source.frame}`).then(
      (f) => live && setFrame(f),
      (e: unknown) => live && setFrameError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [doc.id, page.source.frame]);

  useEffect(() => {
    let live = true;
    setText(null);
    if (page.hasText) api<PageText>('GET', `/api/documents/${doc.id}/pages/${page.index}/text`).then((t) => live && setText(t), () => undefined);
    return () => {
      live = false;
    };
  }, [doc.id, page.index, page.hasText, doc.revision]);

  const prev = doc.pageList[position - 1];
  const next = doc.pageList[position + 1];
  const onKey = (e: KeyboardEvent): void => {
    if ((e.target as HTMLElement).closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft' && prev) onIndex(prev.index);
    else if (e.key === 'ArrowRight' && next) onIndex(next.index);
    else if (e.key === 'Escape') onBack();
  };
  const siblings = doc.pageList.filter((p) => p.source.frame === page.source.frame);

  return h(
    'section',
    { class: 'viewer', 'aria-labelledby': 'viewer-title', onKeyDown: onKey },
    h(
      'div',
      { class: 'viewer-bar' },
      h('button', { type: 'button', class: 'button', onClick: onBack }, h(Icon, { name: 'grid' }), 'All pages'),
      h('h2', { id: 'viewer-title' }, `Page ${page.index} of ${doc.pageList.length}`, h('span', { class: 'muted' }, ` — ${sideWords(page)}${page.hidden ? ', hidden from exports' : ''}`)),
      h(
        'div',
        { class: 'viewer-nav' },
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Previous page', disabled: !prev, onClick: () => prev && onIndex(prev.index) }, h(Icon, { name: 'prev' })),
        h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Next page', disabled: !next, onClick: () => next && onIndex(next.index) }, h(Icon, { name: 'next' })),
        h(EyeToggle, { page, onToggle, disabled: busy }),
      ),
    ),
    h(
      'div',
      { class: page.hasText ? 'compare with-text' : 'compare' },
      h(
        'figure',
        { class: 'before' },
        h('figcaption', null, h('strong', null, 'Before'), ' — the capture'),
        frame ? h(Capture, { frame, page, siblings }) : frameError ? h('p', { class: 'error', role: 'alert' }, frameError) : h('div', { class: 'placeholder', role: 'status' }, 'Loading the capture…'),
        h(Legend, { page }),
      ),
      h(
        'figure',
        { class: 'after' },
        h('figcaption', null, h('strong', null, 'After'), ' — the cleaned page'),
        h('img', { src: page.image, alt: `Cleaned page ${page.index}`, class: 'page-image', width: page.width, height: page.height }),
        h('p', { class: 'muted small' }, decisions(page)),
      ),
      page.hasText
        ? h(
            'section',
            { class: 'page-text', 'aria-labelledby': 'text-title' },
            h('h3', { id: 'text-title' }, 'Recognised text'),
            text
              ? h('div', { class: 'text-body', tabIndex: 0, 'aria-label': `Recognised text of page ${page.index}` }, text.text === '' ? h('p', { class: 'muted' }, 'No text was found on this page.') : text.text.split('\n\n').map((para) => h('p', null, readingLines(para))))
              : h('p', { class: 'muted', role: 'status' }, 'Loading the text…'),
            text?.engine ? h('p', { class: 'muted small' }, `${text.engine}, ${text.languages?.join('+') ?? ''}`) : null,
          )
        : null,
    ),
    !page.hasText ? h('p', { class: 'muted small note' }, 'No recognised text yet: run OCR from the OCR panel to see it beside the page.') : null,
  );
}
