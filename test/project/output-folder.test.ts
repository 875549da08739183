import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import {
  checkOutputFolder,
  distinctStems,
  fileSystemError,
  removeLeftovers,
  removeStaleWorkFolders,
  safeFileName,
  stageOutputs,
} from '../../src/project/index.js';
import { CAN_MOUNT, deepFolder, fillUp, withTempDir, withTmpfs } from '../helpers.js';

async function failure(work: Promise<unknown>): Promise<QuireError> {
  const error = await work.then(
    () => new Error('it worked, but it should have failed'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuireError);
  return error as QuireError;
}

/** The id of a process that has ended. */
/**
 * A process id no process has: above Linux's largest possible pid_max (2^22). A finished child's id would do only
 * until it is given out again, which on a busy machine (pid_max 32768, threads taking ids too) once came too soon.
 */
function deadPid(): number {
  return 2 ** 22 + 1;
}

describe('file-system failures, in one sentence', () => {
  it('names the path and the reason for each error the OS gives', async () => {
    const of = (code: string) => Object.assign(new Error(`${code}: something, open '/x'`), { code });
    expect((await fileSystemError(of('EACCES'), '/srv/out/Book.pdf')).message).toBe('Could not write /srv/out/Book.pdf: permission denied.');
    expect((await fileSystemError(of('EROFS'), '/srv/out/Book.pdf')).message).toBe('Could not write /srv/out/Book.pdf: the file system is read-only.');
    expect((await fileSystemError(of('ENAMETOOLONG'), '/srv/out/Book.pdf')).message).toBe(
      'Could not write /srv/out/Book.pdf: the name is too long for the file system.',
    );
    expect((await fileSystemError(of('EISDIR'), '/srv/out/Book.md')).message).toBe('Could not write /srv/out/Book.md: a folder has that name.');
    expect((await fileSystemError(of('ENOSPC'), '/', { needed: 3 << 20 })).message).toMatch(
      /^Could not write \/: no space is left on the device \(\d+(\.\d)? (bytes|KiB|MiB|GiB) free, about 3\.0 MiB needed\)\.$/,
    );
    const error = await fileSystemError(of('EPERM'), '/srv/out', { action: 'create-folder' });
    expect(error.message).toBe('Could not create the folder /srv/out: permission denied.');
    expect(error.code).toBe(ERROR_CODES.OUTPUT);
    expect(error.detail).toContain('EPERM');
  });

  it('names the file that stands where a folder should be', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'notes.txt');
      await writeFile(file, 'hello');
      const error = await failure(checkOutputFolder(join(file, 'out', 'deeper')));
      expect(error.message).toBe(`Could not create the folder ${join(file, 'out', 'deeper')}: ${file} is a file, not a folder.`);
      const same = await failure(checkOutputFolder(file));
      expect(same.message).toBe(`Could not create the folder ${file}: ${file} is a file, not a folder.`);
    });
  });
});

