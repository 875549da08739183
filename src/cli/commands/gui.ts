import { spawn } from 'node:child_process';
import { Command, InvalidArgumentError } from 'commander';
import { createGuiApp, type DocumentSummary } from '../../web/index.js';
import { count, printable } from '../print.js';

interface GuiFlags {
  port: number;
  open: boolean;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('give a port number from 0 to 65535 (0 picks a free one).');
  return n;
}

/** Open `url` in the person's browser; when that fails the printed address is still there to click. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener on this system
  }
}

/**
 * Said when `quire gui` stops with corrections not exported: they are not lost (the documents are kept), but a
 * person closing for the day should know where they are.
 */
export function unexportedWarning(docs: DocumentSummary[], libraryDir: string): string {
  if (docs.length === 0) return '';
  const names = docs.map((d) => `"${printable(d.name)}"`).join(', ');
  const checked = docs.reduce((n, d) => n + (d.proofreading?.checked ?? 0), 0);
  return `Warning: ${count(docs.length, 'document')} ${docs.length === 1 ? 'has' : 'have'} corrections not exported yet (${count(checked, 'word')} checked or corrected): ${names}. They are kept in ${printable(libraryDir)} and listed again the next time you run quire gui; export them there to have the files.\n`;
}

/** `quire gui`: the local web app on 127.0.0.1, with a random session token in its address. */
export function guiCommand(): Command {
  return new Command('gui')
    .description('open the local web app: open scans, look at the pages, OCR, export and send')
    .option('--port <port>', 'port on 127.0.0.1; 0 picks a free one', parsePort, 0)
    .option('--no-open', 'do not open the browser; only print the address')
    .action(async (flags: GuiFlags) => {
      const gui = await createGuiApp();
      let address: string;
      try {
        // Loopback only: the app drives this machine's files and plugins.
        address = await gui.app.listen({ host: '127.0.0.1', port: flags.port });
      } catch (e) {
        await gui.close();
        throw e;
      }
      const url = gui.url(address);
      const kept = gui.documents().length;
      if (kept > 0) process.stdout.write(`${count(kept, 'document')} kept from earlier sessions ${kept === 1 ? 'is' : 'are'} listed in the window.\n`);
      process.stdout.write(`Quire is running at ${url}\nPress Ctrl+C to stop.\n`);
      if (flags.open) openBrowser(url);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.stderr.write(unexportedWarning(gui.unexported(), gui.libraryDir));
          process.once('SIGINT', () => process.exit(130));
          gui.close().then(resolve, resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      // Pipeline threads of a cancelled task must not keep the process alive.
      setTimeout(() => process.exit(0), 2_000).unref();
    });
}
