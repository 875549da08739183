import { Command, CommanderError } from 'commander';
import { ERROR_CODES } from '../errors.js';
import { VERSION } from '../version.js';
import { dropOutputOnClosedPipe } from './closed-pipe.js';
import { asQuireError, Reported } from './failure.js';
import { documentReport } from './json-report.js';
import { printable, printableJson } from './print.js';

/**
 * The commands, each loaded only when it runs: `quire ocr` need not load the web app and the job server (their
 * HTTP framework and database drivers cost a few hundred milliseconds of every run).
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Command>]> = [
  ['run', async () => (await import('./commands/run.js')).runCommand()],
  ['ocr', async () => (await import('./commands/ocr.js')).ocrCommand()],
  ['plugins', async () => (await import('./commands/plugins.js')).pluginsCommand()],
  ['list', async () => (await import('./commands/list.js')).listCommand()],
  ['gui', async () => (await import('./commands/gui.js')).guiCommand()],
  ['server', async () => (await import('./commands/server.js')).serverCommand()],
  ['worker', async () => (await import('./commands/worker.js')).workerCommand()],
  ['config', async () => (await import('./commands/config.js')).configCommand()],
];

/** Whether a command (and with it the conversion engine) was loaded, so that its OCR engines are closed at the end. */
let enginesLoaded = false;

/**
 * The program for `argv`: with a command named first, that command alone (and `version`); otherwise (help, no
 * command, a mistyped one) every command, so help lists them all and commander can suggest the nearest name.
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const named = argv.find((a) => !a.startsWith('-'));
  const wanted = COMMANDS.filter(([name]) => name === named);
  // `quire --version` (or `version`) alone needs no command: loading them all would cost it most of a second.
  const versionOnly = argv.length === 1 && ['--version', '-V', 'version'].includes(argv[0]!);
  const loaded = versionOnly ? [] : await Promise.all((wanted.length > 0 ? wanted : COMMANDS).map(([, load]) => load()));
  if (loaded.length > 0) enginesLoaded = true;
  const program = new Command('quire')
    .description('Quire turns camera captures of book pages, PDFs and page images into clean, searchable PDFs.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)');
  for (const command of loaded) program.addCommand(command);
  program.addCommand(
    new Command('version').description('print the version').action(() => {
      process.stdout.write(`quire ${VERSION}\n`);
    }),
  );
  // What commander prints comes partly from the command line (an unknown option, an argument): escaped like the rest,
  // line by line (its own line breaks are kept), and said in Quire's one voice.
  const output = {
    outputError: (text: string, write: (s: string) => void) =>
      write(
        `${text
          .replace(/\n$/, '')
          .replace(/^error: /, 'quire: ')
          .split('\n')
          .map(printable)
          .join('\n')}\n`,
      ),
  };
  const configure = (cmd: Command): void => {
    cmd.exitOverride().configureOutput(output);
    cmd.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/**
 * Run the CLI; returns the exit code: 0 ok, 2 usage error, 1 conversion error, 130/143 stopped by SIGINT/SIGTERM.
 * With `--json`, a failure before any input was read (a usage error included) is printed on stdout as one
 * document report with `"input": null`, `"status": "failed"` and its `error`, with the same exit code.
 */
export async function main(argv: string[]): Promise<number> {
  dropOutputOnClosedPipe();
  const wantsJson = argv.includes('--json');
  const fail = (code: string, message: string, exitCode: number, detail?: string): number => {
    if (wantsJson) process.stdout.write(printableJson([documentReport(null, 'failed', { error: { code, message } })]) + '\n');
    process.stderr.write(`quire: ${printable(message)}\n`);
    if (detail && process.env.QUIRE_DEBUG) process.stderr.write(`  ${printable(detail)}\n`);
    return exitCode;
  };
  try {
    await (await buildProgram(argv)).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof Reported) return e.exitCode;
    if (e instanceof CommanderError) {
      // Help and version end here too, with code 0; commander has already printed them, and the error on stderr.
      if (e.exitCode === 0) return 0;
      if (wantsJson)
        process.stdout.write(
          printableJson([documentReport(null, 'failed', { error: { code: ERROR_CODES.USAGE, message: e.message.replace(/^error: /, '') } })]) + '\n',
        );
      return 2;
    }
    const error = await asQuireError(e);
    return fail(error.code, error.message, error.exitCode, error.detail);
  } finally {
    // The engine is loaded by the commands that convert; without them (`--version`, `version`) there is nothing to close.
    if (enginesLoaded) await (await import('../convert/index.js')).closeOcrEngines();
  }
}
