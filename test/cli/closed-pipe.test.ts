import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUIRE_BIN, runQuire, withTempDir, type RunResult } from '../helpers.js';

/** Run the built CLI with its stdout read by nobody: the reading end is closed before Quire prints its first line. */
function runIntoClosedPipe(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [QUIRE_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: '', stderr }));
  });
}

describe('output to a closed pipe', () => {
  it('ends quietly with exit 0 for every command that prints', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      const installed = await runQuire(['plugins', 'install', 'send-to-library'], { env });
      expect(installed.code).toBe(0);
      const commands = [
        ['plugins', 'list'],
        ['plugins', 'available'],
        ['plugins', 'config', 'send-to-library'],
        ['server', '--print-openapi'],
        ['config', 'show'],
        ['version'],
        ['--help'],
      ];
      for (const args of commands) {
        const r = await runIntoClosedPipe(args, env);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
      }
    });
  });
});
