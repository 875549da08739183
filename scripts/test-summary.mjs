// Prints the plain closing line 'tests: N passed, N failed' from vitest's JSON report.
import { readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.vitest-report.json';
try {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
} catch {
  console.log('tests: 0 passed, 1 failed');
  process.exitCode = 1;
}
