/**
 * The OCR card's time left in a real browser: a range while pages may yet be read again, a single figure once none
 * may, and the line that says which page is read again in its own language. The server's state is what its own
 * estimate would send (`src/web/stages.ts`, tested on recorded events in time-left.test.ts), given to the window
 * through its own routes; the window counts it down on its own clock.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentSummary, TaskProgress } from '../../src/web/api-types.js';
import { artifact, chromiumAvailable, type RunningGui, startSession, stopSession } from './browser.js';

/** OCR of the example bundle with the native engine, 77 s in: four pages of six read, the fifth's language unknown. */
function ocrTask(left: Partial<TaskProgress>, doing?: string): TaskProgress {
  const now = Date.now();
  return {
    kind: 'ocr',
    stage: 'ocr',
    stages: [
      { key: 'ocr', label: 'Recognising the text', state: 'running', done: 4, total: 6, unit: 'page', started: now - 77_000, ...(doing ? { doing } : {}) },
    ],
    framesTotal: 3,
    framesDone: 3,
    pagesDone: 6,
    ocr: { pagesDone: 4, pagesTotal: 6 },
    started: now - 77_000,
    estimatedAt: now,
    unitSeconds: 35,
    ...left,
  };
}

function workingDocument(task: TaskProgress): DocumentSummary {
  return {
    id: 'd-ocr',
    name: 'sample',
    status: 'working',
    revision: 1,
    inputs: ['sample.aglbundle'],
    pages: 0,
    hiddenPages: 0,
    preset: 'auto',
    task,
    openedAt: Date.now() - 120_000,
    hasCaptures: true,
    unsaved: false,
  } as DocumentSummary;
}

describe.skipIf(!chromiumAvailable())('the OCR card’s time left, in chromium', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-progress-'));
    mkdirSync(join(root, 'home'));
    writeFileSync(join(root, 'home', 'gui-settings.json'), JSON.stringify({ preset: 'flat', ocrEngine: 'none', ocrLanguages: 'auto' }));
    ({ gui, browser, page } = await startSession(root));
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  /** The window, with the server saying the document's task is `task`. */
  async function showTask(task: TaskProgress): Promise<string> {
    const doc = workingDocument(task);
    await page.unroute('**/api/**');
    await page.route('**/api/documents', (route) => route.fulfill({ json: [doc] }));
    await page.route('**/api/documents/d-ocr', (route) => route.fulfill({ json: { ...doc, pageList: [] } }));
    // No event stream: the list above is the whole state.
    await page.route('**/api/events', (route) => route.fulfill({ status: 204, body: '' }));
    await page.goto(gui.url);
    const card = page.getByRole('region', { name: 'Recognising the text sample' });
    await card.waitFor({ timeout: 15_000 });
    return (await card.locator('#task-line').innerText()).trim();
  }

  it('shows a range while pages may yet be read again, counting down', async () => {
    const line = await showTask(ocrTask({ secondsLeft: 65, secondsLeftMost: 102 }));
    // Counted down from when the window heard it: a second or two may have gone.
    expect(line).toMatch(/^Recognising the text: 4 of 6 pages done — 1 min (\d) s to 1 min 4\d s left$/);
    await page.screenshot({ path: artifact('progress-range.png') });
    const seconds = (): Promise<number> =>
      page
        .locator('#task-line')
        .innerText()
        .then((text) => Number(/ to 1 min (\d+) s left/.exec(text)?.[1]));
    const first = await seconds();
    await expect.poll(seconds, { timeout: 5_000 }).toBeLessThan(first);
  });

  it('shows one figure once no page may be read again, and says which page is read in its own language', async () => {
    const line = await showTask(ocrTask({ secondsLeft: 55, estimatedAt: Date.now() }, 'pages 5 and 6 are in French: read a second time'));
    expect(line).toMatch(/^Recognising the text: 4 of 6 pages done, pages 5 and 6 are in French: read a second time — about [45]\d s left$/);
  });

  it('shows no figure when the range is wider than 60 % of its near end, only how long the stage has run', async () => {
    const line = await showTask(ocrTask({ secondsLeft: 28, secondsLeftMost: 57 }));
    expect(line).toMatch(/^Recognising the text: 4 of 6 pages done — running for 1 min \d+ s$/);
  });
});
