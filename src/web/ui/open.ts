/// <reference lib="dom" />
/** Opening a document: the empty state's drop zone and file picker, and the upload's progress. */
import { h, type ComponentChild } from 'preact';
import { useRef } from 'preact/hooks';
import { Icon } from './icons.js';

/** What the file picker offers; the server decides by content, so this is only a first filter. */
export const ACCEPTED = '.aglbundle,.zip,.pdf,.jpg,.jpeg,.png,.tif,.tiff,.webp';

/** The hidden file input behind an "Open…" button. */
export function FilePicker({
  onFiles,
  label,
  primary = false,
  inputId,
}: {
  onFiles: (files: File[]) => void;
  label: string;
  primary?: boolean;
  inputId?: string;
}): ComponentChild {
  const input = useRef<HTMLInputElement>(null);
  return h(
    'span',
    null,
    h('button', { type: 'button', class: primary ? 'button primary' : 'button', onClick: () => input.current?.click() }, h(Icon, { name: 'open' }), label),
    h('input', {
      ref: input,
      ...(inputId ? { id: inputId } : {}),
      type: 'file',
      multiple: true,
      accept: ACCEPTED,
      class: 'visually-hidden',
      tabIndex: -1,
      'aria-label': 'Scan bundle, PDF or images to open',
      onChange: (e: Event) => {
        const target = e.currentTarget as HTMLInputElement;
        const files = [...(target.files ?? [])];
        target.value = '';
        if (files.length > 0) onFiles(files);
      },
    }),
  );
}

/** The first screen: one large place to drop files (the window takes the drop), a picker, and what Quire reads. */
export function EmptyState({
  onFiles,
  uploading,
  error,
  over,
}: {
  onFiles: (files: File[]) => void;
  uploading: number | null;
  error: string | null;
  over: boolean;
}): ComponentChild {
  return h(
    'section',
    { class: over ? 'dropzone over' : 'dropzone', 'aria-labelledby': 'open-title' },
    h('div', { class: 'dropzone-art', 'aria-hidden': 'true' }, h(Icon, { name: 'book', size: 56 })),
    h('h1', { id: 'open-title' }, 'Open a scan to begin'),
    h('p', null, 'Drop a scan bundle, a PDF or page images here, or choose them.'),
    h(FilePicker, { onFiles, label: 'Choose files…', primary: true }),
    h(
      'p',
      { class: 'hint' },
      'Scan bundles (.aglbundle, .zip), PDFs, and JPEG, PNG, TIFF or WebP images — several images make one document. Everything stays on this computer.',
    ),
    uploading !== null ? h(UploadProgress, { share: uploading }) : null,
    error ? h('p', { class: 'error', role: 'alert' }, h(Icon, { name: 'alert' }), error) : null,
  );
}

export function UploadProgress({ share }: { share: number }): ComponentChild {
  const percent = Math.round(share * 100);
  return h(
    'div',
    { class: 'upload' },
    h('label', { for: 'upload-progress' }, share < 1 ? `Uploading… ${percent}%` : 'Reading the files…'),
    h('progress', { id: 'upload-progress', max: 100, value: percent }),
  );
}
