import { defineConfig } from 'vitest/config';
import { postgresBin } from './scripts/pg-cluster.mjs';

/**
 * Two projects: `main`, every test as the project ships (the job server on SQLite), and `postgres`, the job server's
 * tests again on PostgreSQL (one throwaway cluster for the run). Files that never open a job store run once, and so
 * do process.test.ts, about the SQLite file of a lone server (cluster.test.ts runs processes on both), and
 * openapi.test.ts, whose document is the same on either.
 * Without PostgreSQL installed the second project is left out, except under CI=true, where that is a failure.
 */
const SERVER_TESTS_ONCE = [
  'test/server/download.test.ts',
  'test/server/forms.test.ts',
  'test/server/server-command.test.ts',
  'test/server/process.test.ts',
  'test/server/openapi.test.ts',
];
const withPostgres = postgresBin() !== null || process.env.CI === 'true';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
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
