/// <reference lib="dom" />
/**
 * "Recognise text" beside the pages: OCR in one click, with the engine and languages of the OCR panel's defaults
 * (Automatic: native tesseract when it is installed). Shown while the document has no text; the OCR panel stays the
 * place to choose another engine or run it again.
 */
import { h, type ComponentChild } from 'preact';
import type { BootState, DocumentSummary, PageView } from '../api-types.js';
import { api } from './api.js';
import { Icon } from './icons.js';
import { firstEngine } from './ocr-panel.js';

export function RecogniseButton({
  boot,
  doc,
  pages,
  busy,
  onError,
}: {
  boot: BootState;
  doc: DocumentSummary;
  pages: PageView[];
  busy: boolean;
  onError: (e: unknown) => void;
}): ComponentChild {
  // Pages kept from a PDF have their own text: nothing to recognise when every page is one.
  if (doc.ocr || pages.length === 0 || pages.every((p) => p.hasText)) return null;
  const engine = firstEngine(boot);
  const languages = boot.settings.ocrLanguages === '' ? 'auto' : boot.settings.ocrLanguages;
  return h(
    'button',
    {
      type: 'button',
      class: 'button primary',
      disabled: busy,
      title: engine === 'auto' ? 'Recognise the text with the fastest local engine' : `Recognise the text with ${engine}`,
      onClick: () => api('POST', `/api/documents/${doc.id}/ocr`, { engine, languages }).catch(onError),
    },
    h(Icon, { name: 'ocr', size: 16 }),
    'Recognise text',
  );
}
