import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { appDataDir } from '../../project/index.js';
import { untilStopped } from '../interrupt.js';
import { startWorker, withoutPassword, workerLogger } from '../../server/index.js';
import { allowPrivateWebhooksOption, databaseOption, leaseOption, LOG_LEVELS, parseLogLevel, parseWorkers, privateWebhooksAllowed } from './server.js';

interface WorkerFlags {
  databaseUrl?: string;
  dataDir?: string;
  concurrency: number;
  lease: number;
  attempts: number;
  poll: number;
  workers?: number;
  logLevel: string;
  allowPrivateWebhooks?: boolean;
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('convert the jobs of a job server database; run any number of them, on any machine that shares the data folder')
    .addOption(databaseOption())
    .option('--data-dir <dir>', 'the job folders, shared with the servers (default: QUIRE_HOME/server_data)')
    .option('--concurrency <n>', 'jobs converted at once, each in a process of its own', parseConcurrency, 1)
    .addOption(leaseOption())
    .option('--attempts <n>', 'attempts of a job (a crash, a lost lease or an unexpected fault ends one) before it fails', parseAttempts, 3)
    .addOption(
      new Option(
        '--poll <seconds>',
        'how often an idle worker looks for queued jobs and for jobs of stopped workers (on PostgreSQL a queued job wakes it at once)',
      )
        .argParser(parsePoll)
        .default(2_000, '2'),
    )
    .option('--workers <n>', 'pipeline threads per job (default: number of cores)', parseWorkers)
    .option('--log-level <level>', `log level on stderr: ${LOG_LEVELS.join(', ')}`, parseLogLevel, 'info')
    .addOption(allowPrivateWebhooksOption())
    .action(async (flags: WorkerFlags) => {
      await runWorker(flags);
    });
}

async function runWorker(flags: WorkerFlags): Promise<void> {
  const home = appDataDir();
  const log = workerLogger(flags.logLevel, process.stderr);
  const worker = await startWorker({
    ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
    dataDir: flags.dataDir ?? join(home, 'server_data'),
    appData: home,
    concurrency: flags.concurrency,
    leaseMs: flags.lease,
    maxAttempts: flags.attempts,
    tickMs: flags.poll,
    ...(flags.workers ? { workers: flags.workers } : {}),
    allowPrivateWebhooks: privateWebhooksAllowed(flags.allowPrivateWebhooks),
    log,
  });
  // Two-stage shutdown, as the server: the first signal puts the running jobs back at a frame boundary; a second quits.
  const stopped = untilStopped('quire worker', 'putting its jobs back', () => worker.stop());
  const where = flags.databaseUrl ? withoutPassword(flags.databaseUrl) : join(home, 'quire-server.db');
  process.stdout.write(`Quire worker ${worker.workerId} converting jobs of ${where}, ${flags.concurrency} at a time\n`);
  await stopped;
  // Pipeline threads of a job that missed its grace period must not keep the process alive.
  setTimeout(() => process.exit(0), 2_000).unref();
}

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('give a whole number from 1 to 64.');
  return n;
}

function parseAttempts(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('give a whole number from 1 to 100.');
  return n;
}

function parsePoll(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0.1 || n > 3600) throw new InvalidArgumentError('give a number of seconds from 0.1 to 3600.');
  return Math.round(n * 1000);
}
