/**
 * The SQLite driver for the Node that runs Quire: better-sqlite3 13 on Node 22 and later (12 aborts the process on
 * Node 24 when the garbage collector frees a prepared statement), 12 on Node 20 (13 declares Node 22 and crashes on
 * 20 the same way). Both are installed: 13 as `better-sqlite3`, 12 as the optional `better-sqlite3-v12` (it builds
 * from source where its prebuilt addon cannot be fetched, and an install where it cannot is still whole). One home:
 * every file that opens a database takes its constructor from here.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

function load(): typeof BetterSqlite3 {
  if (Number(process.versions.node.split('.')[0]) < 22) {
    try {
      return require('better-sqlite3-v12') as typeof BetterSqlite3;
    } catch {
      // Not installed (an install without optional packages): the current one, which Node 20 may not survive.
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

/** The driver's `Database` constructor (`new SqliteDatabase(path, options)`). */
export const SqliteDatabase: typeof BetterSqlite3 = load();
export type SqliteDb = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
