import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserDictionary } from '../../src/web/dictionary.js';

describe("the person's dictionary", () => {
  const dirs: string[] = [];
  const appData = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-dictionary-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('knows a word whatever its case and the punctuation around it, and keeps it in the data folder', async () => {
    const home = appData();
    const dictionary = await UserDictionary.open(home);
    await dictionary.add('Candide,');
    expect(dictionary.knows('candide')).toBe(true);
    expect(dictionary.knows('«CANDIDE»')).toBe(true);
    expect(dictionary.knows('Candid')).toBe(false);
    expect(readFileSync(join(home, 'dictionary.txt'), 'utf8')).toBe('Candide,\n');
    expect(statSync(join(home, 'dictionary.txt')).mode & 0o777).toBe(0o600);
    // Opened again (a later session), it still knows it.
    expect((await UserDictionary.open(home)).knows('Candide')).toBe(true);
  });

  it('keeps one of each word, drops blank lines, and refuses a line with two words without changing anything', async () => {
    const home = appData();
    const dictionary = await UserDictionary.open(home);
    expect(await dictionary.replace(['tbe', '', 'Tbe', '  lamplight ', 'tbe.'])).toEqual(['tbe', 'lamplight']);
    await expect(dictionary.replace(['two words'])).rejects.toThrow('“two words” is more than one word; put one word on each line.');
    expect(dictionary.words()).toEqual(['tbe', 'lamplight']);
    expect(readFileSync(join(home, 'dictionary.txt'), 'utf8')).toBe('tbe\nlamplight\n');
  });
});
