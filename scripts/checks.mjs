// The checks `npm test` runs before vitest, in two lanes side by side (each step is mostly single-threaded, so on two
// cores the lanes take about as long as the longer one): `npm run lint`, and `npm run typecheck` then the build.
// The typecheck covers src/ and test/ with the build's compiler options, so the build after it emits without checking
// src/ a second time (`tsc --noCheck`; the same files as `npm run build`). A lane's output is printed when it ends, so
// the two never interleave; the exit code is the first failure's.
import { spawn } from 'node:child_process';

const lanes = [['npm run --silent lint'], ['npm run --silent typecheck', 'npm run --silent build:unchecked']];

/** Run the steps one after another; stop at the first that fails. */
async function lane(steps) {
  let out = '';
  for (const step of steps) {
    out += `> ${step}\n`;
    const code = await new Promise((resolve) => {
      const child = spawn(step, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (c) => resolve(c ?? 1));
    });
    if (code !== 0) return { out, code };
  }
  return { out, code: 0 };
}

const results = await Promise.all(
  lanes.map(async (steps) => {
    const result = await lane(steps);
    process.stdout.write(result.out);
    return result.code;
  }),
);
process.exitCode = results.find((code) => code !== 0) ?? 0;