describe('checkOutputFolder', () => {
  it('creates the folder, leaves nothing of its probe, and removes the staging folders of dead runs only, once they are old', async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, 'a', 'b');
      await mkdir(out, { recursive: true });
      const dead = deadPid();
      const stale = join(out, `.quire-${dead}-0badcafe`);
      // Just made: on a shared folder it may be another machine's run, whose process ids mean nothing here.
      const recent = join(out, `.quire-${dead}-0000beef`);
      const live = join(out, `.quire-${process.pid}-00c0ffee`);
      const mine = join(out, '.quire-notes');
      for (const d of [stale, recent, live, mine]) mkdirSync(d);
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      for (const d of [stale, live, mine]) utimesSync(d, twoHoursAgo, twoHoursAgo);
      const checked = await checkOutputFolder(out, { longestName: 40, needed: 1024 });
      expect(checked.dir).toBe(out);
      expect(checked.maxNameBytes).toBeGreaterThanOrEqual(40);
      expect(readdirSync(out).sort()).toEqual(['.quire-notes', `.quire-${dead}-0000beef`, `.quire-${process.pid}-00c0ffee`].sort());
      const fresh = join(dir, 'new', 'folder');
      await checkOutputFolder(fresh);
      expect(readdirSync(fresh)).toEqual([]);
    });
  });

  it('finds how long a name may be where the path reaches the system limit, and refuses a folder where none fits', async () => {
    await withTempDir(async (dir) => {
      const deep = deepFolder(dir, 4000);
      const checked = await checkOutputFolder(deep, { longestName: 120 });
      expect(checked.maxNameBytes).toBeLessThan(120);
      expect(checked.maxNameBytes).toBeGreaterThanOrEqual(16);
      // A name that long, with the temporary suffix an export adds, can indeed be written there.
      const staged = await stageOutputs(deep);
      const name = 'n'.repeat(checked.maxNameBytes);
      writeFileSync(`${staged.pathFor(join(deep, name))}.${process.pid}.0123abcd.tmp`, 'x');
      await staged.discard();
      const deeper = deepFolder(dir, 4080);
      const error = await failure(checkOutputFolder(deeper, { longestName: 30 }));
      expect(error.message).toBe(`Could not write ${deeper}: the name is too long for the file system.`);
    });
  });

  it.skipIf(!CAN_MOUNT)('refuses a full file system before any work, with the free space and what is needed', async () => {
    await withTmpfs('64k', async (mnt) => {
      const error = await failure(checkOutputFolder(join(mnt, 'out'), { needed: 5 << 20 }));
      expect(error.message).toMatch(new RegExp(`^Not enough space in ${mnt}/out: \\d+\\.\\d KiB free, about 5\\.0 MiB needed\\.$`));
      // Filled up to the last byte, even the probe cannot be written: the same reason, in the OS's terms.
      fillUp(mnt);
      const full = await failure(checkOutputFolder(join(mnt, 'out')));
      expect(full.message).toBe(`Could not write ${mnt}/out: no space is left on the device (0 bytes free).`);
    });
  });

  it.skipIf(!CAN_MOUNT)('refuses a read-only file system and an immutable folder, naming the reason', async () => {
    await withTmpfs(
      '64k',
      async (mnt) => {
        const error = await failure(checkOutputFolder(join(mnt, 'out')));
        expect(error.message).toBe(`Could not create the folder ${mnt}/out: the file system is read-only.`);
      },
      { readOnly: true },
    );
    await withTmpfs('256k', async (mnt) => {
      const locked = join(mnt, 'locked');
      mkdirSync(locked);
      execFileSync('chattr', ['+i', locked]);
      try {
        const error = await failure(checkOutputFolder(locked));
        expect(error.message).toBe(`Could not write ${locked}: permission denied.`);
      } finally {
        execFileSync('chattr', ['-i', locked]);
      }
    });
  });
});

