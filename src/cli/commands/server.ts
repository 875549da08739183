import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ERROR_CODES, QuireError } from '../../errors.js';
import { appDataDir } from '../../project/index.js';
import { untilStopped } from '../interrupt.js';
import { parseByteSize } from '../../util/index.js';
import {
  createApp,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_UPLOAD,
  DEFAULT_PORT,
  DEFAULT_RUN_RATE,
  isPostgresUrl,
  openApiDocument,
  openPgStore,
  openSqliteStore,
  parseBaseUrl,
  serverSecrets,
  setServerConfig,
  SETTABLE,
  showServerConfig,
  type JobStore,
} from '../../server/index.js';

interface ServerFlags {
  host: string;
  port: number;
  publicUrl?: string;
  maxUpload: number;
  rateLimit: number;
  workers?: number;
  logLevel: string;
  rotateAdminSecret?: boolean;
  trustProxy?: string;
  databaseUrl?: string;
  dataDir?: string;
  worker: boolean;
  lease: number;
  allowPrivateWebhooks?: boolean;
  printOpenapi?: boolean;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function serverCommand(): Command {
  const server = new Command('server')
    .description('run the HTTP job server: clients upload scan bundles or PDFs and download the converted PDFs')
    .option('--host <host>', 'bind address; 0.0.0.0 accepts LAN or remote clients', '127.0.0.1')
    .option('--port <port>', `listening port (0 picks a free one)`, parsePort, DEFAULT_PORT)
    .option('--public-url <url>', 'public base URL of download links and the admin page; stored as base_url', parseUrl)
    .addOption(new Option('--max-upload <size>', 'largest upload, e.g. 500M or 2G').argParser(parseSize).default(DEFAULT_MAX_UPLOAD, '2G'))
    .option('--rate-limit <n>', 'jobs a minute one API key may submit', parseCount, DEFAULT_RUN_RATE.max)
    .option('--workers <n>', 'pipeline threads per job (default: number of cores)', parseWorkers)
    .option('--log-level <level>', `log level on stderr: ${LOG_LEVELS.join(', ')}`, parseLogLevel, 'info')
    .option('--rotate-admin-secret', 'replace the admin secret (ending every admin session) and print the new one')
    .option(
      '--trust-proxy <addresses>',
      'believe X-Forwarded-* headers (incl. X-Forwarded-Prefix) from these proxies: addresses or subnets, comma-separated, or true for any',
    )
    .addOption(databaseOption())
    .option('--data-dir <dir>', 'the job folders (default: QUIRE_HOME/server_data); with workers on other machines, a folder they share')
    .option('--no-worker', 'serve HTTP only: `quire worker` processes convert the jobs (with --database-url, on any machine)')
    .addOption(leaseOption())
    .addOption(allowPrivateWebhooksOption())
    .option('--print-openapi', 'print the OpenAPI 3.1 document of the HTTP API and exit')
    .action(async (flags: ServerFlags) => {
      if (flags.printOpenapi) {
        process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
        return;
      }
      await runServer(flags);
    });
  server.addCommand(configCommand());
  return server;
}

/** `--database-url`, or `QUIRE_DATABASE_URL`: PostgreSQL instead of the SQLite file. */
export function databaseOption(): Option {
  return new Option('--database-url <url>', 'postgres://user:password@host/db: the shared job database (default: SQLite in QUIRE_HOME)')
    .env('QUIRE_DATABASE_URL')
    .argParser(parseDatabaseUrl);
}

export function leaseOption(): Option {
  return new Option('--lease <seconds>', 'how long a worker holds a job without renewing its lease; past it, another worker takes the job back')
    .argParser(parseLease)
    .default(DEFAULT_LEASE_MS, '60');
}

/** `--allow-private-webhooks`, or `QUIRE_ALLOW_PRIVATE_WEBHOOKS=1`. */
export function allowPrivateWebhooksOption(): Option {
  return new Option('--allow-private-webhooks', 'let webhook_url point to loopback and private addresses (env QUIRE_ALLOW_PRIVATE_WEBHOOKS=1)');
}

/** The flag, or the environment variable set to 1 or true. */
export function privateWebhooksAllowed(flag: boolean | undefined): boolean {
  return flag === true || /^(1|true|yes)$/i.test(process.env.QUIRE_ALLOW_PRIVATE_WEBHOOKS ?? '');
}

async function runServer(flags: ServerFlags): Promise<void> {
  const home = appDataDir();
  const quire = await createApp({
    dbPath: join(home, 'quire-server.db'),
    ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
    dataDir: flags.dataDir ?? join(home, 'server_data'),
    worker: flags.worker,
    leaseMs: flags.lease,
    allowPrivateWebhooks: privateWebhooksAllowed(flags.allowPrivateWebhooks),
    ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
    maxUpload: flags.maxUpload,
    runRateLimit: { max: flags.rateLimit, timeWindowMs: 60_000 },
    ...(flags.workers ? { workers: flags.workers } : {}),
    ...(flags.rotateAdminSecret ? { rotateAdminSecret: true } : {}),
    ...(flags.trustProxy ? { trustProxy: flags.trustProxy === 'true' ? true : flags.trustProxy } : {}),
    logger: { level: flags.logLevel, stream: process.stderr },
    // Jobs are taken only once the server listens: a second server that cannot bind takes none.
    startWorker: false,
  });
  let address: string;
  try {
    address = await quire.app.listen({ host: flags.host, port: flags.port });
  } catch (e) {
    await quire.close();
    throw listenError(e, flags);
  }
  // Two-stage shutdown: the first signal stops taking uploads and puts the running job back; a second one quits.
  const stopped = untilStopped('quire server', 'shutting down', () => quire.close());
  quire.startWorker();
  process.stdout.write(`Quire server listening on ${address}\n`);
  if (!flags.worker) process.stdout.write('No worker in this process: `quire worker` processes convert the jobs.\n');
  // The secret is shown once, when it is made: only its hash is kept.
  if (quire.adminSecret) {
    process.stdout.write(`Admin panel: ${await quire.linkBase()}/admin?secret=${quire.adminSecret}\n`);
    process.stdout.write('The admin secret above is shown only now: keep the link. quire server --rotate-admin-secret makes a new one.\n');
  } else {
    process.stdout.write(`Admin panel: ${await quire.linkBase()}/admin\n`);
    process.stdout.write('Sign in with the admin link printed when the secret was made; quire server --rotate-admin-secret makes a new one.\n');
  }
  await stopped;
  // Pipeline threads of a job that missed its grace period must not keep the process alive.
  setTimeout(() => process.exit(0), 2_000).unref();
}

/** The usual reasons a server cannot listen, said plainly. */
function listenError(e: unknown, flags: ServerFlags): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  const where = `${flags.host}:${flags.port}`;
  if (code === 'EADDRINUSE') return new QuireError(ERROR_CODES.USAGE, `${where} is already in use; stop what listens there or choose another --port.`);
  if (code === 'EACCES') return new QuireError(ERROR_CODES.USAGE, `Listening on ${where} needs more privileges; choose a --port above 1023.`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new QuireError(ERROR_CODES.USAGE, `${flags.host} is not an address of this machine; use --host 127.0.0.1 or 0.0.0.0.`);
  return e;
}

function configCommand(): Command {
  const config = new Command('config').description(
    'server settings kept in its database (smtp, base_url, limits, retention; the SMTP password goes to <APP_DATA>/.env)',
  );
  config
    .command('set')
    .description(
      `set ${SETTABLE.join(', ')}: smtp '{"host":"…","port":587,"user":"…","password":"…","from":"…","tls":false}', base_url https://…, ` +
        `limits '{"job_memory":"1.5G","uploads_per_key":4,…}', retention '{"inputs_days":0,"outputs_days":30}' (limits and retention apply at the next start)`,
    )
    .argument('<key>', SETTABLE.join(' or '))
    .argument('<value>', 'the value (smtp: a JSON object)')
    .addOption(databaseOption())
    .action(async (key: string, value: string, flags: { databaseUrl?: string }) => {
      const store = await openStore(flags.databaseUrl);
      try {
        const stored = await setServerConfig({ store, secrets: serverSecrets(appDataDir()) }, key, value);
        process.stdout.write(`${key} set${key === 'smtp' ? '' : ` to ${stored}`}\n`);
      } finally {
        await store.close();
      }
    });
  config
    .command('get')
    .description('print a setting (the SMTP password is masked)')
    .argument('<key>', SETTABLE.join(' or '))
    .addOption(databaseOption())
    .action(async (key: string, flags: { databaseUrl?: string }) => {
      const store = await openStore(flags.databaseUrl);
      try {
        const value = await showServerConfig({ store, secrets: serverSecrets(appDataDir()) }, key);
        process.stdout.write(`${value ?? '(not set)'}\n`);
      } finally {
        await store.close();
      }
    });
  // main.ts turns commander's exits into exit codes for top-level commands; these sit one and two levels down.
  config.exitOverride();
  for (const c of config.commands) c.exitOverride();
  return config;
}

/** The job database the commands work on: PostgreSQL at `url`, else the SQLite file in QUIRE_HOME. */
function openStore(url: string | undefined): Promise<JobStore> {
  return url ? openPgStore(url) : Promise.resolve(openSqliteStore(join(appDataDir(), 'quire-server.db')));
}

function parseDatabaseUrl(value: string): string {
  if (!isPostgresUrl(value)) throw new InvalidArgumentError('give a PostgreSQL URL such as postgres://quire:secret@db.lan/quire.');
  return value;
}

function parseLease(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 3600) throw new InvalidArgumentError('give a number of seconds from 1 to 3600.');
  return Math.round(n * 1000);
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('give a port number from 0 to 65535.');
  return n;
}

function parseUrl(value: string): string {
  try {
    return parseBaseUrl(value);
  } catch (e) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
}

/** `2G`, `500M`, `1.5GiB`, `1048576`: binary units, as disks and upload limits are usually meant. */
export function parseSize(value: string): number {
  const bytes = parseByteSize(value);
  if (bytes === null) throw new InvalidArgumentError('give a size such as 500M or 2G.');
  return bytes;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new InvalidArgumentError('give a whole number from 1.');
  return n;
}

export function parseWorkers(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('give a whole number from 1 to 64.');
  return n;
}

export function parseLogLevel(value: string): string {
  if (!LOG_LEVELS.includes(value)) throw new InvalidArgumentError(`choose one of: ${LOG_LEVELS.join(', ')}.`);
  return value;
}
