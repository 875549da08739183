import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { postgresBin } from './scripts/pg-cluster.mjs';

/**
 * Two projects: `main`, every test as the project ships (the job server on SQLite), and `postgres`, the job server's
 * tests again on PostgreSQL (one throwaway cluster for the run). Files that never open a job store run once, and so
 * do process.test.ts, about the SQLite file of a lone server (cluster.test.ts runs processes on both),
 * openapi.test.ts, whose document is the same on either, and ocr-plugin.test.ts, whose server is started on its own
 * SQLite file in either project (an OCR engine plugin, not the job store, is what it tests).
 * Without PostgreSQL installed the second project is left out, except under CI=true, where that is a failure.
 */
const SERVER_TESTS_ONCE = [
  'test/server/download.test.ts',
  'test/server/forms.test.ts',
  'test/server/server-command.test.ts',
  'test/server/process.test.ts',
  'test/server/openapi.test.ts',
  'test/server/ocr-plugin.test.ts',
];
const withPostgres = postgresBin() !== null || process.env.CI === 'true';

/**
 * Files run side by side, WORKERS at a time (vitest's default is one fewer than the cores: one on a 2-core machine).
 * Most files spend their time waiting on a child process (the CLI, tesseract, calibre, Chromium, PostgreSQL), so three
 * keep two cores busy. Every file has its own temporary folders, its own home (test/own-home.ts), ports chosen by the
 * system and, on PostgreSQL, a schema of its own.
 */
const WORKERS = 3;

/**
 * The files that take longest (about 15 s and more on an idle 2-core machine, both projects), started first: a long
 * file started last would run alone at the end while the other workers wait.
 */
const LONGEST_FIRST = [
  'test/server/cluster.test.ts',
  'test/cli/text-on-ink.test.ts',
  'test/cli/safety.test.ts',
  'test/cli/plugins-pages.test.ts',
  'test/server/process.test.ts',
  'test/web/gui.test.ts',
  'test/cli/run.test.ts',
  'test/web/daily.test.ts',
  'test/cli/ocr.test.ts',
  'test/web/page-boxes.test.ts',
  'test/web/page-box.test.ts',
  'test/convert/space.test.ts',
  'test/server/ocr-plugin.test.ts',
  'test/server/remote-hang.test.ts',
  'test/server/database-down.test.ts',
  'test/plugins/hostile.test.ts',
  'test/export/epub.test.ts',
  'test/cli/plugins.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const i = LONGEST_FIRST.findIndex((path) => spec.moduleId.endsWith(path));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    // Budgets for a test that hangs, not for a green one: three files at a time on two cores may each take twice as
    // long as alone.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    setupFiles: ['test/own-home.ts'],
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true as const, test: { name: 'main', include: ['test/**/*.test.ts'] } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/server/**/*.test.ts'],
                exclude: SERVER_TESTS_ONCE,
                globalSetup: ['test/server/pg-setup.ts'],
                env: { QUIRE_TEST_STORE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
