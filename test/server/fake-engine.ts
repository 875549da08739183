import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ConvertEngine, ConvertOptions, ConvertResult, OcrCheck } from '../../src/convert/index.js';
import { ERROR_CODES, QuireError } from '../../src/errors.js';

/**
 * A stand-in for `convert` whose frames advance only when the test says so: it writes a project and outputs where
 * the real one would, honours the abort signal at frame boundaries, and reports progress like it.
 */
export class FakeEngine implements ConvertEngine {
  readonly calls: Array<{ input: string | string[]; options: ConvertOptions; leftoverSeen: boolean }> = [];
  /** Run straight through instead of waiting at each frame. */
  auto = false;
  /** Ignore the abort signal while waiting at a gate (a frame that takes long). */
  stubborn = false;
  /** The document's own name (a bundle's project name); null: none, so it is named after the input, as convert does. */
  name: string | null = 'Fake book';
  frames = 3;
  /** Pages the conversion finds out of focus (as convert's `outOfFocus`); none by default. */
  outOfFocus: number[] | null = null;
  private release: (() => void) | null = null;
  private arrivals: Array<() => void> = [];

  readonly convert = async (input: string | string[], options: ConvertOptions): Promise<ConvertResult> => {
    const proj = options.keepProject!;
    const name = this.name ?? basename(options.label ?? String(input)).replace(/\.[^.]*$/, '');
    this.calls.push({ input, options, leftoverSeen: existsSync(join(proj, 'leftover.txt')) });
    await mkdir(join(proj, 'pages'), { recursive: true });
    await writeFile(join(proj, 'project.json'), '{}');
    options.onProgress?.({ type: 'start', name, frames: this.frames });
    for (let f = 1; f <= this.frames; f++) {
      if (!this.auto) await this.gate(options.signal);
      if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      await writeFile(join(proj, 'pages', `${f}.png`), 'page');
      options.onProgress?.({ type: 'frame', framesDone: f, framesTotal: this.frames, pagesDone: f * 2, input: `images/${f}.jpg` });
    }
    const outDir = options.outDir!;
    await mkdir(outDir, { recursive: true });
    const stem = options.fileStem ?? name;
    const outputs = [{ format: 'pdf', path: join(outDir, `${stem}.pdf`), bytes: 9 }];
    await writeFile(outputs[0].path, '%PDF-fake');
    if (String(options.exports).includes('md')) {
      outputs.push({ format: 'md', path: join(outDir, `${stem}.md`), bytes: 8 });
      await writeFile(outputs[1].path, '# Fake\n\ntext');
    }
    return {
      name,
      outputs,
      frames: this.frames,
      pages: this.frames * 2,
      timings: { total: 1, pipeline: 1, ocr: 0, export: 0, steps: {} },
      ...(this.outOfFocus ? { outOfFocus: this.outOfFocus } : {}),
    };
  };

  /** The fake never submits an OCR batch; a parked job (a test parks one by hand) is polled by the real verb. */
  readonly checkOcr = async (projectDir: string): Promise<OcrCheck> => (await import('../../src/convert/index.js')).checkProjectOcr(projectDir);
  readonly cancelOcr = async (projectDir: string): Promise<void> => (await import('../../src/convert/index.js')).cancelProjectOcr(projectDir);

  private gate(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      this.release = resolve;
      if (signal && !this.stubborn) signal.addEventListener('abort', () => resolve(), { once: true });
      this.arrivals.splice(0).forEach((f) => f());
    });
  }

  /** Resolves once the engine waits at a frame boundary. */
  atGate(): Promise<void> {
    if (this.release) return Promise.resolve();
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  /** Let the waiting frame go. */
  step(): void {
    const r = this.release;
    this.release = null;
    r?.();
  }
}
