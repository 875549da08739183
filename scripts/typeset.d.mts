/** mulberry32: a small seeded PRNG, uniform in [0, 1), so the same seed gives the same sequence. */
export function prng(seed: number): () => number;
