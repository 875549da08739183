/** Levenshtein distance between two strings, in UTF-16 code units (pass `Array.from` spreads' joins for letters). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** Plain digits as superscript figures (`"12"` → `"¹²"`), as a note call is printed; anything else is dropped. */
export function superscriptDigits(digits: string): string {
  return [...digits].map((d) => (/\d/.test(d) ? SUPERSCRIPTS[Number(d)] : '')).join('');
}

/** Superscript figures as plain digits (`"¹²"` → `"12"`); anything else is dropped. */
export function plainDigits(figures: string): string {
  return [...figures].map((f) => (SUPERSCRIPTS.includes(f) ? String(SUPERSCRIPTS.indexOf(f)) : '')).join('');
}
