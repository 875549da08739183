/**
 * Pages set by hand in a real browser (issue 35): on the capture of a spread, the bottom edge of the left page is
 * dragged up and the right page's right edge moved with the arrow keys; Apply makes the frame again and the cleaned
 * page changes (after asking, as a checked word on the frame's pages would be lost); Reset to automatic brings the
 * found box back. Screenshots land in test/web/artifacts/page-box-*.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../helpers.js';
import { artifact, chromiumAvailable, pageTiles, type RunningGui, seriousViolations, startSession, stopSession } from './browser.js';

describe.skipIf(!chromiumAvailable())('adjusting the split and crop by hand, in chromium', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;

  /** The cleaned page's size as the page view states it (`… · 1234×2345 px at 300 dpi`). */
  const pageSize = async (): Promise<{ width: number; height: number }> => {
    const m = /(\d+)×(\d+) px/.exec(await page.locator('figure.after p.muted').innerText());
    return { width: Number(m?.[1]), height: Number(m?.[2]) };
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-page-box-'));
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'user'));
    ({ gui, browser, page } = await startSession(root, { open: true }));
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  it('drags an edge of the page box and nudges another with the keyboard; Apply makes the page again, Reset brings the found box back', async () => {
    await page.locator('input[type=file]').first().setInputFiles(SAMPLE);
    await expect.poll(() => pageTiles(page).count(), { timeout: 120_000 }).toBe(6);
    // Text on the first frame's pages (the others hidden, so OCR reads two pages), one word marked checked.
    const headers = { 'x-quire-token': gui.token };
    const call = async (method: string, path: string, data?: object): Promise<{ [k: string]: unknown }> => {
      const res = await page.request.fetch(`${gui.origin}${path}`, { method, headers, ...(data ? { data } : {}) });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as { [k: string]: unknown };
    };
    const [{ id }] = (await (await page.request.get(`${gui.origin}/api/documents`, { headers })).json()) as Array<{ id: string }>;
    for (const index of [3, 4, 5, 6]) await call('PATCH', `/api/documents/${id}/pages/${index}`, { hidden: true });
    await call('POST', `/api/documents/${id}/ocr`, { engine: 'tesseract-cli', languages: 'eng' });
    await expect
      .poll(
        async () => {
          const d = await call('GET', `/api/documents/${id}`);
          return d.status === 'ready' && (d.pageList as Array<{ hasText: boolean }>)[0].hasText;
        },
        { timeout: 180_000 },
      )
      .toBe(true);
    const words = (await call('GET', `/api/documents/${id}/pages/1/words`)) as { lines: Array<{ words: Array<{ n: number; text: string }> }> };
    const word = words.lines[0].words[0];
    await call('PUT', `/api/documents/${id}/pages/1/words/${word.n}`, { text: word.text, was: word.text });
    await page.getByRole('button', { name: /^Page 1, left page of frame 1/ }).click();
    await page.getByRole('button', { name: 'Adjust page box' }).click({ timeout: 30_000 });
    const before = await pageSize();

    const bottom = page.getByRole('slider', { name: 'Bottom edge of the left page' });
    const right = page.getByRole('slider', { name: 'Right edge of the right page' });
    await bottom.waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The mouse: the left page's bottom edge dragged up to the middle of its box.
    const box = await page.locator('.capture.editing rect.page-box[data-box="0"]').boundingBox();
    if (!box) throw new Error('no page box drawn');
    const bottomBefore = Number(await bottom.getAttribute('aria-valuenow'));
    await page.mouse.move(box.x + box.width / 2, box.y + box.height);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.75, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.5, { steps: 5 });
    await page.mouse.up();
    const bottomAfter = Number(await bottom.getAttribute('aria-valuenow'));
    expect(bottomAfter).toBeLessThan(bottomBefore - 200);

    // The keyboard: the right page's right edge, three steps left (the pages do not turn).
    const rightBefore = Number(await right.getAttribute('aria-valuenow'));
    await right.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    expect(Number(await right.getAttribute('aria-valuenow'))).toBeLessThan(rightBefore);
    await expect(page.getByRole('heading', { name: /^Page 1 of 6/ }).count()).resolves.toBe(1);
    await page.screenshot({ path: artifact('page-box-01-editing.png') });

    // A checked word on the frame's pages: Apply asks first, and keeping the corrections changes nothing.
    await page.getByRole('button', { name: 'Apply and read the text again' }).click();
    const ask = page.getByRole('alertdialog', { name: "Make this frame's pages again?" });
    await ask.waitFor();
    await expect(ask.innerText()).resolves.toContain('the 1 word you checked or corrected on them is lost');
    await ask.getByRole('button', { name: 'Keep my corrections' }).click();
    await expect(ask.count()).resolves.toBe(0);
    await expect(page.getByText('Page box (set by hand)').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Apply and read the text again' }).click();
    await ask.getByRole('button', { name: 'Apply and discard them' }).click();
    // The frame is made again: the legend says the box was set by hand, and the page is about half as tall.
    await page.getByText('Page box (set by hand)').waitFor({ timeout: 120_000 });
    await expect
      .poll(
        async () => {
          const d = await call('GET', `/api/documents/${id}`);
          return d.status === 'ready' && (d.pageList as Array<{ hasText: boolean }>)[0].hasText;
        },
        { timeout: 120_000 },
      )
      .toBe(true);
    await expect.poll(async () => (await pageSize()).height, { timeout: 30_000 }).toBeLessThan(before.height * 0.8);
    // Still two pages in the frame, six in the document.
    await expect(page.getByRole('heading', { name: /^Page 1 of 6/ }).count()).resolves.toBe(1);
    await page.screenshot({ path: artifact('page-box-02-applied.png') });

    await page.getByRole('button', { name: 'Adjust page box' }).click();
    await page.getByRole('button', { name: 'Reset to automatic' }).click();
    // The new pages' text was read again, and nothing on them is checked any more: no question this time.
    await expect(page.getByRole('alertdialog').count()).resolves.toBe(0);
    await expect.poll(async () => page.getByText('Page box (set by hand)').count(), { timeout: 120_000 }).toBe(0);
    await expect.poll(async () => (await pageSize()).height, { timeout: 30_000 }).toBeGreaterThan(before.height * 0.9);
    await page.screenshot({ path: artifact('page-box-03-reset.png') });
  }, 300_000);
});
