import { Command, InvalidArgumentError } from 'commander';
import { listExports } from '../../export/index.js';
import { PRESETS } from '../../pipeline/presets.js';

const WHAT = ['pipelines', 'exports'] as const;

export function listCommand(): Command {
  return new Command('list')
    .description('list what this Quire offers: pipelines or exports')
    .argument('<what>', `one of: ${WHAT.join(', ')}`, (v: string) => {
      if (!(WHAT as readonly string[]).includes(v)) throw new InvalidArgumentError(`choose one of: ${WHAT.join(', ')}.`);
      return v;
    })
    .action((what: (typeof WHAT)[number]) => {
      if (what === 'pipelines') {
        for (const p of Object.values(PRESETS)) process.stdout.write(`${p.name.padEnd(8)} ${p.description}\n`);
        return;
      }
      for (const e of listExports()) {
        process.stdout.write(`${e.name.padEnd(8)} ${e.description} (.${e.extension})\n`);
        for (const [key, opt] of Object.entries(e.options)) {
          const values = opt.values ? ` [${opt.values.join('|')}]` : '';
          process.stdout.write(`         :${key}=…${values}  ${opt.description}\n`);
        }
      }
    });
}