describe('staged outputs', () => {
  it('replace earlier files only when committed; discarded, they leave the folder as it was', async () => {
    await withTempDir(async (dir) => {
      const pdf = join(dir, 'Book.pdf');
      const md = join(dir, 'Book.md');
      writeFileSync(pdf, 'old pdf');
      const discarded = await stageOutputs(dir);
      writeFileSync(discarded.pathFor(pdf), 'new pdf');
      writeFileSync(discarded.pathFor(md), 'new md');
      expect(readFileSync(pdf, 'utf8')).toBe('old pdf');
      await discarded.discard();
      expect(readdirSync(dir)).toEqual(['Book.pdf']);
      expect(readFileSync(pdf, 'utf8')).toBe('old pdf');

      const committed = await stageOutputs(dir);
      writeFileSync(committed.pathFor(pdf), 'new pdf');
      writeFileSync(committed.pathFor(md), 'new md');
      await committed.commit();
      expect(readdirSync(dir).sort()).toEqual(['Book.md', 'Book.pdf']);
      expect(readFileSync(pdf, 'utf8')).toBe('new pdf');
    });
  });

  it('moves nothing when a folder stands where one of the files goes', async () => {
    await withTempDir(async (dir) => {
      const pdf = join(dir, 'Book.pdf');
      writeFileSync(pdf, 'old pdf');
      const staged = await stageOutputs(dir);
      writeFileSync(staged.pathFor(pdf), 'new pdf');
      writeFileSync(staged.pathFor(join(dir, 'Book.md')), 'new md');
      mkdirSync(join(dir, 'Book.md'));
      const error = await failure(staged.commit());
      expect(error.message).toBe(`Could not write ${join(dir, 'Book.md')}: a folder has that name.`);
      expect(readFileSync(pdf, 'utf8')).toBe('old pdf');
      expect(readdirSync(dir).sort()).toEqual(['Book.md', 'Book.pdf']);
      expect(statSync(join(dir, 'Book.md')).isDirectory()).toBe(true);
    });
  });

  it('puts earlier files back when a move fails half-way', async () => {
    await withTempDir(async (dir) => {
      const first = join(dir, 'Book.pdf');
      const second = join(dir, 'Book.txt');
      writeFileSync(first, 'old pdf');
      const staged = await stageOutputs(dir);
      writeFileSync(staged.pathFor(first), 'new pdf');
      // The second file was never written: its move fails after the first one was made.
      staged.pathFor(second);
      await failure(staged.commit());
      expect(readFileSync(first, 'utf8')).toBe('old pdf');
      expect(readdirSync(dir)).toEqual(['Book.pdf']);
    });
  });
});

describe('names', () => {
  it('keeps file names within 200 bytes without cutting a character, and drops control characters', () => {
    const long = safeFileName('Ü'.repeat(140));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(200);
    expect(long).toBe('Ü'.repeat(100));
    expect(safeFileName('𝔘'.repeat(60))).toBe('𝔘'.repeat(50));
    expect(safeFileName('Evil\x1b]0;title\x07\u009b2J name')).toBe('Evil_]0;title_2J name');
  });

  it('makes the names of one run distinct, and shortens them to a limit', () => {
    expect(distinctStems(['Book', 'Book', 'book', 'Other'], ['.pdf', '.md'])).toEqual(['Book', 'Book (2)', 'book (3)', 'Other']);
    // "A.md" and "A.md.pdf"/"A.pdf" do not clash; "X_OCR" + ".textpack" only clashes with the same file.
    expect(distinctStems(['A', 'A.md'], ['.pdf', '.md'])).toEqual(['A', 'A.md']);
    const short = distinctStems(['Éléments de géométrie', 'Éléments de géométrie'], ['.pdf'], 16);
    expect(short).toEqual(['Éléments d', 'Élémen (2)']);
    for (const s of short) expect(Buffer.byteLength(`${s}.pdf`)).toBeLessThanOrEqual(16);
  });
});

describe('leftovers of killed runs', () => {
  it('removes working folders whose process is gone, and only those', async () => {
    await withTempDir(async (dir) => {
      const dead = join(dir, `quire-project-${deadPid()}-AbC123`);
      const alive = join(dir, `quire-project-${process.pid}-XyZ789`);
      const parent = join(dir, `quire-input-${process.ppid}-QqQqQq`);
      const other = join(dir, 'quire-project-notours');
      for (const d of [dead, alive, parent, other]) mkdirSync(d);
      writeFileSync(join(dead, 'page.tif'), 'pixels');
      expect(await removeStaleWorkFolders(dir)).toEqual([dead]);
      expect(existsSync(dead)).toBe(false);
      for (const d of [alive, parent, other]) expect(existsSync(d)).toBe(true);
      expect(await removeLeftovers(join(dir, 'missing'), /^(\d+)$/)).toEqual([]);
    });
  });
});
