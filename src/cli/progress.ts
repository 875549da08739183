import type { ProgressEvent } from '../convert/index.js';
import { count, printable } from './print.js';

/** Reports conversion progress: a redrawn bar on a terminal, plain lines otherwise, nothing for `--json`. */
export function progressReporter(mode: 'tty' | 'lines' | 'quiet', stream: NodeJS.WriteStream = process.stderr): (e: ProgressEvent) => void {
  if (mode === 'quiet') return () => {};
  let name = '';
  let started = 0;
  return (e) => {
    switch (e.type) {
      case 'start':
        // The name and paths come from the input: never let them drive the terminal.
        name = printable(e.name);
        started = performance.now();
        if (mode === 'lines') stream.write(`${name}: ${count(e.frames, 'frame')} to convert\n`);
        else drawBar(stream, name, 0, e.frames, 0, 'starting', 'frames');
        break;
      case 'frame':
        if (mode === 'lines')
          stream.write(`${name}: frame ${e.framesDone}/${e.framesTotal} done (${printable(e.input)}), ${count(e.pagesDone, 'page')} so far\n`);
        else drawBar(stream, name, e.framesDone, e.framesTotal, e.pagesDone, rate(e.pagesDone, started), 'frames');
        break;
      case 'ocr':
        if (mode === 'lines') {
          if (e.pagesDone === e.pagesTotal || e.pagesDone % 10 === 0) stream.write(`${name}: OCR ${e.pagesDone}/${count(e.pagesTotal, 'page')}\n`);
        } else drawBar(stream, name, e.pagesDone, e.pagesTotal, e.pagesDone, 'OCR', 'pages');
        break;
      case 'export':
        if (mode === 'tty') stream.write('\r\x1b[2K');
        stream.write(`${name}: wrote ${printable(e.path)}\n`);
        break;
      case 'warning':
        if (mode === 'tty') stream.write('\r\x1b[2K');
        stream.write(`${name}: ${printable(e.message)}\n`);
        break;
      case 'done':
        break;
    }
  };
}

function rate(pages: number, started: number): string {
  const s = (performance.now() - started) / 1000;
  return s > 0 ? `${(pages / s).toFixed(1)} pages/s` : '';
}

function drawBar(stream: NodeJS.WriteStream, name: string, done: number, total: number, pages: number, note: string, unit: 'frames' | 'pages'): void {
  const width = 24;
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
  const chars = Array.from(name);
  const label = chars.length > 30 ? `${chars.slice(0, 29).join('')}…` : name;
  const counts = unit === 'frames' ? `${done}/${count(total, 'frame')}, ${count(pages, 'page')}` : `${done}/${count(total, 'page')}`;
  stream.write(`\r\x1b[2K${label} ${bar} ${counts} ${note}`);
}
