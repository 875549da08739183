/// <reference lib="dom" />
/**
 * Looking at the pages: the grid of thumbnails with an eye toggle per page (hidden pages stay in
 * the project and leave the exports) and how many words each has to check, and the page view: the
 * capture with the detected page box and split drawn on it beside the cleaned page and the
 * recognised text, or the proofreading view. The app's keys turn the pages (see `shortcuts.ts`).
 */
import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DocumentDetail, FrameView, PageText, PageView } from '../api-types.js';
import { api, messageOf } from './api.js';
import { Icon } from './icons.js';
import { PageBoxEditor } from './page-box-editor.js';
import { ProofreadView, type InitialWord } from './proofread.js';
import { fromPdf } from './source.js';
import { ZoomableImage } from './zoom.js';

export type ViewMode = 'compare' | 'proofread';

/** Where a page came from: a PDF's pages are pages (`page 3 of the PDF`), a camera's or a scanner's images are frames. */
function sourceWords(page: PageView): string {
  return fromPdf(page) ? `page ${page.source.frame} of the PDF` : `frame ${page.source.frame}`;
}

function sideWords(page: PageView): string {
  const frame = sourceWords(page);
  return page.source.side === 'single' ? frame : `${page.source.side} page of ${frame}`;
}

/** The short form under a thumbnail: `frame 1, left`, `PDF page 3`. */
function shortSide(page: PageView): string {
  const frame = fromPdf(page) ? `PDF page ${page.source.frame}` : `frame ${page.source.frame}`;
  return page.source.side === 'single' ? frame : `${frame}, ${page.source.side}`;
}

function EyeToggle({ page, onToggle, disabled }: { page: PageView; onToggle: (page: PageView) => void; disabled: boolean }): ComponentChild {
  const label = page.hidden ? `Show page ${page.index} in exports` : `Hide page ${page.index} from exports`;
  return h(
    'button',
    { type: 'button', class: 'icon-button eye', 'aria-label': label, title: label, disabled, onClick: () => onToggle(page) },
    h(Icon, { name: page.hidden ? 'eyeOff' : 'eye' }),
  );
}

function checkWords(page: PageView): string {
  const n = page.proofreading?.doubtful ?? 0;
  return n > 0 ? `${n} word${n === 1 ? '' : 's'} to check` : '';
}

/** Arrow keys move between the tiles as they sit on the screen; Home and End go to the first and last. */
function onGridKey(e: KeyboardEvent): void {
  const tiles = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('.tile-open')];
  const at = tiles.indexOf(e.target as HTMLElement);
  if (at < 0) return;
  const perRow = Math.max(1, tiles.filter((t) => t.offsetTop === tiles[0].offsetTop).length);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, ArrowDown: at + perRow, ArrowUp: at - perRow, Home: 0, End: tiles.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  tiles[Math.max(0, Math.min(tiles.length - 1, to))].focus();
}

export function PageGrid({
  doc,
  onOpen,
  onToggle,
  busy,
  focusIndex,
}: {
  doc: DocumentDetail;
  onOpen: (index: number) => void;
  onToggle: (page: PageView) => void;
  busy: boolean;
  /** The page the person comes back from: its tile takes the focus. */
  focusIndex: number | null;
}): ComponentChild {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (focusIndex !== null) list.current?.querySelector<HTMLElement>(`[data-page="${focusIndex}"]`)?.focus();
  }, [focusIndex]);
  return h(
    'ul',
    { class: 'grid', 'aria-label': 'Pages', ref: list, onKeyDown: onGridKey },
    doc.pageList.map((page) =>
      h(
        'li',
        { key: page.index, class: page.hidden ? 'tile hidden-page' : 'tile' },
        h(
          'button',
          {
            type: 'button',
            class: 'tile-open',
            'data-page': page.index,
            onClick: () => onOpen(page.index),
            'aria-label': `Page ${page.index}, ${sideWords(page)}${page.hidden ? ', hidden from exports' : ''}${page.outOfFocus ? ', out of focus' : ''}${checkWords(page) ? `, ${checkWords(page)}` : ''}`,
          },
          h('img', { src: page.thumb, alt: `Page ${page.index}`, loading: 'lazy', width: 160, height: Math.round((160 * page.height) / page.width) }),
          page.outOfFocus
            ? h(
                'span',
                { class: 'badge warn tile-focus', 'aria-hidden': 'true', title: 'Photographed out of focus or shaken: take it again for a surer text' },
                'Out of focus',
              )
            : null,
          // A space between the two badges, so their words read apart in the tile's text, as its label has them.
          ' ',
          checkWords(page) ? h('span', { class: 'badge warn tile-badge', 'aria-hidden': 'true' }, checkWords(page)) : null,
        ),
        h(
          'div',
          { class: 'tile-foot' },
          h(
            'span',
            { class: 'tile-label' },
            h('strong', null, `Page ${page.index}`),
            h('span', { class: 'muted' }, page.hidden ? 'hidden from exports' : shortSide(page)),
          ),
          h(EyeToggle, { page, onToggle, disabled: busy }),
        ),
      ),
    ),
  );
}

