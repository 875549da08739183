import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { cleanUploadName, fileSink, uploadType } from '../../src/server/forms.js';
import { parseRunOptions } from '../../src/server/job-routes.js';
import { withTempDir } from '../helpers.js';

describe('the upload file sink', () => {
  it('writes every byte of many small chunks, and never over an existing file', async () => {
    await withTempDir(async (dir) => {
      const data = randomBytes(300_000);
      const chunks = Array.from({ length: 300 }, (_, i) => data.subarray(i * 1000, (i + 1) * 1000));
      await pipeline(Readable.from(chunks), fileSink(`${dir}/a.part`, 64 * 1024));
      expect((await readFile(`${dir}/a.part`)).equals(data)).toBe(true);
      await writeFile(`${dir}/b.part`, 'taken');
      await expect(pipeline(Readable.from(chunks), fileSink(`${dir}/b.part`))).rejects.toThrow(/EEXIST/);
      expect(await readFile(`${dir}/b.part`, 'utf8')).toBe('taken');
    });
  });
});

describe('upload names and options', () => {
  it('keeps the file name alone, printable, and knows the three extensions', () => {
    expect(cleanUploadName('C:\\Users\\me\\Livre.PDF')).toBe('Livre.PDF');
    expect(cleanUploadName('../../x\u0000y.zip')).toBe('xy.zip');
    expect(cleanUploadName('')).toBe('upload');
    expect([uploadType('a.aglbundle'), uploadType('a.ZIP'), uploadType('a.pdf'), uploadType('a.tif'), uploadType('pdf')]).toEqual([
      'zip',
      'zip',
      'pdf',
      null,
      null,
    ]);
  });

  it('reads email_notif, ocr and dpi as a form sends them', () => {
    expect(parseRunOptions({})).toEqual({ emailNotif: false, ocr: null, dpi: null });
    expect(parseRunOptions({ email_notif: 'on', ocr: ' auto ', dpi: '150' })).toEqual({ emailNotif: true, ocr: 'auto', dpi: 150 });
    expect(parseRunOptions({ email_notif: 'FALSE', ocr: '' })).toEqual({ emailNotif: false, ocr: null, dpi: null });
  });
});
