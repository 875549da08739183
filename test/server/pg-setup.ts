/**
 * The `postgres` test project's global setup: one throwaway PostgreSQL cluster for the whole run (each test server
 * gets a schema of its own in it, see `stores.ts`), stopped at the end.
 */
import type { TestProject } from 'vitest/node';
import { startPgCluster } from '../../scripts/pg-cluster.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPgCluster();
  project.provide('pgUrl', cluster.url);
  return () => cluster.stop();
}
