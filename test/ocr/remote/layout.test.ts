import { describe, expect, it } from 'vitest';
import { alignOntoLayout } from '../../../src/ocr/index.js';
import { type OcrLine, type OcrPage } from '../../../src/project/index.js';
import { alignWords, normalizeWord } from '../../../src/ocr/remote/align.js';
import { retryAfterMs } from '../../../src/ocr/remote/client.js';
import { pageFromRemote, plainText } from '../../../src/ocr/remote/layout.js';
import { parseBatchResults, parseOcrReply } from '../../../src/ocr/remote/protocol.js';
import { textOf, wordsIn } from './helpers.js';

const PAGE = { file: 'p.png', width: 1000, height: 1400, dpi: 200 };

/** A local engine's page: each line's words at known boxes, 40 px tall lines, 20 px gaps. */
function localPage(lines: string[][]): OcrPage {
  const ocrLines: OcrLine[] = lines.map((words, k) => {
    const y0 = 100 + k * 60;
    let x = 100;
    return {
      box: { x0: 100, y0, x1: 900, y1: y0 + 40 },
      baseline: { x0: 100, y0: y0 + 32, x1: 900, y1: y0 + 32 },
      words: words.map((text) => {
        const box = { x0: x, y0, x1: x + text.length * 20, y1: y0 + 40 };
        x = box.x1 + 15;
        return { text, box, confidence: 80 };
      }),
    };
  });
  return {
    ...PAGE,
    engine: 'tesseract',
    languages: ['fra'],
    blocks: [
      { box: { x0: 100, y0: 100, x1: 900, y1: 100 + lines.length * 60 }, paragraphs: [{ box: { x0: 100, y0: 100, x1: 900, y1: 400 }, lines: ocrLines }] },
    ],
  };
}

function remotePage(text: string): OcrPage {
  return pageFromRemote(
    {
      index: 0,
      markdown: text,
      dimensions: { dpi: 200, width: 1000, height: 1400 },
      blocks: [{ type: 'text', text, box: { x0: 90, y0: 90, x1: 910, y1: 300 } }],
    },
    PAGE,
    ['fra'],
  );
}

