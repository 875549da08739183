import { Command, InvalidArgumentError } from 'commander';
import { describeOcrEngines, languageName, listExports, listPagePlugins, PRESETS } from '../../convert/index.js';
import type { PagePluginEntry } from '../../plugins/index.js';
import { listDestinations } from './plugins.js';
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
        process.stdout.write(
          json
            ? printableJson(items) + '\n'
            : lines()
                .map((l) => `${printable(l)}\n`)
                .join(''),
        );
      };
      if (what === 'destinations') return listDestinations({}, { json });
      if (what === 'ocr') {
        const engines = await describeOcrEngines();
        const plugins = (await listPagePlugins('ocr')).filter((p) => !engines.some((e) => e.name === p.slug));
        print(
          [
            ...engines.map((e) => ({
              name: e.name,
              description: e.description,
              available: e.available,
              ...(e.available ? {} : { reason: e.reason ?? null }),
              languages: e.languages.map((code) => ({ code, name: languageName(code) })),
              ...(e.models ? { models: e.models } : {}),
            })),
            ...plugins.map((p) => ({ ...pluginJson(p), languages: (p.descriptor?.languages ?? []).map((code) => ({ code, name: code })) })),
          ],
          () => [
            ...engines.flatMap((e) => [
              `${e.name.padEnd(9)} ${e.description} (${e.available ? 'available' : `not available: ${e.reason ?? 'unknown reason'}`})`,
              ...(e.languages.length > 0 ? [`          languages: ${e.languages.map((l) => `${l} (${languageName(l)})`).join(', ')}`] : []),
              ...(e.models ?? []).map((m) => `          model: ${m.model} for ${m.languages.join(', ')}`),
            ]),
            ...plugins.flatMap((p) => [
              pluginLine(p),
              ...(p.descriptor?.languages && p.descriptor.languages.length > 0 ? [`          languages: ${p.descriptor.languages.join(', ')}`] : []),
            ]),
          ],
        );
        return;
      }
      if (what === 'pipelines') {
        const presets = Object.values(PRESETS);
        const steps = await listPagePlugins('processor');
        print(
          [
            ...presets.map((p) => ({ name: p.name, description: p.description, steps: [...p.steps], target_dpi: p.targetDpi })),
            ...steps.map((p) => ({ ...pluginJson(p), after: p.descriptor?.after ?? null })),
          ],
          () => [
            ...presets.map((p) => `${p.name.padEnd(9)} ${p.description}`),
            ...(steps.length > 0 ? ['steps from plugins (add with --steps +name):'] : []),
            ...steps.flatMap((p) => [
              pluginLine(p),
              ...(p.descriptor?.options ?? []).map(
                (f) => `          :${f.id}=${String(f.default)}  ${f.label}${typeof f.min === 'number' ? ` (${f.min}–${f.max ?? '…'})` : ''}`,
              ),
            ]),
          ],
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
          options: Object.entries(e.options).map(([key, opt]) => ({
            name: key,
            description: opt.description,
            ...(opt.values ? { values: [...opt.values] } : {}),
          })),
        })),
        () =>
          exporters.flatMap((e) => [
            `${e.name.padEnd(9)} ${e.description} → <name>${e.extension}`,
            ...Object.entries(e.options).map(([key, opt]) => `          :${key}=…${opt.values ? ` [${opt.values.join('|')}]` : ''}  ${opt.description}`),
          ]),
      );
    });
}

/** A page plugin as `--json` lists it: name, that it is a plugin, its state and its sandbox. */
function pluginJson(p: PagePluginEntry): object {
  return {
    name: p.slug,
    plugin: true,
    description: p.descriptor?.summary ?? p.manifest?.description ?? '',
    state: p.state,
    ...(p.state === 'refused' ? { reason: p.reason ?? null } : {}),
    ...(p.state === 'unaccepted' ? { trust: p.trust, accept: `quire plugins accept ${p.slug}` } : {}),
    sandbox: p.isolation ? (p.isolation.level === 'full' ? 'isolated' : 'partial') : null,
  };
}

/** One line: the name, "plugin", what it does, its sandbox, and whether it can run. */
function pluginLine(p: PagePluginEntry): string {
  const sandbox = p.isolation ? (p.isolation.level === 'full' ? 'sandboxed' : 'sandbox partial: no bubblewrap') : 'not sandboxed';
  const what = p.descriptor?.summary ?? p.manifest?.description ?? '';
  const state =
    p.state === 'usable'
      ? `plugin, ${sandbox}${p.descriptor?.after ? `, after ${p.descriptor.after}` : ''}`
      : p.state === 'unaccepted'
        ? `plugin, not run: ${p.trust === 'changed' ? 'changed since accepted' : 'not accepted'}; quire plugins accept ${p.slug}`
        : `plugin, refused: ${p.reason ?? ''}`;
  return `${p.slug.padEnd(9)} ${what} (${state})`;
}
