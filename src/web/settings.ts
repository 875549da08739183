/**
 * The app's defaults (pipeline preset, OCR engine and languages, the export folder) in `<APP_DATA>/gui-settings.json`,
 * and the remote OCR key. The key is a secret: it goes through the same store as a plugin's
 * (`secretsOf('remoteocr')`: the OS keychain, else the config-file fallback), since a remote OCR
 * engine is a plugin kind of its own, and it is never sent back to the page.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { isPresetName, parseOcrSpec } from '../convert/index.js';
import type { PluginHostOptions } from '../plugins/index.js';
import { fileSystemError } from '../project/index.js';
import { secretsOf, writePrivateFile } from '../settings/index.js';
import type { GuiSettings, SettingsView } from './api-types.js';
import { httpError } from '../http/index.js';

export const SETTINGS_FILE = 'gui-settings.json';
/** The secrets namespace of the remote OCR engine (`remoteocr`), and its key's id there. */
export const REMOTE_OCR_SLUG = 'remoteocr';
export const REMOTE_OCR_KEY = 'api_key';

/** No OCR when opening, like `quire run`: it runs when asked, or when an export needs text. */
export const DEFAULT_SETTINGS: GuiSettings = { preset: 'auto', ocrEngine: 'none', ocrLanguages: 'auto', exportFolder: '' };

/** Where exports go unless the person chose a folder: `Quire` in their Documents folder (in their home folder when there is none). */
export function defaultExportFolder(home: string = homedir()): string {
  const documents = join(home, 'Documents');
  return join(existsSync(documents) ? documents : home, 'Quire');
}

/** The folder exports go to with these settings. */
export function exportFolderOf(settings: GuiSettings): string {
  return settings.exportFolder === '' ? defaultExportFolder() : settings.exportFolder;
}

function settingsPath(appData: string): string {
  return join(appData, SETTINGS_FILE);
}

/** The stored defaults; a missing or unreadable file gives the built-in ones. */
export async function readGuiSettings(appData: string): Promise<GuiSettings> {
  try {
    const raw = JSON.parse(await readFile(settingsPath(appData), 'utf8')) as Partial<GuiSettings>;
    return {
      preset: raw.preset === 'auto' || (typeof raw.preset === 'string' && isPresetName(raw.preset)) ? raw.preset : DEFAULT_SETTINGS.preset,
      ocrEngine: typeof raw.ocrEngine === 'string' ? raw.ocrEngine : DEFAULT_SETTINGS.ocrEngine,
      ocrLanguages: typeof raw.ocrLanguages === 'string' ? raw.ocrLanguages : DEFAULT_SETTINGS.ocrLanguages,
      exportFolder: typeof raw.exportFolder === 'string' && isAbsolute(raw.exportFolder) ? raw.exportFolder : DEFAULT_SETTINGS.exportFolder,
    };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/** Check an OCR choice the way `--ocr`/`--ocr-lang` are checked; the sentence names what is wrong. */
export function checkOcrChoice(engine: string, languages: string): void {
  if (engine === 'none') return;
  try {
    parseOcrSpec(engine, languages);
  } catch (e) {
    throw httpError('bad_setting', e instanceof Error ? e.message : String(e));
  }
}

export interface SettingsChange extends Partial<GuiSettings> {
  /** A new remote OCR key; empty or absent keeps the stored one. */
  remoteOcrKey?: string;
  forgetRemoteOcrKey?: boolean;
}

export async function saveGuiSettings(appData: string, change: SettingsChange, host: PluginHostOptions): Promise<SettingsView> {
  const current = await readGuiSettings(appData);
  const next: GuiSettings = {
    preset: change.preset ?? current.preset,
    ocrEngine: change.ocrEngine ?? current.ocrEngine,
    ocrLanguages: change.ocrLanguages ?? current.ocrLanguages,
    exportFolder: change.exportFolder === undefined ? current.exportFolder : await checkedFolder(change.exportFolder),
  };
  if (next.preset !== 'auto' && !isPresetName(next.preset)) throw httpError('bad_setting', `There is no pipeline preset called ${String(next.preset)}.`);
  checkOcrChoice(next.ocrEngine, next.ocrLanguages);
  const path = settingsPath(appData);
  // A settings file like any other: 0600 in a 0700 folder.
  writePrivateFile(path, `${JSON.stringify(next, null, 2)}\n`);
  const secrets = secretsOf(REMOTE_OCR_SLUG, host);
  if (change.forgetRemoteOcrKey) secrets.delete(REMOTE_OCR_KEY);
  else if (change.remoteOcrKey !== undefined && change.remoteOcrKey.trim() !== '') secrets.set(REMOTE_OCR_KEY, change.remoteOcrKey.trim());
  return settingsView(appData, host);
}

export async function settingsView(appData: string, host: PluginHostOptions): Promise<SettingsView> {
  const read = secretsOf(REMOTE_OCR_SLUG, host).read(REMOTE_OCR_KEY);
  const settings = await readGuiSettings(appData);
  return {
    ...settings,
    remoteOcrKey: { set: read.value !== undefined, ...(read.from ? { store: read.from } : {}) },
    exportFolderInUse: exportFolderOf(settings),
  };
}

/** An export folder as typed: empty for the default, `~/…` in the home folder, else a full path; made now, so a folder Quire cannot make is said at once. */
async function checkedFolder(typed: string): Promise<string> {
  const value = typed.trim();
  if (value === '') return '';
  const path = value === '~' ? homedir() : value.startsWith('~/') ? join(homedir(), value.slice(2)) : value;
  if (!isAbsolute(path)) throw httpError('bad_setting', `Give the export folder as a full path (starting with / or ~/), not "${value}".`);
  try {
    await mkdir(path, { recursive: true });
  } catch (e) {
    // The file system's own reason, in the one sentence every part of Quire uses for it.
    throw httpError('bad_setting', (await fileSystemError(e, path, { action: 'create-folder' })).message);
  }
  return resolve(path);
}
