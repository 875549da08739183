/**
 * Steps from outside the pipeline (a processor plugin), run after a built-in step. The pipeline knows them only by
 * name and place; running one is the caller's business (`ExtraStepRunner`, handed to the frame pool), so this folder
 * imports nothing of the plugin host. A step that fails leaves the page as it was, records why, and the page goes
 * on.
 */
import type { GrayImage } from '../imaging/index.js';
import type { FactValue, ProjectPage } from '../project/index.js';
import type { PageState } from './steps.js';

/** An added step: its name and the built-in step it follows. */
export interface ExtraStep {
  name: string;
  after: string;
}

/** What an added step is told about the page (the plugin API's `PageFacts`). */
export interface ExtraStepFacts {
  kind: 'gray' | 'bitonal';
  textScale?: { xHeightPx: number; linePitchPx: number };
  pageBox?: { x: number; y: number; width: number; height: number };
  plugins: Record<string, Record<string, FactValue>>;
}

/** The page handed to an added step: one grey channel. */
export interface ExtraStepPage {
  width: number;
  height: number;
  dpi: number;
  pixels: Uint8Array;
}

/** A failure hands the page's own pixels back when they crossed a thread (`original`): the page goes on with them. */
export type ExtraStepOutcome =
  { ok: true; image: ExtraStepPage; facts: Record<string, FactValue> } | { ok: false; message: string; detail?: string; original?: Uint8Array };

/** Runs an added step on one page; never rejects for the step's own faults. */
export type ExtraStepRunner = (name: string, page: ExtraStepPage, facts: ExtraStepFacts) => Promise<ExtraStepOutcome>;

/**
 * The facts of the page as it stands: its kind, its text's scale (the resolution estimate's measure, scaled to the
 * page's resolution now; nothing is measured again, which would cost a quarter of a second a page), the text area
 * after a crop.
 */
function factsOf(state: PageState, after: string): ExtraStepFacts {
  const scale = state.dpi / state.decisions.inputDpi.value;
  const rhythm =
    state.measuredText && Number.isFinite(scale) && scale > 0
      ? { xHeightPx: state.measuredText.xHeightPx * scale, linePitchPx: state.measuredText.linePitchPx * scale }
      : undefined;
  const crop = state.decisions.crop;
  const marginPx = crop ? Math.round((state.marginMm / 25.4) * state.dpi) : 0;
  const pageBox =
    after === 'crop' && crop && state.image.width > 2 * marginPx && state.image.height > 2 * marginPx
      ? {
          x: marginPx,
          y: marginPx,
          width: Math.min(crop.width, state.image.width) - 2 * marginPx,
          height: Math.min(crop.height, state.image.height) - 2 * marginPx,
        }
      : undefined;
  return {
    kind: state.kind === 'bitonal' ? 'bitonal' : 'gray',
    ...(rhythm ? { textScale: { xHeightPx: round2(rhythm.xHeightPx), linePitchPx: round2(rhythm.linePitchPx) } } : {}),
    ...(pageBox && pageBox.width > 0 && pageBox.height > 0 ? { pageBox } : {}),
    plugins: { ...(state.decisions.plugins ?? {}) },
  };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * Run the added steps that follow `after` on the page. A step's image replaces the page's (and the reading image is
 * kept only while the size stays); its facts are recorded under `decisions.plugins[name]`. A failed step records
 * `failed` with its sentence and leaves the page as it was.
 */
export async function runExtraSteps(
  state: PageState,
  after: string,
  extra: readonly ExtraStep[],
  run: ExtraStepRunner,
  timed: (name: string, work: () => Promise<void>) => Promise<void>,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const step of extra.filter((s) => s.after === after)) {
    await timed(step.name, async () => {
      const facts = factsOf(state, after);
      const page: ExtraStepPage = { width: state.image.width, height: state.image.height, dpi: state.dpi, pixels: state.image.data };
      const outcome = await run(step.name, page, facts);
      const recorded: NonNullable<ProjectPage['decisions']['plugins']> = { ...(state.decisions.plugins ?? {}) };
      if (!outcome.ok) {
        if (outcome.original) state.image = { ...state.image, data: outcome.original };
        recorded[step.name] = { failed: outcome.message };
        warnings.push(`${step.name} failed on this page and was left out: ${outcome.message}.`);
      } else {
        const image: GrayImage = { width: outcome.image.width, height: outcome.image.height, data: outcome.image.pixels };
        if ((image.width !== state.image.width || image.height !== state.image.height) && state.reading) state.reading = undefined;
        state.image = image;
        recorded[step.name] = outcome.facts;
      }
      state.decisions.plugins = recorded;
    });
  }
  return warnings;
}
