/**
 * `quire gui` as a daily tool, in a real browser: the keyboard path from opening a page image to a proofread
 * export with no mouse, the proofreading view on a slim project with words to check on two pages, the states
 * that used to be stale (an export message after switching documents, a saved OCR key, a reload, two documents of
 * one name, closing an unsaved document), in-app dialogs with their focus, the drop highlight, and axe-core on
 * every panel. Screenshots of each panel at 1280×800 and 800×1000 land in test/web/artifacts/.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGLISH, renderTextPage } from '../ocr/pages.js';
import {
  artifact,
  chromiumAvailable,
  closePanel,
  isFocused,
  openPanel,
  pageTiles,
  rail,
  type RunningGui,
  seriousViolations,
  sidePanel,
  startSession,
  stopSession,
} from './browser.js';
import { writeProofProject } from './proof-project.js';

describe.skipIf(!chromiumAvailable())('quire gui as a daily tool, in chromium', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;
  let image: string;
  let slim: string;
  let exportFolder: string;
  let openedLog: string;
  const axeFound = new Map<string, string[]>();

  /** Tab (never the mouse) until `locator` has the focus: it is reachable by keyboard. */
  const tabTo = async (locator: Locator, max = 90): Promise<void> => {
    await locator.waitFor();
    for (let i = 0; i < max; i++) {
      if (await isFocused(locator)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${String(locator)}`);
  };

  /** The screen at both sizes, and what axe-core finds serious or critical on it. */
  const look = async (name: string): Promise<void> => {
    await page.waitForTimeout(250);
    axeFound.set(name, await seriousViolations(page));
    for (const [width, height] of [
      [1280, 800],
      [800, 1000],
    ]) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(200);
      await page.screenshot({ path: artifact(`daily-${name}-${width}x${height}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(axeFound.get(name), `axe-core on ${name}`).toEqual([]);
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-daily-'));
    // The person's home: exports go to Documents/Quire there by default.
    mkdirSync(join(root, 'user', 'Documents'), { recursive: true });
    exportFolder = join(root, 'user', 'Documents', 'Quire');
    mkdirSync(join(root, 'home'));
    writeFileSync(join(root, 'home', 'gui-settings.json'), JSON.stringify({ preset: 'flat', ocrEngine: 'none', ocrLanguages: 'auto' }));
    // The file manager Open folder starts: here it only writes down the folder it was given.
    openedLog = join(root, 'opened.txt');
    const manager = join(root, 'file-manager.sh');
    writeFileSync(manager, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${openedLog}'\n`);
    chmodSync(manager, 0o755);
    image = join(root, 'page.png');
    writeFileSync(image, (await renderTextPage(ENGLISH, { dpi: 200 })).png);
    slim = join(root, 'proof.quire');
    await writeProofProject(slim);
    ({ gui, browser, page } = await startSession(root, { env: { QUIRE_FILE_MANAGER: manager } }));
    // File choosers are caught from the start, so one opened by a key press is never missed.
    page.on('filechooser', () => undefined);
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  it('starts on the empty state, lists its shortcuts with ?, and focus comes back when the dialog closes', async () => {
    await page.goto(gui.url);
    await page.getByRole('heading', { name: 'Open a scan to begin' }).waitFor();
    await look('01-empty');
    const button = page.getByRole('button', { name: 'Keyboard shortcuts' });
    await button.focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await expect(dialog.getByRole('row').filter({ hasText: 'Next word to check' }).count()).resolves.toBe(1);
    await expect.poll(() => isFocused(dialog.getByRole('button', { name: 'Close', exact: true }))).toBe(true);
    await look('02-shortcuts');
    await page.keyboard.press('Escape');
    await expect(dialog.count()).resolves.toBe(0);
    await expect.poll(() => isFocused(button)).toBe(true);
  });

  it('goes from opening to a proofread export with the keyboard alone', async () => {
    // O opens the file picker.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('o')]);
    await chooser.setFiles(image);
    await expect.poll(() => pageTiles(page).count(), { timeout: 60_000 }).toBe(1);
    await expect(page.locator('.doc-source').innerText()).resolves.toMatch(/^page\.png · opened \d\d:\d\d/);

    // Convert: OCR in English from the OCR panel.
    await tabTo(rail(page, 'OCR'));
    await page.keyboard.press('Enter');
    const engine = sidePanel(page).getByLabel('Engine');
    // Automatic is offered first; this path reads with tesseract.js, whose reading of the page the steps below know.
    await expect(engine.inputValue()).resolves.toBe('auto');
    await engine.selectOption('tesseract');
    await tabTo(sidePanel(page).getByLabel('Detect them from the pages'));
    await page.keyboard.press('Space');
    await tabTo(sidePanel(page).getByLabel('English (eng)'));
    await page.keyboard.press('Space');
    await look('03-ocr-panel');
    await tabTo(sidePanel(page).getByRole('button', { name: 'Run OCR' }));
    await page.keyboard.press('Enter');
    const task = page.getByRole('region', { name: 'Recognising the text' });
    await task.waitFor({ timeout: 15_000 });
    // The stage as it stands: queued behind the page work on a busy machine, then the engine, then the page.
    await expect(task.getByRole('list', { name: 'Stages' }).innerText()).resolves.toMatch(/Recognising the text\s*— (waiting|0 of 1 page done)/);
    // The progress, as long as OCR runs (on a fast machine it may be done before the screenshots are).
    await look('03b-progress');
    await sidePanel(page).getByText('The pages have text: tesseract, eng').waitFor({ timeout: 120_000 });
    // The button comes with the document's detail, fetched once the event stream has told of the new text.
    await expect.poll(() => page.getByRole('button', { name: /^Proofread/ }).count(), { timeout: 15_000 }).toBe(1);

    // Proofread: the page, then P, then the word "lamplight" by arrow keys, corrected in place.
    await page.keyboard.press('Escape'); // the panel closes
    await expect(sidePanel(page).count()).resolves.toBe(0);
    await tabTo(page.getByRole('button', { name: /^Page 1, / }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Page 1 of 1/ }).waitFor();
    await expect.poll(() => isFocused(page.getByRole('heading', { name: /^Page 1 of 1/ }))).toBe(true);
    await look('04-page-view');
    await page.keyboard.press('p');
    const text = page.getByRole('group', { name: 'Recognised text of page 1' });
    await text.getByRole('button').first().waitFor();
    await tabTo(text.getByRole('button').first());
    const wordInFocus = () => page.evaluate(() => document.activeElement?.firstChild?.textContent);
    // One word at a time: the first → picks the first word, each next one the word after it.
    for (let n = 0; n < 12 && (await wordInFocus()) !== 'lamplight'; n++) {
      await page.keyboard.press('ArrowRight');
      // Picked, not only focused: the first word has the focus before the first arrow picks it.
      await page.waitForFunction((at) => {
        const word = document.activeElement;
        return word?.getAttribute('data-n') === String(at) && word.classList.contains('selected');
      }, n);
    }
    await expect(wordInFocus()).resolves.toBe('lamplight');
    await page.keyboard.press('Enter');
    const field = page.getByLabel('Correct “lamplight”');
    await expect.poll(() => isFocused(field)).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('candlelight');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: '“lamplight” is now “candlelight”.' }).waitFor();
    await expect.poll(() => isFocused(text.getByRole('button', { name: /^candlelight/ }))).toBe(true);
    await look('05-proofread-keyboard');

    // Export a PDF and a Markdown file: listed, downloadable, shown in the folder.
    await tabTo(rail(page, 'Export'));
    await page.keyboard.press('Enter');
    await expect(sidePanel(page).getByRole('radio', { name: /^PDF/ }).isChecked()).resolves.toBe(true);
    await tabTo(sidePanel(page).getByRole('button', { name: 'Export', exact: true }));
    await page.keyboard.press('Enter');
    const written = sidePanel(page).getByRole('list', { name: 'Files written' });
    await written.waitFor({ timeout: 60_000 });
    await expect(written.innerText()).resolves.toContain('page.pdf');
    await tabTo(sidePanel(page).getByRole('link', { name: 'Download page.pdf' }));
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const pdf = join(root, 'downloaded.pdf');
    await download.saveAs(pdf);
    expect(execFileSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8' })).toMatch(/by\s+candlelight\s+is/);
    expect(existsSync(join(exportFolder, 'page.pdf'))).toBe(true);

    await tabTo(sidePanel(page).getByRole('radio', { name: /^PDF/ }));
    await page.keyboard.press('ArrowDown'); // the next card: Markdown
    await expect(
      sidePanel(page)
        .getByRole('radio', { name: /^Markdown/ })
        .isChecked(),
    ).resolves.toBe(true);
    await tabTo(sidePanel(page).getByRole('button', { name: 'Export', exact: true }));
    await page.keyboard.press('Enter');
    await sidePanel(page)
      .getByRole('status')
      .filter({ hasText: /^Markdown written at/ })
      .waitFor({ timeout: 60_000 });
    expect(readFileSync(join(exportFolder, 'page.md'), 'utf8')).toMatch(/by candlelight is/);
    await tabTo(sidePanel(page).getByRole('button', { name: 'Open folder' }));
    await page.keyboard.press('Enter');
    await sidePanel(page).getByText('The folder opens in your file manager.').waitFor();
    await expect.poll(() => (existsSync(openedLog) ? readFileSync(openedLog, 'utf8') : '')).toBe(`${exportFolder}\n`);
    await look('06-export-written');
  }, 240_000);

  it('lights the whole window up when a file is dragged over it, a document open or not', async () => {
    const transfer = await page.evaluateHandle(() => {
      const t = new DataTransfer();
      t.items.add(new File(['x'], 'more.png', { type: 'image/png' }));
      return t;
    });
    await page.locator('.app').dispatchEvent('dragenter', { dataTransfer: transfer });
    await page.locator('.drop-overlay').getByText('Drop to open as a new document').waitFor();
    await page.screenshot({ path: artifact('daily-07-drop-1280x800.png') });
    await page.locator('.app').dispatchEvent('dragleave', { dataTransfer: transfer });
    await expect(page.locator('.drop-overlay').count()).resolves.toBe(0);
  });

  // Its waits alone may take longer than the default test time: the step that stalls on a slow machine names itself.
  it('proofreads a slim project: words to check marked on the page and in the text, N goes through them on to the next page', async () => {
    await page.locator('header input[type=file]').setInputFiles(slim);
    await page.getByRole('heading', { name: 'Proof sample', level: 1 }).waitFor({ timeout: 30_000 });
    const start = page.getByRole('button', { name: 'Proofread: 4 words to check' });
    await start.waitFor({ timeout: 15_000 });
    await expect(pageTiles(page).first().getByRole('button').first().getAttribute('aria-label')).resolves.toBe('Page 1, frame 1, 3 words to check');
    await expect(pageTiles(page).nth(1).getByRole('button').first().getAttribute('aria-label')).resolves.toBe('Page 2, frame 2, out of focus, 1 word to check');
    await expect(pageTiles(page).nth(1).getByText('Out of focus').isVisible()).resolves.toBe(true);
    await look('07b-pages-out-of-focus');
    await start.click();
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    const text = page.getByRole('group', { name: 'Recognised text of page 1' });
    const selected = () => page.locator('.proof-words .word.selected');
    await expect.poll(() => selected().innerText()).toMatch(/^tbe/);
    await expect(page.locator('.proof-words .word.doubtful').count()).resolves.toBe(3);
    await expect(page.locator('.proof-image rect.word-box.doubtful').count()).resolves.toBe(3);
    await expect(page.locator('.proof-image rect.word-box.selected').count()).resolves.toBe(1);
    await expect(page.getByRole('img', { name: 'The line of “tbe” on the page, enlarged' }).count()).resolves.toBe(1);
    await expect(page.locator('.word-detail').innerText()).resolves.toContain('The engine was 41% sure of its reading.');

    await page.keyboard.press('n');
    await expect.poll(() => selected().innerText()).toMatch(/^modern/);
    await expect(page.locator('.word-detail').innerText()).resolves.toContain('The correction step changed “rnodern” to this');
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await page.getByRole('heading', { name: /^Page 2 of 2/ }).waitFor();
    await expect.poll(() => selected().innerText()).toMatch(/^doubtfu1/);
    await page.keyboard.press('Shift+N');
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    await expect.poll(() => selected().innerText()).toMatch(/^wisd0m\./);
    // Enter acts on the word that has the focus: the page just came back, and the focus reaches its word in an
    // effect after the word is drawn selected. Pressed in between, Enter went nowhere (seen on a loaded machine).
    await expect.poll(() => isFocused(selected())).toBe(true);

    await page.keyboard.press('Enter');
    // Type only once the field is there and has the focus: keys pressed before it mounts would go elsewhere.
    await expect.poll(() => isFocused(page.getByLabel('Correct “wisd0m.”'))).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('wisdom.');
    await page.keyboard.press('Enter');
    await text.getByRole('button', { name: /^wisdom\.\s?, corrected from wisd0m\./ }).waitFor();
    await expect(page.locator('.proof-image rect.word-box.edited').count()).resolves.toBe(1);
    // A word picked with the mouse shows its box.
    await text.getByRole('button', { name: /^worst/ }).click();
    await expect.poll(() => selected().innerText()).toMatch(/^worst/);
    await expect(page.locator('.word-detail').innerText()).resolves.toContain('The engine was 93% sure');
    await text.getByRole('button', { name: /^tbe/ }).click();
    await closePanel(page);
    await look('08-proofread');
  }, 60_000);

  it('turns pages with the arrow keys, Page Up/Down, Home and End right after a page tile was clicked', async () => {
    await page.getByRole('button', { name: 'Page and text' }).click();
    await page.getByRole('button', { name: 'All pages' }).click();
    await page.getByRole('button', { name: /^Page 1, / }).click();
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: /^Page 2 of 2/ }).waitFor();
    await page.keyboard.press('PageUp');
    await page.getByRole('heading', { name: /^Page 1 of 2/ }).waitFor();
    await page.keyboard.press('End');
    await page.getByRole('heading', { name: /^Page 2 of 2/ }).waitFor();
    await page.keyboard.press('Escape');
    await pageTiles(page).first().waitFor();
    // Back on the grid, the tile of the page left has the focus.
    // The focus moves in an effect after the grid is drawn: wait for it rather than race it.
    await expect.poll(() => isFocused(page.getByRole('button', { name: /^Page 2, / }))).toBe(true);
  }, 120_000);

  it('says what is true after switching documents: each document its own export, two of one name told apart', async () => {
    await openPanel(page, 'Export');
    await sidePanel(page).getByRole('radio', { name: /^PDF/ }).waitFor();
    // Proof sample has exported nothing: the other document's files are not listed here.
    await expect(sidePanel(page).getByRole('list', { name: 'Files written' }).count()).resolves.toBe(0);
    const switcher = page.getByLabel('Switch document');
    const first = (await switcher.locator('option').allInnerTexts()).find((t) => t.startsWith('page — '));
    await switcher.selectOption({ label: first ?? '' });
    await sidePanel(page).getByRole('list', { name: 'Files written' }).waitFor();
    await expect(sidePanel(page).innerText()).resolves.toContain('page.md');

    // The same image again: two documents called "page", each named with its input and the time it was opened.
    await page.locator('header input[type=file]').setInputFiles(image);
    await expect.poll(() => switcher.locator('option').count(), { timeout: 30_000 }).toBe(3);
    const labels = await switcher.locator('option').allInnerTexts();
    const pages = labels.filter((l) => l.startsWith('page — page.png, opened '));
    expect(pages).toHaveLength(2);
    expect(new Set(pages).size).toBe(2);
    await expect(sidePanel(page).getByRole('list', { name: 'Files written' }).count()).resolves.toBe(0);
    await pageTiles(page).first().waitFor({ timeout: 60_000 });
  }, 90_000);

  it('keeps the documents, and the one being looked at, over a reload', async () => {
    const title = await page.locator('.doc-title').innerText();
    const source = await page.locator('.doc-source').innerText();
    await page.reload();
    await page.locator('.doc-title').filter({ hasText: title }).waitFor();
    await expect(page.locator('.doc-source').innerText()).resolves.toBe(source);
    await expect.poll(() => page.getByLabel('Switch document').locator('option').count()).toBe(3);
    await expect(page.getByText('No document open').count()).resolves.toBe(0);
  });

  it('makes a saved remote OCR key usable in the OCR panel at once, and says where to set it in the words of the window', async () => {
    await openPanel(page, 'OCR');
    const remote = sidePanel(page).getByLabel('Engine').locator('option[value=remoteocr]');
    await expect(remote.innerText()).resolves.toBe('Remote OCR — The remote OCR engine has no API key; type it in Settings → Remote OCR key.');
    await expect(remote.isDisabled()).resolves.toBe(true);
    await openPanel(page, 'Settings');
    await expect(sidePanel(page).getByLabel('Export folder').getAttribute('placeholder')).resolves.toBe(exportFolder);
    await look('09-settings');
    await sidePanel(page).getByLabel('Remote OCR key').fill('sk-daily-test');
    await sidePanel(page).getByRole('button', { name: 'Save settings' }).click();
    await sidePanel(page).getByText('Saved.').waitFor();
    await openPanel(page, 'OCR');
    await expect.poll(() => remote.innerText()).toBe('Remote OCR');
    await expect(remote.isDisabled()).resolves.toBe(false);
    await openPanel(page, 'Settings');
    await sidePanel(page).getByRole('button', { name: 'Forget the stored key' }).click();
    await sidePanel(page).getByText('Saved.').waitFor();
  });

  it('asks before closing a document whose corrections were not exported; the safe answer has the focus', async () => {
    await closePanel(page);
    const switcher = page.getByLabel('Switch document');
    const proof = (await switcher.locator('option').allInnerTexts()).find((t) => t.startsWith('Proof sample — '));
    await switcher.selectOption({ label: proof ?? '' });
    await page.getByRole('heading', { name: 'Proof sample', level: 1 }).waitFor();
    const close = page.getByRole('button', { name: 'Close document' });
    await close.click();
    const dialog = page.getByRole('alertdialog', { name: 'Close Proof sample?' });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toContain('Its text, with the 1 word you checked, has not been exported.');
    await expect.poll(() => isFocused(dialog.getByRole('button', { name: 'Keep it open' }))).toBe(true);
    await look('10-close-confirm');
    await page.keyboard.press('Escape');
    await expect(dialog.count()).resolves.toBe(0);
    await expect.poll(() => isFocused(close)).toBe(true);
    await close.click();
    await dialog.getByRole('button', { name: 'Close document' }).click();
    await expect.poll(() => switcher.locator('option').count()).toBe(2);
    await expect(page.getByRole('heading', { name: 'Proof sample', level: 1 }).count()).resolves.toBe(0);
  });

  it('removes a plugin through the app’s own dialog, and every panel passes axe-core', async () => {
    await openPanel(page, 'Plugins');
    await sidePanel(page).getByRole('button', { name: 'Install Send to corpus…' }).click();
    const install = page.getByRole('dialog', { name: 'Install Send to corpus' });
    await install.getByText('1.0.0').waitFor();
    await look('11-install-dialog');
    await install.getByRole('button', { name: 'Install', exact: true }).click();
    await sidePanel(page).getByRole('status').filter({ hasText: 'Send to corpus is installed.' }).waitFor({ timeout: 30_000 });
    await look('12-plugins');
    const remove = sidePanel(page).getByRole('button', { name: 'Remove Send to corpus' });
    let asked = false;
    page.once('dialog', (d) => {
      asked = true;
      void d.dismiss();
    });
    await remove.click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove Send to corpus?' });
    await dialog.waitFor();
    expect(asked).toBe(false); // no browser confirm()
    await expect.poll(() => isFocused(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await look('13-remove-plugin');
    await page.keyboard.press('Escape');
    await expect.poll(() => isFocused(remove)).toBe(true);
    await remove.click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await sidePanel(page).getByText('Send to corpus was removed.').waitFor({ timeout: 20_000 });

    await openPanel(page, 'Export');
    await look('14-export-panel');
    await closePanel(page);
    await look('15-pages');
    expect([...axeFound.entries()].filter(([, found]) => found.length > 0)).toEqual([]);
    expect(axeFound.size).toBe(16);
  }, 90_000);
});
