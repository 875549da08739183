import { Command, InvalidArgumentError } from 'commander';
import { listExports } from '../../export/index.js';
import { describeOcrEngines, languageName } from '../../ocr/index.js';
import { listDestinations } from './plugins.js';
import { PRESETS } from '../../pipeline/index.js';
import { printable, printableJson } from '../print.js';

const WHAT = ['pipelines', 'exports', 'ocr', 'destinations'] as const;

export function listCommand(): Command {
  return new Command('list')
    .description('list what this Quire offers: pipelines, exports, OCR engines and their languages, or installed destinations')
    .argument('<what>', `one of: ${WHAT.join(', ')}`, (v: string) => {
      if (!(WHAT as readonly string[]).includes(v)) throw new InvalidArgumentError(`choose one of: ${WHAT.join(', ')}.`);
      return v;
    })
    .option('--json', 'print a JSON array, one object per item, for scripts')
    .action(async (what: (typeof WHAT)[number], flags: { json?: boolean }) => {
      const json = flags.json === true;
      const print = (items: object[], lines: () => string[]): void => {
        process.stdout.write(json ? printableJson(items) + '\n' : lines().map((l) => `${printable(l)}\n`).join(''));
      };
      if (what === 'destinations') return listDestinations({}, { json });
      if (what === 'ocr') {
        const engines = await describeOcrEngines();
        print(
          engines.map((e) => ({
            name: e.name,
            description: e.description,
            available: e.available,
            ...(e.available ? {} : { reason: e.reason ?? null }),
            languages: e.languages.map((code) => ({ code, name: languageName(code) })),
            ...(e.models ? { models: e.models } : {}),
          })),
          () =>
            engines.flatMap((e) => [
              `${e.name.padEnd(9)} ${e.description} (${e.available ? 'available' : `not available: ${e.reason ?? 'unknown reason'}`})`,
              ...(e.languages.length > 0 ? [`          languages: ${e.languages.map((l) => `${l} (${languageName(l)})`).join(', ')}`] : []),
              ...(e.models ?? []).map((m) => `          model: ${m.model} for ${m.languages.join(', ')}`),
            ]),
        );
        return;
      }
      if (what === 'pipelines') {
        const presets = Object.values(PRESETS);
        print(
          presets.map((p) => ({ name: p.name, description: p.description, steps: [...p.steps], target_dpi: p.targetDpi })),
          () => presets.map((p) => `${p.name.padEnd(9)} ${p.description}`),
        );
        return;
      }
      const exporters = listExports();
      print(
        exporters.map((e) => ({
          name: e.name,
          description: e.description,
          extension: e.extension,
          needs_ocr: e.needsOcr === true,
          options: Object.entries(e.options).map(([key, opt]) => ({ name: key, description: opt.description, ...(opt.values ? { values: [...opt.values] } : {}) })),
        })),
        () =>
          exporters.flatMap((e) => [
            `${e.name.padEnd(9)} ${e.description} → <name>${e.extension}`,
            ...Object.entries(e.options).map(([key, opt]) => `          :${key}=…${opt.values ? ` [${opt.values.join('|')}]` : ''}  ${opt.description}`),
          ]),
      );
    });
}
