// Hostile processor and OCR engine plugins: each misbehaviour fails its own page with one sentence, and the next
// page of the same run is processed (the plugin's process started afresh where it had to be stopped).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPagePlugin, openPagePlugin, type PagePluginSession } from '../../src/plugins/index.js';
import { cleanup, hostFor, makeAppData } from './helpers.js';
import { placePagePlugin, textPage } from './page-plugins.js';

let appData: string;
beforeEach(() => {
  appData = makeAppData();
});
afterEach(() => cleanup(appData));

const WIDTH = 600;
const HEIGHT = 400;
const FACTS = { kind: 'bitonal' as const, plugins: {} };

async function session(kind: 'processor' | 'ocr', name: string): Promise<PagePluginSession> {
  placePagePlugin(appData, kind, name);
  const entry = await findPagePlugin(kind, name, hostFor(appData));
  expect(entry?.state).toBe('usable');
  return openPagePlugin(entry!, {}, hostFor(appData));
}

/** A page whose resolution tells the fixture how to misbehave. */
function page(dpi: number, pixels = textPage(WIDTH, HEIGHT, 2, 10)): { width: number; height: number; dpi: number; pixels: Uint8Array } {
  return { width: WIDTH, height: HEIGHT, dpi, pixels };
}

describe('a hostile processor', () => {
  let server: Server;
  let hits = 0;
  beforeEach(async () => {
    hits = 0;
    server = createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  });
  afterEach(() => new Promise<void>((done) => server.close(() => done())));

  it('fails each bad page with one sentence and processes the next page', async () => {
    const step = await session('processor', 'hostile-step');
    const port = (server.address() as AddressInfo).port;
    const portPage = (dpi: number): ReturnType<typeof page> => {
      const pixels = textPage(WIDTH, HEIGHT, 2, 10);
      pixels[0] = port >> 8;
      pixels[1] = port & 255;
      return page(dpi, pixels);
    };
    try {
      const expectations: Array<[ReturnType<typeof page>, string | RegExp]> = [
        [page(301), 'it returned a 599×400 image for a 600×400 page'],
        [page(302), 'it did not finish within 1.5 s and was stopped'],
        [page(303), 'it used more memory than a plugin may'],
        [portPage(304), 'it tried to use fetch, which a plugin may not'],
        [portPage(305), 'it tried to reach something outside its sandbox'],
      ];
      for (const [bad, sentence] of expectations) {
        const failed = await step.process(bad, FACTS);
        expect(failed.ok).toBe(false);
        if (!failed.ok) expect(failed.message).toEqual(sentence);
        // The run goes on: the next page comes back as it went.
        const good = page(300);
        const copy = Uint8Array.from(good.pixels);
        const next = await step.process(good, FACTS);
        expect(next.ok).toBe(true);
        if (next.ok) expect(Buffer.from(next.image.pixels).equals(Buffer.from(copy))).toBe(true);
      }
      expect(hits).toBe(0);
    } finally {
      await step.close();
    }
  }, 60_000);
});

describe('a hostile OCR engine', () => {
  it('fails each page with malformed boxes with one sentence and reads the next page', async () => {
    const engine = await session('ocr', 'bad-boxes');
    try {
      const sentences = [
        [301, 'it returned word 1 of line 1 with a box that is not inside the page'],
        [302, 'it returned word 1 of line 1 with a box that is not inside the page'],
        [303, 'it returned word 1 of line 1 with a box that is not inside the page'],
        [304, 'it returned no list of lines'],
      ] as const;
      for (const [dpi, sentence] of sentences) {
        const failed = await engine.recognize(page(dpi), ['eng']);
        expect(failed).toMatchObject({ ok: false, message: sentence });
        const next = await engine.recognize(page(300), ['eng']);
        expect(next).toMatchObject({ ok: true, page: { lines: [{ words: [{ text: 'word', box: { x0: 10, y0: 10, x1: 60, y1: 30 } }] }] } });
      }
    } finally {
      await engine.close();
    }
  });
});
