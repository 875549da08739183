/**
 * Issue 35's hands-on fixes in a real browser: "Recognise text" beside the pages with the Automatic engine (native
 * tesseract here), PDF, Markdown and EPUB written by one export with the Export button in sight at 1280×800, and a
 * PDF's pages called pages, Quire's own PDF opened again with its text layer instead of a second OCR, and no curl
 * said to be flattened on a flat scanned page. Screenshots land in test/web/artifacts/hands-on-*.png.
 */
import { execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGLISH, renderTextPage } from '../ocr/pages.js';
import {
  artifact,
  chromiumAvailable,
  closePanel,
  isFocused,
  openFiles,
  openPanel,
  pageTiles,
  type RunningGui,
  seriousViolations,
  sidePanel,
  startSession,
  stopSession,
} from './browser.js';
import { writeProofProject } from './proof-project.js';

describe.skipIf(!chromiumAvailable())('hands-on fixes of the web app, in chromium', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;
  let image: string;
  let scanPdf: string;
  let exportFolder: string;

  const facts = () => page.locator('.doc-facts');

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-hands-on-'));
    mkdirSync(join(root, 'user', 'Documents'), { recursive: true });
    exportFolder = join(root, 'user', 'Documents', 'Quire');
    // The settings a new user has: preset and engine chosen by Quire, no OCR at opening.
    mkdirSync(join(root, 'home'));
    image = join(root, 'page.png');
    const rendered = await renderTextPage(ENGLISH, { dpi: 200 });
    writeFileSync(image, rendered.png);
    // A flat scan saved as a PDF: one image per page, no text layer.
    const pdf = await PDFDocument.create();
    const png = await pdf.embedPng(rendered.png);
    const scan = pdf.addPage([(png.width * 72) / 200, (png.height * 72) / 200]);
    scan.drawImage(png, { x: 0, y: 0, width: scan.getWidth(), height: scan.getHeight() });
    scanPdf = join(root, 'scan.pdf');
    writeFileSync(scanPdf, await pdf.save());
    ({ gui, browser, page } = await startSession(root, { open: true }));
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  it('recognises the text from a button beside the pages, with the Automatic engine the OCR panel offers first', async () => {
    await openFiles(page, image);
    await expect.poll(() => pageTiles(page).count(), { timeout: 60_000 }).toBe(1);
    await openPanel(page, 'OCR');
    await expect(sidePanel(page).getByLabel('Engine').inputValue()).resolves.toBe('auto');
    await expect(sidePanel(page).getByLabel('Engine').locator('option:checked').innerText()).resolves.toBe('Automatic (fastest local engine)');
    await closePanel(page);
    await expect(facts().innerText()).resolves.toContain('no text yet');
    await page.getByRole('button', { name: 'Recognise text' }).click();
    // Automatic picks native tesseract, installed on this machine.
    await expect.poll(() => facts().innerText(), { timeout: 120_000 }).toMatch(/text: tesseract-cli \(eng/);
    await expect(page.getByRole('button', { name: 'Recognise text' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: /^Page 1, frame 1/ }).click();
    await expect
      .poll(async () => (await page.getByLabel('Recognised text of page 1').count()) > 0 && page.getByLabel('Recognised text of page 1').innerText(), {
        timeout: 15_000,
      })
      .toMatch(/lamplight/);
    await page.getByRole('button', { name: 'All pages' }).click();
    await page.screenshot({ path: artifact('hands-on-01-recognised.png') });
  }, 180_000);

  it('writes PDF, Markdown and EPUB in one export and lists all three; the Export button is in sight at 1280×800', async () => {
    await openPanel(page, 'Export');
    await expect(sidePanel(page).getByRole('radio', { name: /^PDF/ }).isChecked()).resolves.toBe(true);
    const together = sidePanel(page).getByRole('group', { name: 'Write with the PDF' });
    await together.getByLabel('Markdown').check();
    await together.getByLabel('EPUB').check();
    const button = sidePanel(page).getByRole('button', { name: 'Export', exact: true });
    // In sight without scrolling: its box lies inside the window.
    const box = await button.evaluate((b) => {
      const r = b.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: window.innerHeight };
    });
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(box.height);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('hands-on-02-export-three.png') });
    await button.click();
    await sidePanel(page)
      .getByRole('status')
      .filter({ hasText: /^PDF, Markdown and EPUB written at .+: 3 files$/ })
      .waitFor({ timeout: 90_000 });
    const listed = await sidePanel(page).getByRole('list', { name: 'Files written' }).getByRole('listitem').allInnerTexts();
    expect(listed.map((l) => l.split(/\s/)[0])).toEqual(['page.pdf', 'page.md', 'page.epub']);
    for (const name of ['page.pdf', 'page.md', 'page.epub']) expect(existsSync(join(exportFolder, name)), name).toBe(true);
    expect(execFileSync('pdftotext', ['-raw', join(exportFolder, 'page.pdf'), '-'], { encoding: 'utf8' })).toMatch(/lamplight/);
    await page.screenshot({ path: artifact('hands-on-03-export-written.png') });
    await closePanel(page);
  }, 120_000);

  it("opens Quire's own PDF again with its text layer: pages called pages, shown, and no OCR run on them", async () => {
    await openFiles(page, join(exportFolder, 'page.pdf'));
    await expect.poll(() => page.locator('.doc-source').innerText(), { timeout: 30_000 }).toMatch(/^page\.pdf · opened/);
    await expect.poll(() => pageTiles(page).count(), { timeout: 60_000 }).toBe(1);
    const tile = page.getByRole('button', { name: /^Page 1, page 1 of the PDF/ });
    await tile.waitFor();
    await expect(pageTiles(page).first().innerText()).resolves.toContain('PDF page 1');
    await expect.poll(() => tile.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBeGreaterThan(0);
    // The text is the PDF's: no engine ran (the settings run none at opening) and none is offered.
    await expect(facts().innerText()).resolves.toContain("text: the PDF's own");
    await expect(page.getByRole('button', { name: 'Recognise text' }).count()).resolves.toBe(0);
    await tile.click();
    await expect(page.getByRole('heading', { name: /^Page 1 of 1 — page 1 of the PDF/ }).count()).resolves.toBe(1);
    await expect.poll(() => page.getByLabel('Recognised text of page 1').innerText(), { timeout: 15_000 }).toMatch(/lamplight/);
    await expect(page.locator('.after').innerText()).resolves.toContain('kept from the PDF as it is, with its own text');
    await page.screenshot({ path: artifact('hands-on-04-pdf-text-layer.png') });
    await page.getByRole('button', { name: 'All pages' }).click();
  }, 120_000);

  it('says no page curl was flattened on a flat scanned PDF page', async () => {
    await openFiles(page, scanPdf);
    await expect.poll(() => page.locator('.doc-source').innerText(), { timeout: 30_000 }).toMatch(/^scan\.pdf · opened/);
    const tile = page.getByRole('button', { name: /^Page 1, page 1 of the PDF/ });
    await tile.waitFor({ timeout: 60_000 });
    await tile.click();
    const facts = page.locator('.after .muted.small');
    await expect.poll(() => facts.innerText(), { timeout: 15_000 }).toMatch(/^preset sheet/);
    await expect(facts.innerText()).resolves.not.toContain('page curl flattened');
    await page.getByRole('button', { name: 'All pages' }).click();
  }, 120_000);

  it('refuses a file it cannot open before sending it, and the message can be put away', async () => {
    const movie = join(root, 'holiday.mp4');
    writeFileSync(movie, Buffer.alloc(32 * 1024 * 1024, 7));
    const posted: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/documents')) posted.push(r.url());
    });
    await page.locator('header input[type=file]').setInputFiles(movie);
    const banner = page.getByRole('alert').filter({ hasText: 'holiday.mp4 is not a scan bundle, PDF or image that Quire can read.' });
    await banner.waitFor();
    expect(posted).toEqual([]);
    await banner.getByRole('button', { name: 'Dismiss this message' }).click();
    await expect(banner.count()).resolves.toBe(0);
  });

  it('answers an upload Quire cannot open on its first bytes, while the rest is still to come', async () => {
    const { hostname, port } = new URL(gui.origin);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/api/documents',
          headers: { 'x-quire-token': gui.token, 'content-type': 'multipart/form-data; boundary=b0undary' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // The head of the part and 64 KB of it; the request is never ended, as if 1.2 GB were still to come.
      req.write('--b0undary\r\ncontent-disposition: form-data; name="file"; filename="disk.iso"\r\ncontent-type: application/octet-stream\r\n\r\n');
      req.write(Buffer.alloc(64 * 1024, 1));
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toBe('disk.iso is not a scan bundle, PDF or image that Quire can read.');
  });

  it('has no sideways scroll at 320 px, on the pages and on a page', async () => {
    if ((await page.locator('.doc-facts').count()) === 0) await openFiles(page, image);
    await page.setViewportSize({ width: 320, height: 700 });
    try {
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await pageTiles(page).first().waitFor();
      await page.screenshot({ path: artifact('hands-on-05-320-grid.png') });
      await expect.poll(overflow).toBe(0);
      await page.getByRole('button', { name: /^Page 1, / }).click();
      await page.getByRole('button', { name: 'All pages' }).waitFor();
      await page.screenshot({ path: artifact('hands-on-06-320-page.png') });
      await expect.poll(overflow).toBe(0);
      await page.getByRole('button', { name: 'All pages' }).click();
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('focuses Install in the install dialog and the first field in a settings dialog; a saved setting shows on the Export card at once', async () => {
    await openPanel(page, 'Plugins');
    await sidePanel(page).getByRole('button', { name: 'Install Send to corpus…' }).click();
    const install = page.getByRole('dialog', { name: 'Install Send to corpus' });
    await expect.poll(() => isFocused(install.getByRole('button', { name: 'Install', exact: true })), { timeout: 15_000 }).toBe(true);
    await install.getByRole('button', { name: 'Install', exact: true }).click();
    await sidePanel(page)
      .getByRole('list', { name: 'Installed destinations' })
      .getByRole('listitem')
      .filter({ hasText: 'Send to corpus' })
      .waitFor({ timeout: 30_000 });

    await openPanel(page, 'Export');
    const card = sidePanel(page).locator('.card').filter({ hasText: 'send:send-to-corpus' });
    await card.getByText(/^Not set up yet/).waitFor();
    await card.getByRole('radio').check();
    await card.getByRole('button', { name: 'Send to corpus settings…' }).click();
    const settings = page.getByRole('dialog', { name: 'Send to corpus settings' });
    await expect.poll(() => isFocused(settings.getByLabel('Corpus address')), { timeout: 15_000 }).toBe(true);
    // Every field filled, one of them wrong: the check says the value is invalid, not that a setting is missing.
    await settings.getByLabel('Corpus address').fill('ftp://corpus.invalid');
    await settings.getByLabel('API key').fill('key-123');
    await settings.getByRole('button', { name: 'Check' }).click();
    await expect(settings.getByRole('status', { name: 'Check result' }).innerText({ timeout: 20_000 })).resolves.toMatch(/^Invalid setting — /);
    await settings.getByLabel('Corpus address').fill('http://127.0.0.1:9');
    await settings.getByRole('button', { name: 'Save', exact: true }).click();
    await settings
      .getByRole('status')
      .filter({ hasText: /^Saved\.$/ })
      .waitFor();
    await settings.getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => card.locator('.card-state').innerText(), { timeout: 1500 }).toBe('Ready');
  }, 90_000);

  it('zooms and pans the page image: buttons, dragging, the wheel and the keys', async () => {
    await closePanel(page);
    if ((await page.locator('.doc-facts').count()) === 0) await openFiles(page, image);
    await page
      .getByRole('button', { name: /^Page 1, / })
      .first()
      .click({ timeout: 60_000 });
    const box = page.getByRole('group', { name: /^Cleaned page 1, at / });
    await box.waitFor();
    const picture = box.getByRole('img', { name: 'Cleaned page 1' });
    const rect = (l: typeof box) => l.evaluate((e) => e.getBoundingClientRect().toJSON() as { left: number; top: number; width: number; height: number });
    const zoom = page.getByRole('group', { name: 'Zoom' });
    await expect(zoom.getByLabel('Zoom level').innerText()).resolves.toBe('100 %');
    const whole = await rect(box);
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await expect(zoom.getByLabel('Zoom level').innerText()).resolves.toBe('225 %');
    const zoomed = await rect(picture);
    expect(zoomed.width / whole.width).toBeCloseTo(2.25, 1);
    // The box stays where it was, the same size: only the page inside it grows.
    const after = await rect(box);
    expect([after.width, after.height]).toEqual([whole.width, whole.height]);
    // Drag the page 100 px left and 80 px up.
    await page.mouse.move(whole.left + whole.width / 2, whole.top + whole.height / 2);
    await page.mouse.down();
    await page.mouse.move(whole.left + whole.width / 2 - 100, whole.top + whole.height / 2 - 80, { steps: 5 });
    await page.mouse.up();
    const dragged = await rect(picture);
    expect(dragged.left - zoomed.left).toBeCloseTo(-100, 0);
    expect(dragged.top - zoomed.top).toBeCloseTo(-80, 0);
    // Keys with the image focused: an arrow moves the page by a tenth of the box, 0 shows it whole.
    await box.focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await rect(picture)).left - dragged.left).toBeCloseTo(whole.width / 10, 0);
    await page.screenshot({ path: artifact('hands-on-07-zoomed.png') });
    await page.keyboard.press('0');
    await expect(zoom.getByLabel('Zoom level').innerText()).resolves.toBe('100 %');
    await page.keyboard.press('+');
    await expect(zoom.getByLabel('Zoom level').innerText()).resolves.toBe('150 %');
    await page.keyboard.press('-');
    await expect(zoom.getByLabel('Zoom level').innerText()).resolves.toBe('100 %');
    // The wheel zooms around the pointer instead of scrolling.
    await page.mouse.move(whole.left + 20, whole.top + 20);
    await page.mouse.wheel(0, -120);
    await expect.poll(() => zoom.getByLabel('Zoom level').innerText()).toBe('150 %');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'All pages' }).click();
  }, 60_000);

  it('adds a word to the dictionary from proofreading: unmarked here and in a later document, kept in the data folder, editable in Settings', async () => {
    const slim = join(root, 'proof.quire');
    await writeProofProject(slim);
    await page.locator('header input[type=file]').setInputFiles(slim);
    await page.getByRole('heading', { name: 'Proof sample', level: 1 }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Proofread: 4 words to check' }).click();
    const selected = () => page.locator('.proof-words .word.selected');
    await expect.poll(() => selected().innerText()).toMatch(/^tbe/);
    await page.locator('.word-detail').getByRole('button', { name: 'Add to dictionary' }).click();
    await page.getByRole('status').filter({ hasText: '“tbe” is in your dictionary' }).waitFor();
    // Unmarked at once: two words left on this page, three in the document.
    await expect.poll(() => page.locator('.proof-words .word.doubtful').count()).toBe(2);
    await page.getByRole('button', { name: 'All pages' }).click();
    await page.getByRole('button', { name: 'Proofread: 3 words to check' }).waitFor();
    expect(readFileSync(join(root, 'home', 'dictionary.txt'), 'utf8')).toBe('tbe\n');
    // A later document: the word is not marked there either.
    await page.locator('header input[type=file]').setInputFiles(slim);
    await expect
      .poll(() => page.getByLabel('Switch document').locator('option').allInnerTexts(), { timeout: 30_000 })
      .toContainEqual(expect.stringMatching(/^Proof sample — proof\.quire/));
    await page.getByRole('button', { name: 'Proofread: 3 words to check' }).waitFor({ timeout: 30_000 });
    // Settings: the list, one word a line; emptied and saved, the word is marked again.
    await openPanel(page, 'Settings');
    const list = sidePanel(page).getByLabel('Your dictionary');
    await expect.poll(() => list.inputValue()).toBe('tbe');
    await list.fill('');
    await sidePanel(page).getByRole('button', { name: 'Save dictionary' }).click();
    await sidePanel(page).getByText('Saved: 0 words.').waitFor();
    await page.getByRole('button', { name: 'Proofread: 4 words to check' }).waitFor();
    expect(readFileSync(join(root, 'home', 'dictionary.txt'), 'utf8')).toBe('');
    await list.fill('two words');
    await sidePanel(page).getByRole('button', { name: 'Save dictionary' }).click();
    await sidePanel(page).getByRole('alert').filter({ hasText: '“two words” is more than one word; put one word on each line.' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await closePanel(page);
  }, 90_000);
});
