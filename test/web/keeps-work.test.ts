/**
 * `quire gui` keeps a person's work, in a real browser: pages shown while the OCR at opening still runs, with a
 * progress line that counts pages done (no "starting the engine" with an empty bar) and a live region telling a
 * screen reader how it went; Rerun asks before it throws corrections away; a word clicked on the page image has
 * the focus, so Enter corrects it; doubtful words told apart by shape, in forced colours too; and the documents,
 * with their corrections and hidden pages, listed again after `quire gui` is stopped and started, with a warning
 * in the terminal about corrections not exported. Screenshots land in test/web/artifacts/keeps-*.png.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGLISH, renderTextPage } from '../ocr/pages.js';
import {
  artifact,
  chromiumAvailable,
  guiEnv,
  isFocused,
  openFiles,
  pageTiles,
  type RunningGui,
  seriousViolations,
  startGui,
  startSession,
  stopSession,
} from './browser.js';
import { writeProofProject } from './proof-project.js';

describe.skipIf(!chromiumAvailable())('quire gui keeps a person’s work, in chromium', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;
  let images: string[];
  let slim: string;

  /** What the live region said since `listen()`, in order. */
  const said = (): Promise<string[]> => page.evaluate(() => (window as unknown as { said: string[] }).said.filter((t) => t !== ''));
  const listen = (): Promise<void> =>
    page.evaluate(() => {
      const region = document.getElementById('announcer');
      const log: string[] = [];
      (window as unknown as { said: string[] }).said = log;
      if (region) new MutationObserver(() => log.push(region.textContent ?? '')).observe(region, { childList: true, characterData: true, subtree: true });
    });
  const goto = async (url: string): Promise<void> => {
    await page.goto(url);
    await page.locator('#announcer').waitFor({ state: 'attached' });
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-keeps-'));
    mkdirSync(join(root, 'user'));
    mkdirSync(join(root, 'home'));
    // OCR at opening, in English, with the engine the OCR panel offers first.
    writeFileSync(join(root, 'home', 'gui-settings.json'), JSON.stringify({ preset: 'flat', ocrEngine: 'tesseract', ocrLanguages: 'eng' }));
    const page1 = await renderTextPage(ENGLISH, { dpi: 200 });
    images = [1, 2, 3].map((n) => join(root, `leaf-${n}.png`));
    for (const path of images) writeFileSync(path, page1.png);
    slim = join(root, 'proof.quire');
    await writeProofProject(slim);
    ({ gui, browser, page } = await startSession(root));
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  it('shows the pages while the OCR at opening runs, counts pages done, and says how it went in a live region', async () => {
    await goto(gui.url);
    await listen();
    await openFiles(page, images);
    const frameContrast = await page.waitForFunction(() => {
      const name = document.querySelector('.frame-input');
      if (!name) return false;
      const rgb = (css: string): number[] => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = ([r, g, b]: number[]): number => {
        const f = (c: number): number => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const fg = lum(rgb(getComputedStyle(name).color));
      const bg = lum(rgb(getComputedStyle(name.closest('.frame') as Element).backgroundColor));
      return { ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05), opacity: getComputedStyle(name).opacity };
    });
    const contrast = (await frameContrast.jsonValue()) as { ratio: number; opacity: string };
    // The frame names in the progress card: 3.95:1 before, at 0.85 opacity.
    expect(contrast.opacity).toBe('1');
    expect(contrast.ratio).toBeGreaterThanOrEqual(4.5);

    // The three pages are there while the text is still being read.
    await expect.poll(() => pageTiles(page).count(), { timeout: 60_000 }).toBe(3);
    const line = page.locator('#task-line');
    await expect(line.innerText()).resolves.toMatch(/^Recognising the text: [0-2] of 3 pages done/);
    await page.screenshot({ path: artifact('keeps-01-pages-while-ocr.png') });
    expect(await seriousViolations(page)).toEqual([]);
    await expect(line.innerText()).resolves.not.toContain('starting the engine');

    // The end of the task, said once the text is there.
    await expect.poll(() => page.getByRole('button', { name: /^Proofread/ }).count(), { timeout: 120_000 }).toBe(1);
    await expect.poll(said, { timeout: 10_000 }).toContainEqual(expect.stringMatching(/ is ready: 3 pages with text, \d+ words? to check\.$/));
    const heard = await said();
    expect(heard[0]).toMatch(/^Opening input\.$/);
    expect(heard).toContain('Recognising the text: 3 pages.');
  });

  it('asks before Rerun discards a checked word, and keeps it when told to', async () => {
    await pageTiles(page)
      .first()
      .getByRole('button', { name: /^Page 1, / })
      .click();
    await page.getByRole('heading', { name: /^Page 1 of 3/ }).waitFor();
    await page.keyboard.press('p');
    const text = page.getByRole('group', { name: 'Recognised text of page 1' });
    await text.getByRole('button').first().click();
    const first = (await text.getByRole('button').first().innerText()).split('\n')[0];
    await page.getByRole('button', { name: 'Mark checked' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${first}” is checked.` })
      .waitFor();

    await page.getByRole('button', { name: 'Rerun' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Make the pages again?' });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toContain('the 1 word you checked or corrected is lost');
    await page.screenshot({ path: artifact('keeps-02-rerun-asks.png') });
    await dialog.getByRole('button', { name: 'Keep my corrections' }).click();
    await expect(dialog.count()).resolves.toBe(0);
    // Nothing ran: the word is still checked.
    await expect(page.locator('#task-line').count()).resolves.toBe(0);
    await expect(page.locator('.proof-bar').innerText()).resolves.toContain('· 1 checked');

    await page.getByRole('button', { name: 'Rerun' }).click();
    await dialog.getByRole('button', { name: 'Rerun and discard them' }).click();
    await page.getByRole('region', { name: 'Making the pages again' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByRole('region', { name: 'Making the pages again' }).count(), { timeout: 120_000 }).toBe(0);
  });

  it('gives the focus to a word clicked on the page image, so Enter corrects it', async () => {
    await openFiles(page, [slim]);
    await expect.poll(() => pageTiles(page).count(), { timeout: 30_000 }).toBe(2);
    await pageTiles(page)
      .first()
      .getByRole('button', { name: /^Page 1, / })
      .click();
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    // The view stays in proofreading from the document before; else P enters it.
    const proofread = page.getByRole('group', { name: 'How to show the page' }).getByRole('button', { name: 'Proofread' });
    if ((await proofread.getAttribute('aria-pressed')) !== 'true') await page.keyboard.press('p');
    const text = page.getByRole('group', { name: 'Recognised text of page 1' });
    await text.getByRole('button').first().waitFor();
    // tbe, modern, wisd0m.: the third box marked on the image.
    await page.locator('.proof-image rect.word-box.doubtful').nth(2).click();
    await expect.poll(() => isFocused(text.getByRole('button', { name: /^wisd0m\./ }))).toBe(true);
    await page.keyboard.press('Enter');
    const field = page.getByLabel('Correct “wisd0m.”');
    await expect.poll(() => isFocused(field)).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('wisdom.');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: '“wisd0m.” is now “wisdom.”.' }).waitFor();
    // Clicked again on the image, the same word takes the focus back.
    await page.getByRole('button', { name: 'Next word to check' }).focus();
    await page.locator('.proof-image rect.word-box.edited').first().click();
    await expect.poll(() => isFocused(text.getByRole('button', { name: /^wisdom\./ }))).toBe(true);
  });

  it('tells doubtful, corrected and checked words apart by shape, in forced colours too, legend included', async () => {
    const styles = () =>
      page.evaluate(() => {
        const css = (selector: string) => {
          const el = document.querySelector(selector) as Element;
          const s = getComputedStyle(el);
          return {
            top: `${s.borderTopStyle} ${s.borderTopWidth} ${s.borderTopColor}`,
            bottom: `${s.borderBottomStyle} ${s.borderBottomWidth}`,
            dash: s.strokeDasharray,
            stroke: s.stroke,
          };
        };
        return {
          background: getComputedStyle(document.querySelector('.proof-text') as Element).backgroundColor,
          plain: css('.proof-words button.word:not(.doubtful):not(.edited):not(.checked)'),
          doubtful: css('.proof-words button.word.doubtful'),
          edited: css('.proof-words button.word.edited'),
          doubtfulBox: css('.proof-image rect.word-box.doubtful'),
          editedBox: css('.proof-image rect.word-box.edited'),
          doubtfulSwatch: css('.swatch.doubtful'),
          checkedSwatch: css('.swatch.checked'),
        };
      });
    const normal = await styles();
    expect(normal.doubtful.bottom).toMatch(/^dashed 2px/);
    expect(normal.edited.bottom).toMatch(/^double 3px/);
    expect(normal.doubtfulBox.dash).not.toBe('none');
    expect(normal.editedBox.dash).toBe('none');
    expect(normal.doubtfulSwatch.top).toMatch(/^dashed 2px/);
    expect(normal.checkedSwatch.top).toMatch(/^solid 2px/);

    await page.emulateMedia({ forcedColors: 'active' });
    try {
      const forced = await styles();
      // A plain word's border is the background's colour: only the doubtful ones have a visible frame, dashed.
      expect(forced.plain.top.split(' ').slice(2).join(' ')).toBe(forced.background);
      expect(forced.doubtful.top).toMatch(/^dashed 2px /);
      expect(forced.doubtful.top).not.toContain(forced.background);
      expect(forced.edited.bottom).toMatch(/^double 3px/);
      expect(forced.doubtfulBox.dash).not.toBe('none');
      expect(forced.doubtfulBox.stroke).not.toBe(forced.editedBox.stroke);
      // The legend's swatches are drawn: a border of their own style in a colour that is not the background's.
      expect(forced.doubtfulSwatch.top).toMatch(/^dashed 2px /);
      expect(forced.checkedSwatch.top).toMatch(/^solid 2px /);
      for (const swatch of [forced.doubtfulSwatch, forced.checkedSwatch]) expect(swatch.top).not.toContain(forced.background);
      await page.screenshot({ path: artifact('keeps-03-forced-colours.png') });
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ forcedColors: 'none' });
    }
  });

  it('lists the documents again after quire gui is stopped and started, with a warning about corrections not exported', async () => {
    await page.getByRole('button', { name: 'All pages' }).click();
    await page.getByRole('button', { name: 'Hide page 2 from exports' }).click();
    await page.getByRole('button', { name: 'Show page 2 in exports' }).waitFor();

    await gui.stop();
    // The rerun took the first document's checked word: only the corrected one is left to warn about.
    expect(gui.output()).toMatch(
      /Warning: 1 document has corrections not exported yet \(1 word checked or corrected\): "Proof sample"\. They are kept in \S+documents and listed again/,
    );
    gui = await startGui(guiEnv(root));
    expect(gui.output()).toContain('2 documents kept from earlier sessions are listed in the window.');
    await goto(gui.url);
    // The one looked at last, with its correction and its hidden page.
    await page.getByRole('heading', { level: 1, name: 'Proof sample' }).waitFor();
    await expect.poll(() => pageTiles(page).count()).toBe(2);
    await page.getByRole('button', { name: 'Show page 2 in exports' }).waitFor();
    await expect(page.locator('.switcher option').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^input — leaf-1\.png and 2 more, opened /),
      expect.stringMatching(/^Proof sample — proof\.quire, opened /),
    ]);
    await pageTiles(page)
      .first()
      .getByRole('button', { name: /^Page 1, / })
      .click();
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    await page.keyboard.press('p');
    await page.getByRole('group', { name: 'Recognised text of page 1' }).locator('button.word.edited', { hasText: 'wisdom.' }).waitFor();
    await page.screenshot({ path: artifact('keeps-04-after-restart.png') });

    // Close removes a document for good: asked first (its corrections were not exported), then gone after a restart too.
    for (const name of ['Proof sample', 'input']) {
      await page.getByRole('heading', { level: 1, name }).waitFor();
      await page.getByRole('button', { name: 'Close document' }).click();
      await page
        .getByRole('alertdialog', { name: /^Close / })
        .getByRole('button', { name: 'Close document' })
        .click();
    }
    await page.getByRole('heading', { name: 'Open a scan to begin' }).waitFor();
    await gui.stop();
    expect(gui.output()).not.toContain('Warning:');
    gui = await startGui(guiEnv(root));
    await goto(gui.url);
    await page.getByRole('heading', { name: 'Open a scan to begin' }).waitFor();
    await expect(page.getByText('No document open').count()).resolves.toBe(1);
  });
});
