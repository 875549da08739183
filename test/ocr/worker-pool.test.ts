import { describe, expect, it, vi } from 'vitest';
import { QuireError } from '../../src/errors.js';
import { createWorkerPool, type PoolWorker } from '../../src/ocr/worker-pool.js';

/** A stand-in worker that records what it was asked; its work takes `ms`. */
interface FakeWorker extends PoolWorker {
  id: number;
  languages: string;
  terminated: boolean;
  work(ms: number): Promise<string>;
}

function fakeFactory(options: { failCreate?: boolean } = {}) {
  let next = 0;
  let running = 0;
  let peak = 0;
  const workers: FakeWorker[] = [];
  const create = async (languages: readonly string[]): Promise<FakeWorker> => {
    await new Promise((r) => setTimeout(r, 5));
    if (options.failCreate) throw new Error('no data');
    const worker: FakeWorker = {
      id: ++next,
      languages: languages.join('+'),
      terminated: false,
      async reinitialize(langs) {
        worker.languages = langs.join('+');
      },
      async terminate() {
        worker.terminated = true;
      },
      async work(ms) {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, ms));
        running -= 1;
        return `${worker.id}:${worker.languages}`;
      },
    };
    workers.push(worker);
    return worker;
  };
  return { create, workers, peak: () => peak, running: () => running };
}

describe('worker pool', () => {
  it('runs pages in parallel on at most `size` workers, created only when needed', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 2, create: factory.create });
    expect(pool.stats()).toEqual({ created: 0, reinitialised: 0, alive: 0 });
    const results = await Promise.all(Array.from({ length: 6 }, () => pool.run(['fra'], (w) => w.work(20))));
    expect(results).toHaveLength(6);
    expect(factory.peak()).toBe(2);
    expect(pool.stats()).toEqual({ created: 2, reinitialised: 0, alive: 2 });
    // Every page was read with the languages asked for.
    expect(results.every((r) => r.endsWith(':fra'))).toBe(true);
    await pool.close();
  });

  it('keeps workers warm across documents, and switches languages rather than starting more', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 2, create: factory.create });
    await Promise.all([1, 2, 3].map(() => pool.run(['fra', 'lat'], (w) => w.work(5))));
    await Promise.all([1, 2, 3].map(() => pool.run(['fra', 'lat'], (w) => w.work(5))));
    expect(pool.stats()).toMatchObject({ created: 2, reinitialised: 0 });
    const english = await Promise.all([1, 2].map(() => pool.run(['eng'], (w) => w.work(5))));
    expect(english.every((r) => r.endsWith(':eng'))).toBe(true);
    expect(pool.stats()).toMatchObject({ created: 2, alive: 2 });
    expect(pool.stats().reinitialised).toBeGreaterThanOrEqual(1);
    await pool.close();
  });

  it('gives a free worker already holding the languages the next matching page', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 1, create: factory.create });
    const order: string[] = [];
    const page = (langs: string[], name: string) => pool.run(langs, async (w) => order.push(`${name}@${await w.work(5)}`));
    await Promise.all([page(['fra'], 'a'), page(['eng'], 'b'), page(['fra'], 'c')]);
    // c waited behind b but matched the warm French worker, so it ran before the switch to English.
    expect(order.map((o) => o.split('@')[0])).toEqual(['a', 'c', 'b']);
    expect(pool.stats()).toMatchObject({ created: 1, reinitialised: 1 });
    await pool.close();
  });

  it('reports a worker that cannot start, and tries a new one for the next page', async () => {
    const broken = fakeFactory({ failCreate: true });
    const pool = createWorkerPool({ size: 2, create: broken.create });
    await expect(pool.run(['fra'], (w) => w.work(1))).rejects.toThrow('no data');
    expect(pool.stats().alive).toBe(0);
    await expect(pool.run(['fra'], (w) => w.work(1))).rejects.toThrow('no data');
    expect(pool.stats().created).toBe(2);
  });

  it('a failing page does not take its worker down', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 1, create: factory.create });
    await expect(pool.run(['fra'], async () => Promise.reject(new Error('bad page')))).rejects.toThrow('bad page');
    await expect(pool.run(['fra'], (w) => w.work(1))).resolves.toBe('1:fra');
    expect(pool.stats()).toMatchObject({ created: 1, alive: 1 });
    await pool.close();
  });

  it('cancels a waiting page, and ends the worker of a running one', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 1, create: factory.create });
    const running = new AbortController();
    const waiting = new AbortController();
    const first = pool.run(['fra'], (w) => w.work(200), running.signal);
    const second = pool.run(['fra'], (w) => w.work(1), waiting.signal);
    const third = pool.run(['fra'], (w) => w.work(1));
    waiting.abort();
    await expect(second).rejects.toMatchObject({ code: 'cancelled' });
    // Aborted once its page is being read.
    await vi.waitFor(() => expect(factory.running()).toBe(1), { timeout: 10_000, interval: 1 });
    running.abort();
    await expect(first).rejects.toBeInstanceOf(QuireError);
    expect(factory.workers[0].terminated).toBe(true);
    // The queue goes on with a fresh worker.
    await expect(third).resolves.toBe('2:fra');
    const already = new AbortController();
    already.abort();
    await expect(pool.run(['fra'], (w) => w.work(1), already.signal)).rejects.toMatchObject({ code: 'cancelled' });
    await pool.close();
  });

  it('close() refuses waiting and running pages, ends every worker, and a later page starts afresh', async () => {
    const factory = fakeFactory();
    const pool = createWorkerPool({ size: 1, create: factory.create });
    await pool.run(['fra'], (w) => w.work(1));
    // A page whose worker never answers once ended, as a terminated tesseract worker does.
    const busy = pool.run(['fra'], () => new Promise<string>(() => undefined));
    const queued = pool.run(['fra'], (w) => w.work(1));
    await pool.close();
    await expect(busy).rejects.toMatchObject({ code: 'cancelled' });
    await expect(queued).rejects.toMatchObject({ code: 'cancelled' });
    expect(factory.workers.every((w) => w.terminated)).toBe(true);
    expect(pool.stats().alive).toBe(0);
    await expect(pool.run(['eng'], (w) => w.work(1))).resolves.toBe('2:eng');
    await pool.close();
  });
});
