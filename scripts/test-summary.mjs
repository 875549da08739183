// Prints the plain closing line 'tests: N passed, N failed' from vitest's JSON reports (one or several runs, summed).
import { readFileSync } from 'node:fs';

const paths = process.argv.length > 2 ? process.argv.slice(2) : ['.vitest-report.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const path of paths) {
  try {
    const report = JSON.parse(readFileSync(path, 'utf8'));
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A suite whose setup failed fails no single test: count it, so the line never reads "0 failed" then.
    failed += report.numFailedTests + (report.numFailedTests === 0 ? (report.numFailedTestSuites ?? 0) : 0);
    passed += report.numPassedTests;
  } catch {
    // A run that left no report (its install failed, say) is a failure, never silence.
    failed += 1;
    process.exitCode = 1;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
