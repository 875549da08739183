import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, QuireError } from '../errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The numbered migrations, `sql/000001.sql` onwards, read beside this module: the build copies `src/server/sql/`
 * to `dist/server/sql/`. One set of files serves every store, so the SQL in them stays portable.
 */
export function loadMigrations(dir: string = fileURLToPath(new URL('./sql/', import.meta.url))): Migration[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new QuireError(ERROR_CODES.INTERNAL, 'The job server cannot find its database migrations; rebuild Quire.', `${dir}: ${String(e)}`);
  }
  const migrations = names
    .filter((n) => /^\d{6}\.sql$/.test(n))
    .sort()
    .map((name) => ({ version: Number(name.slice(0, 6)), name, sql: readFileSync(`${dir}/${name}`, 'utf8') }));
  migrations.forEach((m, i) => {
    // A gap means a file went missing in packaging; applying around it would corrupt the schema silently.
    if (m.version !== i + 1)
      throw new QuireError(ERROR_CODES.INTERNAL, 'The job server database migrations are incomplete; rebuild Quire.', `expected ${i + 1}, found ${m.name}`);
  });
  if (migrations.length === 0) throw new QuireError(ERROR_CODES.INTERNAL, 'The job server cannot find its database migrations; rebuild Quire.', dir);
  return migrations;
}

/** Statements of a migration file, one at a time (drivers such as pg run one statement per query with parameters). */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
