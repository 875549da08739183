/// <reference lib="dom" />
/** The app frame's state kept in hooks: what the server says (boot state, documents), page navigation, file drops. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { BootState, DocumentDetail, DocumentSummary, PageView } from '../api-types.js';
import { api, messageOf } from './api.js';
import type { ViewMode } from './pages.js';
import type { InitialWord } from './proofread.js';

/** The boot state and the documents, as the server lists them and its event stream tells of their changes. */
export function useServerState() {
  const [boot, setBoot] = useState<BootState | null>(null);
  const [bootError, setBootError] = useState<string | null>(null);
  const [docs, setDocs] = useState<Record<string, DocumentSummary>>({});
  const [listed, setListed] = useState(false);

  const refreshBoot = useCallback(() => {
    api<BootState>('GET', '/api/state').then(setBoot, (e: unknown) => setBootError(messageOf(e)));
  }, []);

  useEffect(() => {
    refreshBoot();
    api<DocumentSummary[]>('GET', '/api/documents').then(
      (list) => {
        // The event stream may already have told of a newer state of some: keep that.
        setDocs((all) => ({ ...Object.fromEntries(list.map((d) => [d.id, d])), ...all }));
        setListed(true);
      },
      (e: unknown) => setBootError(messageOf(e)),
    );
    const events = new EventSource('/api/events');
    events.addEventListener('document', (e) => {
      const summary = JSON.parse((e as MessageEvent<string>).data) as DocumentSummary;
      setDocs((all) => ({ ...all, [summary.id]: summary }));
    });
    events.addEventListener('removed', (e) => {
      const { id } = JSON.parse((e as MessageEvent<string>).data) as { id: string };
      setDocs((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== id)));
    });
    // Settings changed (here or in another window): engines may run now, or no longer.
    events.addEventListener('settings', () => refreshBoot());
    return () => events.close();
  }, []);
  return { boot, setBoot, bootError, docs, setDocs, listed, refreshBoot };
}

/** Which page is open and how (compare, proofread), and the ways from page to page. */
export function usePageNav(detail: DocumentDetail | null) {
  const [pageIndex, setPageIndex] = useState<number | null>(null);
  const [mode, setMode] = useState<ViewMode>('compare');
  const [initialWord, setInitialWord] = useState<InitialWord>(null);
  const [gridFocus, setGridFocus] = useState<number | null>(null);

  const openPage = (index: number, word: InitialWord = null): void => {
    setInitialWord(word);
    setPageIndex(index);
  };
  const backToGrid = (): void => {
    setGridFocus(pageIndex);
    setPageIndex(null);
  };
  /** The nearest page after or before `from` with words to check, opened for proofreading at its first or last one. */
  const otherDoubtful = (from: number, direction: 1 | -1): boolean => {
    const pages = detail?.pageList ?? [];
    const ordered = direction === 1 ? pages.filter((p) => p.index > from) : pages.filter((p) => p.index < from).reverse();
    const target = ordered.find((p) => (p.proofreading?.doubtful ?? 0) > 0);
    if (!target) return false;
    setMode('proofread');
    openPage(target.index, direction === 1 ? 'first-doubtful' : 'last-doubtful');
    return true;
  };
  const startProofreading = (): void => {
    const first = detail?.pageList.find((p) => (p.proofreading?.doubtful ?? 0) > 0) ?? detail?.pageList.find((p) => p.proofreading);
    if (!first) return;
    setMode('proofread');
    openPage(first.index, 'first-doubtful');
  };
  return { pageIndex, setPageIndex, mode, setMode, initialWord, gridFocus, setGridFocus, openPage, backToGrid, otherDoubtful, startProofreading };
}

/** A file dragged anywhere over the window lights the whole window up; dropping it opens it. */
export function useFileDrop(open: (files: File[]) => Promise<void>) {
  const [dragging, setDragging] = useState(false);
  const dragDepth = useRef(0);
  const hasFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes('Files') === true;
  const dragHandlers = {
    onDragEnter: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      dragDepth.current++;
      setDragging(true);
    },
    onDragOver: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    },
    onDragLeave: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      dragDepth.current = Math.max(0, dragDepth.current - 1);
      if (dragDepth.current === 0) setDragging(false);
    },
    onDrop: (e: DragEvent) => {
      dragDepth.current = 0;
      setDragging(false);
      if (!hasFiles(e)) return;
      e.preventDefault();
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length > 0) void open(files);
    },
  };
  return { dragging, dragHandlers };
}

/** The shown document with its pages, read again at each new revision. */
export function useDocumentDetail(
  currentId: string | null,
  revision: number | undefined,
  setDetail: (d: DocumentDetail | null) => void,
  onError: (id: string, e: unknown) => void,
): void {
  useEffect(() => {
    if (!currentId) {
      setDetail(null);
      return;
    }
    let live = true;
    api<DocumentDetail>('GET', `/api/documents/${currentId}`).then(
      (d) => live && setDetail(d),
      (e: unknown) => live && onError(currentId, e),
    );
    return () => {
      live = false;
    };
  }, [currentId, revision]);
}

/**
 * What the window does to the shown document: hide or show a page, cancel its task, close it (asked first when
 * `doc.unsaved`); a refusal is kept with the document it was about, so it never shows on another.
 */
export function useDocumentActions(currentId: string | null, doc: DocumentSummary | null, onClosed: (id: string) => void) {
  const [actionError, setActionError] = useState<{ docId: string; text: string } | null>(null);
  const [confirmClose, setConfirmClose] = useState(false);
  const showError = (e: unknown): void => {
    if (currentId) setActionError({ docId: currentId, text: messageOf(e) });
  };
  const toggle = useCallback(
    (page: PageView) => {
      if (!currentId) return;
      setActionError(null);
      api('PATCH', `/api/documents/${currentId}/pages/${page.index}`, { hidden: !page.hidden }).catch((e: unknown) =>
        setActionError({ docId: currentId, text: messageOf(e) }),
      );
    },
    [currentId],
  );

  const cancel = (): void => {
    if (currentId) api('POST', `/api/documents/${currentId}/cancel`).catch(showError);
  };
  const closeNow = (): void => {
    setConfirmClose(false);
    if (!currentId) return;
    const id = currentId;
    api('DELETE', `/api/documents/${id}`).then(() => onClosed(id), showError);
  };
  const closeDocument = (): void => {
    if (doc?.unsaved) setConfirmClose(true);
    else closeNow();
  };
  return { actionError, setActionError, showError, toggle, cancel, confirmClose, setConfirmClose, closeNow, closeDocument };
}
