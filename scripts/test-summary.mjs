// Prints the plain closing line 'tests: N passed, N failed' from vitest's JSON report.
import { readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.vitest-report.json';
try {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite whose setup failed fails no single test: count it, so the line never reads "0 failed" then.
  const failed = report.numFailedTests + (report.numFailedTests === 0 ? report.numFailedTestSuites ?? 0 : 0);
  console.log(`tests: ${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
} catch {
  console.log('tests: 0 passed, 1 failed');
  process.exitCode = 1;
}
