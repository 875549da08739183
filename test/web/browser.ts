/**
 * Real-browser tests: Debian's chromium driven by playwright-core (never a downloaded browser),
 * against `quire gui --no-open` started as a person would start it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { QUIRE_BIN, ROOT } from '../helpers.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'test', 'web', 'artifacts');

/** Whether the browser tests can run here; with CI=true a missing chromium is a failure, not a skip. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); the browser tests never download one.`);
  return false;
}

/** A fresh profile in `userDataDir`, headless, with nothing that talks to the network on its own. */
export async function launchBrowser(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
}

export interface RunningGui {
  /** `http://127.0.0.1:P/?token=…`, as printed. */
  url: string;
  origin: string;
  token: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Start `quire gui --no-open --port 0` (the built CLI) and read the address it prints. */
export async function startGui(env: NodeJS.ProcessEnv): Promise<RunningGui> {
  if (!existsSync(join(ROOT, 'dist', 'web', 'ui', 'index.html'))) throw new Error('The app is not built: run npm run build first.');
  const child: ChildProcess = spawn(process.execPath, [QUIRE_BIN, 'gui', '--no-open', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quire gui printed no address:\n${out}`)), 90_000);
    const look = (): void => {
      const m = /Quire is running at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', look);
    child.on('exit', (code) => reject(new Error(`quire gui exited with ${code}:\n${out}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The environment of a person's session under `root`: their home in `user` (exports go to its Documents/Quire),
 * Quire's data in `home`, no Secret Service (secrets go to each plugin's config file, the same on every machine)
 * and no registry but the bundled one.
 */
export function guiEnv(root: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { HOME: join(root, 'user'), QUIRE_HOME: join(root, 'home'), DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent', QUIRE_REGISTRY: '', ...more };
}

export interface GuiSession {
  gui: RunningGui;
  browser: BrowserContext;
  page: Page;
}

/**
 * `quire gui` started with `guiEnv(root, env)` and chromium on a fresh profile in `root`; with `open`, the page is
 * loaded and shows its empty state.
 */
export async function startSession(root: string, { env = {}, open = false }: { env?: NodeJS.ProcessEnv; open?: boolean } = {}): Promise<GuiSession> {
  const gui = await startGui(guiEnv(root, env));
  const browser = await launchBrowser(join(root, 'profile'));
  const page = browser.pages()[0] ?? (await browser.newPage());
  if (open) {
    await page.goto(gui.url);
    await page.getByRole('heading', { name: 'Open a scan to begin' }).waitFor();
  }
  return { gui, browser, page };
}

/** Closes what `startSession` started (any part of it that did start) and removes `root`. */
export async function stopSession(session: Partial<GuiSession>, root: string | undefined): Promise<void> {
  await session.browser?.close();
  await session.gui?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
}

/** Opens files as a person does, with the first file picker (the top bar's once a document is open). */
export async function openFiles(page: Page, files: string | string[]): Promise<void> {
  await page.locator('input[type=file]').first().setInputFiles(files);
}

/** A button of the rail (Export, OCR, Plugins, Settings). */
export const rail = (page: Page, name: string): Locator => page.getByRole('navigation', { name: 'Tools' }).getByRole('button', { name, exact: true });
export const sidePanel = (page: Page): Locator => page.locator('#side-panel');
/** The tiles of the page grid. */
export const pageTiles = (page: Page): Locator => page.getByRole('list', { name: 'Pages' }).getByRole('listitem');
export const isFocused = (locator: Locator): Promise<boolean> => locator.evaluate((el) => el === document.activeElement);

/** Opens a panel (a rail button toggles it: it is clicked only when the panel is closed). */
export async function openPanel(page: Page, name: string): Promise<void> {
  if ((await rail(page, name).getAttribute('aria-expanded')) !== 'true') await rail(page, name).click();
  await sidePanel(page).waitFor();
}

export async function closePanel(page: Page): Promise<void> {
  if ((await sidePanel(page).count()) > 0)
    await sidePanel(page)
      .getByRole('button', { name: /^Close / })
      .first()
      .click();
}

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** axe-core, from npm: evaluated in the page through the debugging protocol, so the app's CSP need not allow it. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe-core finds serious or critical on the page as it is now, one line per rule with a few of its elements. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.join(' | ')}`);
}
