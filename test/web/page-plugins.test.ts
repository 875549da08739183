/**
 * The Plugins tab's processors and OCR engines in a real browser: installing despeckle from the registry through the
 * warning dialog that names its sha256 and what it may do, the list showing its kind, sandbox and trust, accepting it
 * again after its files changed, an installed OCR engine plugin offered in the OCR panel, and a page despeckled by a
 * run showing that step in its "what was done" line.
 */
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingDigest, pluginDigest } from '../../src/plugins/index.js';
import { ROOT, runQuire } from '../helpers.js';
import { artifact, chromiumAvailable, rail, type RunningGui, sidePanel, startSession, stopSession } from './browser.js';

interface IndexEntry {
  slug: string;
  files: Array<{ path: string; sha256: string }>;
}

describe.skipIf(!chromiumAvailable())('processors and OCR engines in the Plugins tab', () => {
  let root: string;
  let gui: RunningGui;
  let browser: BrowserContext;
  let page: Page;
  const home = (): string => join(root, 'home');
  const installed = () => sidePanel(page).getByRole('list', { name: 'Installed processors and OCR engines' }).getByRole('listitem');
  const registryDigest = (slug: string): string => {
    const index = JSON.parse(readFileSync(join(ROOT, 'registry', 'index.json'), 'utf8')) as { processors: IndexEntry[]; ocr: IndexEntry[] };
    const entry = [...index.processors, ...index.ocr].find((e) => e.slug === slug);
    if (!entry) throw new Error(`no ${slug} in the registry`);
    return listingDigest(entry.files);
  };
  const accepted = (slug: string): string =>
    (JSON.parse(readFileSync(join(home(), 'plugins', 'data', slug, 'accepted.json'), 'utf8')) as { sha256: string }).sha256;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-gui-page-plugins-'));
    ({ gui, browser, page } = await startSession(root, { open: true }));
  }, 60_000);

  afterAll(() => stopSession({ browser, gui }, root));

  it('installs despeckle from the registry through a dialog naming its sha256 and what it may do', async () => {
    await rail(page, 'Plugins').click();
    await sidePanel(page).getByText('No processor or OCR engine plugin is installed.').waitFor();
    await sidePanel(page).getByRole('button', { name: 'Install Despeckle…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Despeckle' });
    const sha256 = registryDigest('despeckle');
    await expect(dialog.getByLabel('sha256').innerText()).resolves.toBe(sha256);
    await expect(dialog.innerText()).resolves.toMatch(/Kind\s+Processor/);
    await expect(dialog.getByRole('list', { name: 'What it may do' }).innerText()).resolves.toMatch(
      /Reads each page image[\s\S]*no network, no other programs/,
    );
    await page.screenshot({ path: artifact('20-accept-processor.png') });
    expect(existsSync(join(home(), 'plugins', 'processors', 'despeckle'))).toBe(false);
    await dialog.getByRole('button', { name: 'Install and accept' }).click();
    await sidePanel(page)
      .getByRole('status')
      .filter({ hasText: `Despeckle is installed and accepted (sha256 ${sha256.slice(0, 12)}…).` })
      .waitFor({ timeout: 30_000 });
    // What was shown is what is recorded as accepted.
    expect(accepted('despeckle')).toBe(sha256);
    const item = installed().filter({ hasText: 'Despeckle' });
    await expect(item.innerText()).resolves.toMatch(
      /Despeckle[\s\S]*Processor[\s\S]*Accepted[\s\S]*(sandboxed|sandbox partial: no bubblewrap) · runs after binarize/,
    );
  }, 60_000);

  it('does not run despeckle once its files change, and accepts it again through the same dialog', async () => {
    const dir = join(home(), 'plugins', 'processors', 'despeckle');
    const before = accepted('despeckle');
    appendFileSync(join(dir, 'plugin.mjs'), '\n// edited by hand\n');
    const now = pluginDigest(dir);
    await page.reload();
    await rail(page, 'Plugins').click();
    const item = installed().filter({ hasText: 'Despeckle' });
    await item.getByText('Changed since accepted').waitFor({ timeout: 30_000 });
    await expect(item.innerText()).resolves.toMatch(/it is not run until you accept it again/);
    await item.getByRole('button', { name: 'Accept Despeckle…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Accept Despeckle' });
    await expect(dialog.getByLabel('sha256').innerText()).resolves.toBe(now);
    await expect(dialog.innerText()).resolves.toMatch(/changed since you accepted it/);
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();
    await sidePanel(page)
      .getByRole('status')
      .filter({ hasText: `Despeckle is accepted (sha256 ${now.slice(0, 12)}…).` })
      .waitFor({ timeout: 30_000 });
    await item.getByText('Accepted', { exact: true }).waitFor();
    expect(accepted('despeckle')).toBe(now);
    expect(now).not.toBe(before);
  }, 60_000);

  it('installs an OCR engine plugin and offers it in the OCR panel with the languages of its models', async () => {
    await sidePanel(page).getByRole('button', { name: 'Install Tesseract with your own model…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Install Tesseract with your own model' });
    await expect(dialog.innerText()).resolves.toMatch(/Kind\s+OCR engine/);
    await expect(dialog.getByRole('list', { name: 'What it may do' }).innerText()).resolves.toMatch(/run its tesseract on a page with a model file/);
    await dialog.getByRole('button', { name: 'Install and accept' }).click();
    const item = installed().filter({ hasText: 'tesseract' });
    await item.getByText('no language yet: put a model in its files folder').waitFor({ timeout: 30_000 });
    await expect(item.innerText()).resolves.toMatch(/OCR engine[\s\S]*Accepted/);

    // The person puts a model in its files folder; the OCR panel offers the engine, reading that language.
    copyFileSync('/usr/share/tesseract-ocr/5/tessdata/eng.traineddata', join(home(), 'plugins', 'data', 'tesseract-own-model', 'files', 'mine.traineddata'));
    await page.reload();
    await rail(page, 'OCR').click();
    const option = sidePanel(page).getByLabel('Engine').locator('option[value="tesseract-own-model"]');
    await expect(option.count()).resolves.toBe(1);
    await expect(option.isDisabled()).resolves.toBe(false);
    await sidePanel(page).getByLabel('Engine').selectOption('tesseract-own-model');
    await expect(sidePanel(page).innerText()).resolves.toMatch(/\(plugin\)/);
    await page.screenshot({ path: artifact('21-ocr-plugin.png') });
  }, 60_000);

  it('shows the despeckle step in the "what was done" line of a page a run despeckled', async () => {
    // A text page with dust between its lines, converted by the command line with the step, kept as a slim project.
    const width = 2480;
    const height = 3508;
    const pixels = Buffer.alloc(width * height, 235);
    const ink = (x: number, y: number, w: number, h: number): void => {
      for (let yy = y; yy < y + h; yy++) pixels.fill(20, yy * width + x, yy * width + x + w);
    };
    for (let r = 0; r < 30; r++) for (let l = 0; l < 60; l++) ink(300 + l * 30, 400 + r * 80, 18, 28);
    for (let i = 0; i < 12; i++) ink(310 + i * 150, 400 + (i + 2) * 80 + 48, 4, 4); // between lines, far from any letter
    const input = join(root, 'dusty.png');
    await sharp(pixels, { raw: { width, height, channels: 1 } })
      .withMetadata({ density: 300 })
      .png()
      .toFile(input);
    const run = await runQuire(['run', input, '--steps', '+despeckle', '--ocr', 'none', '--export', 'slim', '-o', join(root, 'out')], {
      env: { QUIRE_HOME: home(), HOME: join(root, 'user') },
    });
    expect(run.code, run.stderr).toBe(0);

    await page.locator('header input[type=file]').setInputFiles(join(root, 'out', 'dusty.quire'));
    await page.getByRole('button', { name: /^Page 1, / }).click({ timeout: 60_000 });
    await page.getByRole('heading', { name: /^Page 1 of 1/ }).waitFor();
    await expect(page.getByText(/despeckle \(plugin\): removed \d+, maxSpeckPx \d+/).count()).resolves.toBe(1);
    const line = await page.getByText(/despeckle \(plugin\)/).innerText();
    expect(Number(/removed (\d+)/.exec(line)?.[1])).toBeGreaterThan(0);
    await page.screenshot({ path: artifact('22-what-was-done-plugin.png') });
  }, 120_000);
});
