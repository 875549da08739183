import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../src/cli/progress.js';

function capture(mode: 'tty' | 'lines' | 'quiet'): { text: () => string; report: ReturnType<typeof progressReporter> } {
  const chunks: string[] = [];
  const stream = { write: (s: string) => chunks.push(s) } as unknown as NodeJS.WriteStream;
  return { text: () => chunks.join(''), report: progressReporter(mode, stream) };
}

const events = [
  { type: 'start', name: 'Book', frames: 2 },
  { type: 'frame', framesDone: 1, framesTotal: 2, pagesDone: 2, input: 'images/0001.jpg' },
  { type: 'frame', framesDone: 2, framesTotal: 2, pagesDone: 4, input: 'images/0002.jpg' },
  { type: 'export', format: 'pdf', path: 'out/Book.pdf' },
] as const;

describe('progress', () => {
  it('redraws one bar on a terminal, with frames and pages done', () => {
    const { text, report } = capture('tty');
    for (const e of events) report(e);
    expect(text()).toContain('\r\x1b[2KBook ████████████░░░░░░░░░░░░ 1/2 frames, 2 pages');
    expect(text()).toContain('2/2 frames, 4 pages');
    expect(text()).toMatch(/Book: wrote out\/Book\.pdf\n$/);
  });

  it('writes plain lines elsewhere, and nothing for --json', () => {
    const lines = capture('lines');
    for (const e of events) lines.report(e);
    expect(lines.text().split('\n').filter(Boolean)).toEqual([
      'Book: 2 frames to convert',
      'Book: frame 1/2 done (images/0001.jpg), 2 pages so far',
      'Book: frame 2/2 done (images/0002.jpg), 4 pages so far',
      'Book: wrote out/Book.pdf',
    ]);
    const quiet = capture('quiet');
    for (const e of events) quiet.report(e);
    expect(quiet.text()).toBe('');
  });

  it('counts in the singular when there is one, and escapes a name that would drive the terminal', () => {
    const lines = capture('lines');
    lines.report({ type: 'start', name: 'One\x1b[2J', frames: 1 });
    lines.report({ type: 'frame', framesDone: 1, framesTotal: 1, pagesDone: 1, input: 'scan.pdf#1' });
    lines.report({ type: 'ocr', pagesDone: 1, pagesTotal: 1 });
    expect(lines.text().split('\n').filter(Boolean)).toEqual([
      'One\\x1b[2J: 1 frame to convert',
      'One\\x1b[2J: frame 1/1 done (scan.pdf#1), 1 page so far',
      'One\\x1b[2J: OCR 1/1 page',
    ]);
    const bar = capture('tty');
    bar.report({ type: 'start', name: 'One', frames: 1 });
    bar.report({ type: 'frame', framesDone: 1, framesTotal: 1, pagesDone: 1, input: 'scan.pdf#1' });
    expect(bar.text()).toContain('1/1 frame, 1 page');
  });
});
