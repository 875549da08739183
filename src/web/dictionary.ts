/**
 * The person's own dictionary: words they added from proofreading ("Add to dictionary") or typed in Settings, kept
 * in `<APP_DATA>/dictionary.txt` (one word a line, UTF-8, mode 0600). A word in it is no longer marked as one to
 * check, in the document it was added from and in every later one; its case and the punctuation around it do not
 * matter (`Candide,` is `candide`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { httpError } from '../http/index.js';
import { isDoubtful, type OcrPage, pageWords } from '../project/index.js';
import { writePrivateFile } from '../settings/index.js';

/** A word is at most this long; the dictionary holds at most this many. */
export const MAX_WORD = 64;
export const MAX_WORDS = 20_000;

/** How a word is looked up: NFC, lower case, without the punctuation around it. */
export function dictionaryKey(text: string): string {
  return text
    .normalize('NFC')
    .replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '')
    .toLocaleLowerCase();
}

export class UserDictionary {
  readonly #path: string;
  #words: string[] = [];
  #keys = new Set<string>();

  private constructor(path: string) {
    this.#path = path;
  }

  static async open(appData: string): Promise<UserDictionary> {
    const dictionary = new UserDictionary(join(appData, 'dictionary.txt'));
    const text = await readFile(dictionary.#path, 'utf8').catch(() => '');
    dictionary.#set(text.split('\n'));
    return dictionary;
  }

  words(): string[] {
    return [...this.#words];
  }

  knows(text: string): boolean {
    const key = dictionaryKey(text);
    return key !== '' && this.#keys.has(key);
  }

  async add(word: string): Promise<string[]> {
    return this.replace([...this.#words, word]);
  }

  /** Keep exactly these words (blank lines dropped, repeats kept once); a word that cannot be one is refused whole. */
  async replace(words: readonly string[]): Promise<string[]> {
    const kept = words.map((w) => w.normalize('NFC').trim()).filter((w) => w !== '');
    for (const w of kept) {
      if (/\s/.test(w)) throw httpError('bad_word', `“${w.slice(0, MAX_WORD)}” is more than one word; put one word on each line.`);
      if (w.length > MAX_WORD) throw httpError('bad_word', `A dictionary word can be at most ${MAX_WORD} characters long.`);
      if (dictionaryKey(w) === '') throw httpError('bad_word', `“${w}” has no letters to look up.`);
    }
    if (kept.length > MAX_WORDS) throw httpError('bad_word', `The dictionary can hold at most ${MAX_WORDS} words.`);
    this.#set(kept);
    writePrivateFile(this.#path, this.#words.length > 0 ? `${this.#words.join('\n')}\n` : '');
    return this.words();
  }

  #set(lines: readonly string[]): void {
    const seen = new Set<string>();
    this.#words = [];
    for (const line of lines) {
      const word = line.normalize('NFC').trim();
      const key = dictionaryKey(word);
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      this.#words.push(word);
    }
    this.#keys = seen;
  }
}

/** Whether proofreading marks a word: doubtful to the engine or the correction step, and not in the person's dictionary. */
export function markedWord(word: Parameters<typeof isDoubtful>[0], known: (text: string) => boolean): boolean {
  return isDoubtful(word) && !known(word.text);
}

/** A page's proofreading counts, with the person's dictionary taken into account. */
export function countsWith(page: OcrPage, known: (text: string) => boolean): { words: number; doubtful: number; checked: number } {
  const words = pageWords(page);
  return { words: words.length, doubtful: words.filter((w) => markedWord(w, known)).length, checked: words.filter((w) => w.edit).length };
}
