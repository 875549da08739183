/** Character error rate: edit distance between texts, over the reference's length; whitespace runs count as one space. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j] + 1, current[j - 1] + 1));
    }
    previous = current;
  }
  return previous[y.length];
}

export function cer(reference: string, hypothesis: string): number {
  const ref = normalizeText(reference);
  return editDistance(ref, normalizeText(hypothesis)) / Math.max(1, [...ref].length);
}
