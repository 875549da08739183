import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { OcrDocument } from '../../../src/ocr/index.js';
import type { OcrPage } from '../../../src/project/index.js';
import { createRemoteOcrEngine, type RemoteOcrEngineOptions } from '../../../src/ocr/index.js';
import type { FakeRemoteOcr } from './fake-remote-ocr.js';

/** Page height of the synthetic documents, in points; widths tell pages apart. */
export const PAGE_HEIGHT_PTS = 420;
export const DOC_DPI = 150;

/** A document of blank pages `widths` points wide: what the fake needs (sizes), and a record of the PDFs made. */
export function syntheticDocument(widths: number[], pageBytes?: number[]): OcrDocument & { made: Array<[number, number]> } {
  const made: Array<[number, number]> = [];
  return {
    made,
    pages: widths.map((w) => ({
      file: '/nowhere.png',
      width: Math.round((w / 72) * DOC_DPI),
      height: Math.round((PAGE_HEIGHT_PTS / 72) * DOC_DPI),
      dpi: DOC_DPI,
    })),
    pageBytes: pageBytes ?? widths.map(() => 10_000),
    async pdf(from, to) {
      made.push([from, to]);
      const doc = await PDFDocument.create();
      for (const w of widths.slice(from, to)) doc.addPage([w, PAGE_HEIGHT_PTS]);
      return doc.save();
    },
  };
}

/** A PDF of text pages, `widths` points wide, to run through `quire run` (each page says which one it is). */
export async function textPdf(widths: number[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (const [i, w] of widths.entries()) {
    const page = doc.addPage([w, PAGE_HEIGHT_PTS]);
    page.drawText(`Chapter ${i + 1}`, { x: 30, y: PAGE_HEIGHT_PTS - 60, size: 18, font });
    page.drawText('The harbour wakes at dawn with gulls', { x: 30, y: PAGE_HEIGHT_PTS * 0.33, size: 11, font });
  }
  return doc.save();
}

/** Waits the client asked for, without waiting. */
export function recordedSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

/** The engine pointed at the fake, its waits recorded instead of waited. */
export function engineFor(fake: FakeRemoteOcr, options: Omit<RemoteOcrEngineOptions, 'settings'> & { apiKey?: string | null } = {}) {
  const rec = recordedSleep();
  const { apiKey, ...rest } = options;
  const key = apiKey === null ? undefined : (apiKey ?? fake.apiKey);
  const engine = createRemoteOcrEngine({
    settings: () => ({ baseUrl: fake.url, model: 'test-ocr', ...(key ? { apiKey: key } : {}) }),
    client: { sleep: rec.sleep, ...rest.client },
    ...(rest.limits ? { limits: rest.limits } : {}),
  });
  return { engine, waits: rec.waits };
}

/** Every word of a page with its box in fractions of the page. */
export function wordsIn(page: OcrPage): Array<{ text: string; x0: number; y0: number; x1: number; y1: number }> {
  return page.blocks.flatMap((b) =>
    b.paragraphs.flatMap((p) =>
      p.lines.flatMap((l) =>
        l.words.map((w) => ({ text: w.text, x0: w.box.x0 / page.width, y0: w.box.y0 / page.height, x1: w.box.x1 / page.width, y1: w.box.y1 / page.height })),
      ),
    ),
  );
}

export function textOf(page: OcrPage): string {
  return wordsIn(page)
    .map((w) => w.text)
    .join(' ');
}
