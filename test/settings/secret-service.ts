/**
 * A real Secret Service for tests: a private D-Bus session bus and gnome-keyring-daemon on it,
 * with a fresh login keyring in a temporary folder, unlocked. Nothing touches the user's own
 * keyring or session bus.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SecretServiceSession {
  /** The bus address; put it in `DBUS_SESSION_BUS_ADDRESS`. */
  address: string;
  stop(): void;
}

/** Which programs a Secret Service session needs and are missing here. */
export function missingSecretServicePrograms(): string[] {
  return ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'].filter((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0);
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('dbus-daemon did not print its address')), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, newline).trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
  });
}

/** Start the bus and the keyring daemon; resolves once the daemon is up and unlocked. */
export async function startSecretService(): Promise<SecretServiceSession> {
  const home = mkdtempSync(join(tmpdir(), 'quire-keyring-'));
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', '--nopidfile'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await firstLine(bus, 60_000);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: home,
    DBUS_SESSION_BUS_ADDRESS: address,
  };
  // --unlock reads the new login keyring's password from standard input.
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  keyring.stdin?.end('test-password');
  const stop = (): void => {
    if (keyring.exitCode === null) keyring.kill('SIGTERM');
    if (bus.exitCode === null) bus.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  };
  // Wait until the service answers on the bus (it registers a moment after starting).
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const probe = spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      ],
      {
        env,
        encoding: 'utf8',
      },
    );
    if (/boolean true/.test(probe.stdout ?? '')) return { address, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  stop();
  throw new Error('gnome-keyring-daemon did not come up on the test bus');
}
