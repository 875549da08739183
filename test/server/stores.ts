/**
 * The job server's tests run against both stores: the `sqlite` project as the server ships, the `postgres` project
 * (vitest.config.ts) against the test cluster of `pg-setup.ts`. A test's data folder maps to a PostgreSQL schema of
 * its own, so two servers started on one folder share one database, as they would share one SQLite file.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import pg from 'pg';
import { inject } from 'vitest';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE: StoreKind = process.env.QUIRE_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

const made = new Map<string, Promise<void>>();

/** The test cluster's URL (its `postgres` database). */
export function clusterUrl(): string {
  return inject('pgUrl');
}

/** A URL of the test cluster whose tables live in `schema`. */
export function schemaUrl(schema: string): string {
  return `${clusterUrl()}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Make a schema (once) and return its URL. */
export async function newSchema(schema: string): Promise<string> {
  // One CREATE per schema, shared by callers that open stores side by side: concurrent CREATE SCHEMA IF NOT EXISTS
  // of one name can still collide in PostgreSQL's catalog.
  let making = made.get(schema);
  if (!making) {
    making = (async () => {
      const client = new pg.Client(clusterUrl());
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } finally {
        await client.end();
      }
    })();
    made.set(schema, making);
    making.catch(() => made.delete(schema));
  }
  await making;
  return schemaUrl(schema);
}

/** The database of a test's folder: a PostgreSQL URL in the `postgres` project, undefined (SQLite in the folder) otherwise. */
export async function databaseUrlFor(root: string): Promise<string | undefined> {
  if (STORE !== 'postgres') return undefined;
  return newSchema(`t_${createHash('sha256').update(root).digest('hex').slice(0, 20)}`);
}

/**
 * Run one statement on a test folder's database, as a test that pokes at rows directly: `?` placeholders, rows back.
 * SQLite: the folder's `quire-server.db`; PostgreSQL: its schema.
 */
export async function sqlIn(root: string, text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const url = await databaseUrlFor(root);
  if (!url) {
    const db = new Database(join(root, 'quire-server.db'));
    try {
      const statement = db.prepare(text);
      return statement.reader ? (statement.all(...params) as Array<Record<string, unknown>>) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  let n = 0;
  const client = new pg.Client({
    connectionString: url,
    types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig,
  });
  await client.connect();
  try {
    return (
      await client.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}

/** The environment a `quire` process of the tests needs to use this folder's database. */
export async function storeEnv(root: string): Promise<NodeJS.ProcessEnv> {
  const url = await databaseUrlFor(root);
  return url ? { QUIRE_DATABASE_URL: url } : {};
}