/** The capture with what the pipeline found drawn over it, in the frame's own pixels. */
function Capture({ frame, page, siblings }: { frame: FrameView; page: PageView; siblings: PageView[] }): ComponentChild {
  const label = `Capture: ${frame.input}, ${fromPdf(page) ? 'page' : 'frame'} ${frame.index}, with the page box${page.split?.gutterX !== undefined ? ' and the split' : ''} drawn on it`;
  const stroke = Math.max(2, Math.round(frame.width / 400));
  return h(
    'svg',
    { class: 'capture', viewBox: `0 0 ${frame.width} ${frame.height}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'xMidYMid meet' },
    h('image', { href: frame.image, x: 0, y: 0, width: frame.width, height: frame.height }),
    siblings.filter((p) => p.index !== page.index && p.split).map((p) => h('rect', { class: 'other-box', ...p.split?.box, 'stroke-width': stroke })),
    page.split ? h('rect', { class: 'content-box', ...page.split.content, 'stroke-width': stroke, 'stroke-dasharray': `${stroke * 4} ${stroke * 3}` }) : null,
    page.split ? h('rect', { class: 'page-box', ...page.split.box, 'stroke-width': stroke * 1.5 }) : null,
    page.split?.gutterX !== undefined
      ? h('line', { class: 'gutter', x1: page.split.gutterX, x2: page.split.gutterX, y1: 0, y2: frame.height, 'stroke-width': stroke * 1.5 })
      : null,
  );
}

function Legend({ page }: { page: PageView }): ComponentChild {
  if (!page.split) return h('p', { class: 'muted small' }, 'This page was taken whole: the preset looks for no page box.');
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'What is drawn on the capture' },
    h('li', null, h('span', { class: 'swatch page-box', 'aria-hidden': 'true' }), page.split.handSet ? 'Page box (set by hand)' : 'Page box'),
    h('li', null, h('span', { class: 'swatch content-box', 'aria-hidden': 'true' }), 'Printed area'),
    page.split.gutterX !== undefined ? h('li', null, h('span', { class: 'swatch gutter', 'aria-hidden': 'true' }), 'Split') : null,
  );
}

/** A paragraph as one run of text: line breaks become spaces, a word broken at a line end is joined again. */
function readingLines(paragraph: string): string {
  return paragraph.replace(/-\n(?=\p{Ll})/gu, '').replace(/\s*\n\s*/g, ' ');
}

function decisions(page: PageView): string {
  if (page.kind === 'pdf') return 'kept from the PDF as it is, with its own text (no OCR runs on it)';
  const parts = [`preset ${page.preset}`, `${page.width}×${page.height} px at ${page.dpi} dpi`];
  if (page.deskew !== undefined) parts.push(`straightened by ${Math.abs(page.deskew).toFixed(1)}°`);
  if (page.dewarped) parts.push('page curl flattened');
  for (const s of page.pluginSteps ?? [])
    parts.push(s.failed !== undefined ? `${s.step} (plugin) failed, left out: ${s.failed}` : `${s.step} (plugin)${s.facts ? `: ${s.facts}` : ''}`);
  return parts.join(' · ');
}

/** The capture of a page, read from the server unless there is none or the page is proofread. */
function usePageFrame(doc: DocumentDetail, page: PageView, proofreading: boolean): { frame: FrameView | null; frameError: string | null } {
  const [frame, setFrame] = useState<FrameView | null>(null);
  const [frameError, setFrameError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setFrame(null);
    setFrameError(null);
    if (!doc.hasCaptures || proofreading) return;
    api<FrameView>('GET', `/api/documents/${doc.id}/frames/${page.source.frame}`).then(
      (f) => live && setFrame(f),
      (e: unknown) => live && setFrameError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [doc.id, page.source.frame, doc.hasCaptures, proofreading]);
  return { frame, frameError };
}

/** A page's recognised text, read again when the document changes, unless the page is proofread. */
function usePageText(doc: DocumentDetail, page: PageView, proofreading: boolean): PageText | null {
  const [text, setText] = useState<PageText | null>(null);
  useEffect(() => {
    let live = true;
    setText(null);
    if (page.hasText && !proofreading)
      api<PageText>('GET', `/api/documents/${doc.id}/pages/${page.index}/text`).then(
        (t) => live && setText(t),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [doc.id, page.index, page.hasText, doc.revision, proofreading]);
  return text;
}

/** Before: the capture with the page box drawn on it, or the editor that sets it by hand. */
function BeforeFigure({
  doc,
  page,
  siblings,
  frame,
  frameError,
  adjusting,
  setAdjusting,
  busy,
}: {
  doc: DocumentDetail;
  page: PageView;
  siblings: PageView[];
  frame: FrameView | null;
  frameError: string | null;
  adjusting: boolean;
  setAdjusting: (adjusting: boolean) => void;
  busy: boolean;
}): ComponentChild {
  return h(
    'figure',
    { class: 'before' },
    h('figcaption', null, h('strong', null, 'Before'), ' — the capture'),
    frame && adjusting
      ? h(PageBoxEditor, { doc, frame, page, siblings, onClose: () => setAdjusting(false) })
      : frame
        ? h(Capture, { frame, page, siblings })
        : frameError
          ? h('p', { class: 'error', role: 'alert' }, frameError)
          : h('div', { class: 'placeholder', role: 'status' }, 'Loading the capture…'),
    adjusting ? null : h(Legend, { page }),
    // The split and crop set by hand, as in ScanTailor: a flat page has none to set.
    frame && !adjusting && page.split
      ? h(
          'button',
          { type: 'button', class: 'button small-button', disabled: busy, onClick: () => setAdjusting(true) },
          h(Icon, { name: 'pen', size: 16 }),
          'Adjust page box',
        )
      : null,
  );
}

/** The recognised text of a page, paragraph by paragraph, and the engine that read it. */
function RecognisedText({ page, text }: { page: PageView; text: PageText | null }): ComponentChild {
  return h(
    'section',
    { class: 'page-text', 'aria-labelledby': 'text-title' },
    h('h3', { id: 'text-title' }, 'Recognised text'),
    text
      ? h(
          'div',
          { class: 'text-body', tabIndex: 0, 'aria-label': `Recognised text of page ${page.index}` },
          text.text === ''
            ? h('p', { class: 'muted' }, 'No text was found on this page.')
            : text.text.split('\n\n').map((para) => h('p', null, readingLines(para))),
        )
      : h('p', { class: 'muted', role: 'status' }, 'Loading the text…'),
    text?.engine ? h('p', { class: 'muted small' }, `${text.engine}, ${text.languages?.join('+') ?? ''}`) : null,
  );
}

/** The page view's bar: back to all pages, the page's name, how to show it, and the way to the pages beside it. */
function ViewerBar({
  doc,
  page,
  heading,
  prev,
  next,
  canProofread,
  proofreading,
  onMode,
  onBack,
  onIndex,
  onToggle,
  busy,
}: {
  doc: DocumentDetail;
  page: PageView;
  heading: { current: HTMLHeadingElement | null };
  /** The pages before and after it in the list. */
  prev: PageView | undefined;
  next: PageView | undefined;
  canProofread: boolean;
  proofreading: boolean;
  onMode: (mode: ViewMode) => void;
  onBack: () => void;
  onIndex: (index: number) => void;
  onToggle: (page: PageView) => void;
  busy: boolean;
}): ComponentChild {
  return h(
    'div',
    { class: 'viewer-bar' },
    h('button', { type: 'button', class: 'button', onClick: onBack, 'aria-keyshortcuts': 'Escape' }, h(Icon, { name: 'grid' }), 'All pages'),
    h(
      'h2',
      { id: 'viewer-title', ref: heading, tabIndex: -1 },
      `Page ${page.index} of ${doc.pageList.length}`,
      h('span', { class: 'muted' }, ` — ${sideWords(page)}${page.hidden ? ', hidden from exports' : ''}`),
    ),
    canProofread
      ? h(
          'div',
          { class: 'mode', role: 'group', 'aria-label': 'How to show the page' },
          h(
            'button',
            { type: 'button', class: `button${!proofreading ? ' pressed' : ''}`, 'aria-pressed': !proofreading, onClick: () => onMode('compare') },
            doc.hasCaptures ? 'Before and after' : 'Page and text',
          ),
          h(
            'button',
            {
              type: 'button',
              class: `button${proofreading ? ' pressed' : ''}`,
              'aria-pressed': proofreading,
              onClick: () => onMode('proofread'),
              'aria-keyshortcuts': 'P',
            },
            h(Icon, { name: 'pen', size: 16 }),
            'Proofread',
          ),
        )
      : null,
    h(
      'div',
      { class: 'viewer-nav' },
      h(
        'button',
        {
          type: 'button',
          class: 'icon-button',
          'aria-label': 'Previous page',
          'aria-keyshortcuts': 'ArrowLeft PageUp',
          disabled: !prev,
          onClick: () => prev && onIndex(prev.index),
        },
        h(Icon, { name: 'prev' }),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'icon-button',
          'aria-label': 'Next page',
          'aria-keyshortcuts': 'ArrowRight PageDown',
          disabled: !next,
          onClick: () => next && onIndex(next.index),
        },
        h(Icon, { name: 'next' }),
      ),
      h(EyeToggle, { page, onToggle, disabled: busy }),
    ),
  );
}

export function PageViewer({
  doc,
  index,
  mode,
  onMode,
  initialWord,
  onIndex,
  onBack,
  onToggle,
  onOtherDoubtful,
  busy,
}: {
  doc: DocumentDetail;
  index: number;
  mode: ViewMode;
  onMode: (mode: ViewMode) => void;
  initialWord: InitialWord;
  onIndex: (index: number) => void;
  onBack: () => void;
  onToggle: (page: PageView) => void;
  /** Go to the nearest page after (1) or before (-1) this one with words to check; false when there is none. */
  onOtherDoubtful: (from: number, direction: 1 | -1) => boolean;
  busy: boolean;
}): ComponentChild {
  const position = doc.pageList.findIndex((p) => p.index === index);
  const page = doc.pageList[Math.max(0, position)];
  const [adjusting, setAdjusting] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  // A page kept from its PDF keeps the PDF's own text: there is nothing to proofread on it.
  const canProofread = page.hasText && page.kind !== 'pdf';
  const proofreading = mode === 'proofread' && canProofread;

  const { frame, frameError } = usePageFrame(doc, page, proofreading);
  useEffect(() => setAdjusting(false), [doc.id, page.source.frame]);
  const text = usePageText(doc, page, proofreading);

  // A page opened from the grid (or turned) says so where the focus is, unless proofreading took it to a word.
  useEffect(() => {
    const active = document.activeElement;
    const here = !active || active === document.body || active.closest('#main') !== null;
    if (here && !(proofreading && initialWord)) heading.current?.focus({ preventScroll: true });
  }, [page.index]);

  const prev = doc.pageList[position - 1];
  const next = doc.pageList[position + 1];
  const siblings = doc.pageList.filter((p) => p.source.frame === page.source.frame);

  const compare = h(
    'div',
    { class: `compare${page.hasText ? ' with-text' : ''}${doc.hasCaptures ? '' : ' no-capture'}` },
    doc.hasCaptures ? h(BeforeFigure, { doc, page, siblings, frame, frameError, adjusting, setAdjusting, busy }) : null,
    h(
      'figure',
      { class: 'after' },
      h(
        'figcaption',
        null,
        h('strong', null, doc.hasCaptures ? 'After' : 'The page'),
        doc.hasCaptures ? ' — the cleaned page' : ' — from the slim project (its captures are not in it)',
      ),
      h(ZoomableImage, {
        src: page.image,
        alt: `Cleaned page ${page.index}`,
        width: page.width,
        height: page.height,
        resetKey: `${doc.id}/${page.index}/${page.image}`,
      }),
      h('p', { class: 'muted small' }, decisions(page)),
    ),
    page.hasText ? h(RecognisedText, { page, text }) : null,
  );

  return h(
    'section',
    { class: 'viewer', 'aria-labelledby': 'viewer-title' },
    h(ViewerBar, { doc, page, heading, prev, next, canProofread, proofreading, onMode, onBack, onIndex, onToggle, busy }),
    proofreading ? h(ProofreadView, { doc, page, initialWord, onOtherPage: (direction) => onOtherDoubtful(page.index, direction) }) : compare,
    !page.hasText
      ? h(
          'p',
          { class: 'muted small note' },
          'No recognised text yet: press Recognise text above (or use the OCR panel) to see it beside the page and proofread it.',
        )
      : null,
  );
}
