/**
 * What the page view says a step did to a page, in words a person can check against the picture.
 */
import type { ProjectPage } from '../project/index.js';

/**
 * Page curl is said to be flattened only when the correction moved the text by a distance one can see (half a
 * millimetre on the page): the dewarp step also "applies" sub-millimetre fits to the jitter of a flat page's lines.
 */
export const VISIBLE_CURL_MM = 0.5;

export function curlFlattened(decisions: ProjectPage['decisions']): boolean {
  const dewarp = decisions.dewarp;
  if (!dewarp?.applied) return false;
  // The step runs at the capture's resolution, before any upsampling.
  const dpi = decisions.inputDpi.value;
  return dpi > 0 && (dewarp.maxShiftPx / dpi) * 25.4 >= VISIBLE_CURL_MM;
}

/**
 * What each processor plugin step did to the page, in the order the steps ran: `despeckle: removed 41, maxSpeckPx 6`,
 * or `despeckle failed: …` where the page went on without it.
 */
export function pluginSteps(decisions: ProjectPage['decisions']): Array<{ step: string; failed?: string; facts: string }> {
  return Object.entries(decisions.plugins ?? {}).map(([step, facts]) => {
    if (typeof facts.failed === 'string') return { step, failed: facts.failed, facts: '' };
    return {
      step,
      facts: Object.entries(facts)
        .map(([name, value]) => `${name} ${String(value)}`)
        .join(', '),
    };
  });
}
