import { Command, CommanderError } from 'commander';
import { describeError, isQuireError } from '../errors.js';
import { VERSION } from '../version.js';
import { configCommand } from './commands/config.js';
import { guiCommand } from './commands/gui.js';
import { listCommand } from './commands/list.js';
import { ocrCommand } from './commands/ocr.js';
import { pluginsCommand } from './commands/plugins.js';
import { serverCommand } from './commands/server.js';
import { runCommand } from './commands/run.js';
import { closeOcrEngines } from '../ocr/index.js';

export function buildProgram(): Command {
  const program = new Command('quire')
    .description('Quire turns camera captures of book pages, PDFs and page images into clean, searchable PDFs.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)');
  program.addCommand(runCommand());
  program.addCommand(ocrCommand());
  program.addCommand(pluginsCommand());
  program.addCommand(listCommand());
  program.addCommand(guiCommand());
  program.addCommand(serverCommand());
  program.addCommand(configCommand());
  program.addCommand(new Command('version').description('print the version').action(() => {
    process.stdout.write(`quire ${VERSION}\n`);
  }));
  program.exitOverride();
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Run the CLI; returns the exit code: 0 ok, 2 usage error, 1 conversion error. */
export async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes('--json');
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version end here too, with code 0; commander has already printed them.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (isQuireError(e)) {
      if (wantsJson) process.stdout.write(JSON.stringify({ error: { code: e.code, message: e.message } }) + '\n');
      process.stderr.write(`quire: ${e.message}\n`);
      if (e.detail && process.env.QUIRE_DEBUG) process.stderr.write(`  ${e.detail}\n`);
      return e.exitCode;
    }
    process.stderr.write(`quire: something went wrong that Quire did not expect: ${describeError(e)}\n`);
    return 1;
  } finally {
    await closeOcrEngines();
  }
}
