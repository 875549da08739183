import { Command, InvalidArgumentError } from 'commander';
import { listExports } from '../../export/index.js';
import { describeOcrEngines, languageName } from '../../ocr/index.js';
import { listDestinations } from './plugins.js';
import { PRESETS } from '../../pipeline/index.js';

const WHAT = ['pipelines', 'exports', 'ocr', 'destinations'] as const;

export function listCommand(): Command {
  return new Command('list')
    .description('list what this Quire offers: pipelines, exports, OCR engines and their languages, or installed destinations')
    .argument('<what>', `one of: ${WHAT.join(', ')}`, (v: string) => {
      if (!(WHAT as readonly string[]).includes(v)) throw new InvalidArgumentError(`choose one of: ${WHAT.join(', ')}.`);
      return v;
    })
    .action(async (what: (typeof WHAT)[number]) => {
      if (what === 'destinations') return listDestinations();
      if (what === 'ocr') {
        for (const e of await describeOcrEngines()) {
          const state = e.available ? 'available' : `not available: ${e.reason ?? 'unknown reason'}`;
          process.stdout.write(`${e.name.padEnd(9)} ${e.description} (${state})\n`);
          if (e.languages.length > 0) process.stdout.write(`          languages: ${e.languages.map((l) => `${l} (${languageName(l)})`).join(', ')}\n`);
          for (const m of e.models ?? []) process.stdout.write(`          model: ${m.model} for ${m.languages.join(', ')}\n`);
        }
        return;
      }
      if (what === 'pipelines') {
        for (const p of Object.values(PRESETS)) process.stdout.write(`${p.name.padEnd(9)} ${p.description}\n`);
        return;
      }
      for (const e of listExports()) {
        process.stdout.write(`${e.name.padEnd(9)} ${e.description} → <name>${e.extension}\n`);
        for (const [key, opt] of Object.entries(e.options)) {
          const values = opt.values ? ` [${opt.values.join('|')}]` : '';
          process.stdout.write(`          :${key}=…${values}  ${opt.description}\n`);
        }
      }
    });
}