describe('remote text on the page', () => {
  it('reduces the service Markdown to its words', () => {
    expect(plainText('# Le **port**\n\n| a | b |\n|---|---|\n| c | d |\n\n![img-0.jpeg](img-0.jpeg) voir [la note](#n1) $x^2$ \\* fin')).toBe(
      'Le port\n\n a b \n c d \n\n voir la note x^2 * fin'.replace(/ +\n/g, '\n').replace(/\n +/g, '\n').replace(/ +/g, ' '),
    );
  });

  it('gives each text line an equal band of its block and each word a share of the width by letters', () => {
    const page = pageFromRemote(
      {
        index: 0,
        markdown: '',
        dimensions: { dpi: 100, width: 500, height: 700 },
        blocks: [{ type: 'text', text: 'ab cd\nefgh', box: { x0: 50, y0: 100, x1: 250, y1: 140 } }],
      },
      PAGE,
      [],
    );
    // Twice the service's resolution: the block is 100–500 × 200–280 in page pixels.
    const words = page.blocks[0].paragraphs[0].lines.map((l) => l.words.map((w) => [w.text, w.box]));
    expect(words).toEqual([
      [
        ['ab', { x0: 100, y0: 200, x1: 260, y1: 240 }],
        ['cd', { x0: 340, y0: 200, x1: 500, y1: 240 }],
      ],
      [['efgh', { x0: 100, y0: 240, x1: 500, y1: 280 }]],
    ]);
  });

  it('reads corner coordinates given as fractions, and bbox arrays', () => {
    const reply = parseOcrReply({
      pages: [
        {
          index: 0,
          markdown: 'x',
          dimensions: { dpi: 100, width: 500, height: 700 },
          blocks: [
            { type: 'text', text: 'top', top_left_x: 0.1, top_left_y: 0.1, bottom_right_x: 0.5, bottom_right_y: 0.2 },
            { type: 'text', content: 'bottom', bbox: [50, 560, 450, 630] },
            { type: 'text', text: 'no corners' },
          ],
        },
      ],
    });
    expect(reply.pages[0].blocks!.map((b) => [b.text, b.box])).toEqual([
      ['top', { x0: 50, y0: 70, x1: 250, y1: 140 }],
      ['bottom', { x0: 50, y0: 560, x1: 450, y1: 630 }],
    ]);
  });

  it('parses batch output and error lines', () => {
    const lines = parseBatchResults(
      [
        JSON.stringify({ custom_id: 'page-1', response: { status_code: 200, body: { pages: [{ index: 0, markdown: 'a' }] } } }),
        '',
        JSON.stringify({ custom_id: 'page-2', response: { status_code: 500, body: { message: 'boom' } } }),
        JSON.stringify({ custom_id: 'page-3', error: { message: 'gone' } }),
      ].join('\n'),
    );
    expect(lines.map((l) => [l.customId, l.reply ? 'ok' : l.error])).toEqual([
      ['page-1', 'ok'],
      ['page-2', 'HTTP 500: boom'],
      ['page-3', 'gone'],
    ]);
    expect(() => parseBatchResults('{"custom_id": "page-1"\n')).toThrow(/line 1 of the batch output is not JSON/);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('12')).toBe(12_000);
    expect(retryAfterMs(new Date(Date.parse('2030-01-01T00:00:30Z')).toUTCString(), Date.parse('2030-01-01T00:00:00Z'))).toBe(30_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('remote text aligned onto a local layout', () => {
  it('matches words regardless of case, accents and punctuation', () => {
    expect(normalizeWord('«Déjà,')).toBe('deja');
    expect(alignWords(['a', 'b', 'c'], ['a', 'c'])).toEqual({ anchors: [0, 0, 1], agreeing: 2 });
  });

  it('puts each remote word in the box of the local word it reads as, on the local lines', () => {
    // The local engine misread two words and split one; the remote text is right.
    const local = localPage([
      ['Le', 'port', 'sév€ille', 'à'],
      ['l’aube,', 'avec', 'les', 'goé', 'lands.'],
    ]);
    const remote = remotePage('Le port s’éveille à l’aube, avec les goélands.');
    const aligned = alignOntoLayout(remote, local)!;
    expect(aligned).not.toBeNull();
    expect(aligned.engine).toBe('remoteocr');
    expect(textOf(aligned)).toBe('Le port s’éveille à l’aube, avec les goélands.');
    const lines = aligned.blocks[0].paragraphs[0].lines;
    expect(lines.map((l) => l.words.map((w) => w.text))).toEqual([
      ['Le', 'port', 's’éveille', 'à'],
      ['l’aube,', 'avec', 'les', 'goélands.'],
    ]);
    // Word boxes are the local ones: `port` exactly where tesseract found it, baselines kept.
    const port = lines[0].words[1];
    expect(port.box).toEqual(local.blocks[0].paragraphs[0].lines[0].words[1].box);
    expect(lines[1].baseline).toEqual(local.blocks[0].paragraphs[0].lines[1].baseline);
    // `goélands.` spans the local words it replaced… one of them, since the other is unmatched and dropped.
    const localLine2 = local.blocks[0].paragraphs[0].lines[1].words;
    const goelands = lines[1].words[3];
    expect(goelands.box.x0).toBeGreaterThanOrEqual(localLine2[3].box.x0);
    expect(goelands.box.x1).toBeLessThanOrEqual(localLine2[4].box.x1);
  });

  it('shares a local box among remote words the local engine ran together', () => {
    const local = localPage([['Lemonde', 'entier']]);
    const aligned = alignOntoLayout(remotePage('Le monde entier'), local)!;
    const words = wordsIn(aligned);
    expect(words.map((w) => w.text)).toEqual(['Le', 'monde', 'entier']);
    const joined = local.blocks[0].paragraphs[0].lines[0].words[0].box;
    expect(words[0].x0 * 1000).toBeCloseTo(joined.x0, 1);
    expect(words[1].x1 * 1000).toBeCloseTo(joined.x1, 1);
  });

  it('refuses a layout that reads as another page', () => {
    expect(
      alignOntoLayout(
        remotePage('Le port s’éveille à l’aube'),
        localPage([
          ['Chapitre', 'deux'],
          ['Une', 'autre', 'histoire', 'ici'],
        ]),
      ),
    ).toBeNull();
  });
});
