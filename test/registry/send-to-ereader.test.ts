/**
 * send-to-ereader against a real SMTP server on loopback (`smtp-server`, with AUTH), installed
 * from the registry and run through the host's sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, truncateSync } from 'node:fs';
import { epubExporter } from '../../src/export/index.js';
import { viewSettings } from '../../src/settings/index.js';
import { writeProject } from '../export/epub-book.js';
import { bookSetters } from '../export/markdown-book.js';
import { drawSetter } from '../export/markdown-builder.js';
import { check, configure, expectPlainMessage, exportFile, install, onePagePdf, startedTogether, sendOne, tempDir, type Installation } from './helpers.js';
import { readMail, startSmtp, type SmtpPeer } from './smtp-server.js';

const USER = 'reader@example.org';
const APP_PASSWORD = 'abcd efgh ijkl mnop';
const DEVICE = 'my-device@kindle.example';

describe('send-to-ereader with a real SMTP server', () => {
  let smtp: SmtpPeer;
  let inst: Installation;

  beforeAll(async () => {
    await startedTogether([startSmtp({ [USER]: APP_PASSWORD }).then((s) => (smtp = s)), install('send-to-ereader').then((i) => (inst = i))]);
  });
  afterAll(async () => {
    await smtp?.stop();
    inst?.remove();
  });

  const setUp = (extra: Record<string, string> = {}, password = APP_PASSWORD): void =>
    configure(
      inst,
      { smtp_host: '127.0.0.1', smtp_port: String(smtp.port), smtp_security: 'none', smtp_user: USER, from_address: `Reader <${USER}>`, to_address: DEVICE, ...extra },
      { smtp_password: password },
    );

  it('checks the sign-in without sending anything', async () => {
    setUp();
    const sent = smtp.messages.length;
    const result = await check(inst);
    expect(result).toMatchObject({
      ok: true,
      message: `The mail server accepts the sign-in of ${USER}; mail reaches the e-reader only if ${USER} is on its approved-sender list.`,
    });
    expect(smtp.messages).toHaveLength(sent);
  });

  it('mails the file under the export name with the title as subject; success means accepted for delivery', async () => {
    setUp();
    const pdf = await onePagePdf('The Quiet Orchard');
    const result = await sendOne(inst, exportFile(inst, 'The Quiet Orchard.pdf', pdf), { title: 'The Quiet Orchard', authors: ['A. Gardener'] });
    expect(result).toMatchObject({
      ok: true,
      alreadyThere: false,
      message: `The mail with "The Quiet Orchard" was accepted for delivery; it reaches the e-reader only if ${USER} is on its approved-sender list.`,
    });
    expectPlainMessage(result, '250');
    expect(result.detail).toContain('250');
    const mail = smtp.messages.at(-1);
    expect(mail).toMatchObject({ from: USER, to: [DEVICE], user: USER });
    const read = readMail(mail?.raw ?? Buffer.alloc(0));
    expect(read.subject).toBe('The Quiet Orchard');
    expect(read.attachments).toHaveLength(1);
    expect(read.attachments[0]).toMatchObject({ filename: 'The Quiet Orchard.pdf', contentType: 'application/pdf' });
    expect(Buffer.compare(read.attachments[0].content, Buffer.from(pdf))).toBe(0);
  });

  it('mails an EPUB export as application/epub+zip, byte for byte', async () => {
    setUp();
    const dir = tempDir('quire-ereader-epub-');
    try {
      const pages = await Promise.all(bookSetters().map(async (setter) => ({ ocr: setter.page(), png: await drawSetter(setter) })));
      const book = await writeProject(dir, 'Pride and Prejudice', pages, { languages: ['eng'], extension: '.epub' });
      await epubExporter.write(book, {});
      const result = await sendOne(inst, { format: 'epub', path: book.path }, { title: 'Pride and Prejudice' });
      expect(result).toMatchObject({ ok: true, alreadyThere: false });
      const read = readMail(smtp.messages.at(-1)?.raw ?? Buffer.alloc(0));
      expect(read.subject).toBe('Pride and Prejudice');
      expect(read.attachments).toHaveLength(1);
      expect(read.attachments[0]).toMatchObject({ filename: 'Pride and Prejudice.epub', contentType: 'application/epub+zip' });
      expect(Buffer.compare(read.attachments[0].content, readFileSync(book.path))).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a non-ASCII title and file name intact, and sends the extra headers', async () => {
    setUp({ headers: 'X-Shelf: travel\nX-Sent-By: quire' });
    const name = 'Les Misérables — Tome I.md';
    await sendOne(inst, exportFile(inst, name, '# Les Misérables\n'), { title: 'Les Misérables — Tome I' });
    const read = readMail(smtp.messages.at(-1)?.raw ?? Buffer.alloc(0));
    expect(read.subject).toBe('Les Misérables — Tome I');
    expect(read.attachments.map((a) => [a.filename, a.contentType, a.content.toString('utf8')])).toEqual([[name, 'text/markdown', '# Les Misérables\n']]);
    expect(read.headers).toMatchObject({ 'x-shelf': 'travel', 'x-sent-by': 'quire' });
  });

  it('reports a refused password as the app-specific-password sentence, and mails nothing', async () => {
    setUp({}, 'my-usual-password');
    const sent = smtp.messages.length;
    const result = await sendOne(inst, exportFile(inst, 'Refused.pdf', await onePagePdf('Refused')), { title: 'Refused' });
    expect(result).toMatchObject({
      ok: false,
      kind: 'AUTH',
      message: `The mail server refused the sign-in of ${USER}; many providers (Gmail, iCloud, Outlook) need an app-specific password here, not your usual one.`,
    });
    expectPlainMessage(result, '535', 'Invalid username');
    expect(result.detail).toContain('535');
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'AUTH', message: result.message });
    expect(smtp.messages).toHaveLength(sent);
  });

  it('refuses a file over the ceiling before connecting, naming the limit and the size', async () => {
    setUp();
    const connections = smtp.connections;
    const big = exportFile(inst, 'Big Atlas.pdf', '');
    truncateSync(big.path, 52_000_000);
    const result = await sendOne(inst, big, { title: 'Big Atlas' });
    expect(result).toMatchObject({ ok: false, kind: 'CONFIG', message: 'Big Atlas.pdf is 49.6 MiB, more than the 47.7 MiB an e-reader mailbox accepts, so it was not sent.' });
    expect(smtp.connections).toBe(connections);
  });

  it('uses port 587 unless told otherwise', async () => {
    configure(inst, { smtp_host: '127.0.0.1', smtp_user: USER, from_address: USER, to_address: DEVICE }, { smtp_password: APP_PASSWORD });
    const port = viewSettings(inst.destination.descriptor, inst.host).find((s) => s.id === 'smtp_port');
    expect(port).toMatchObject({ value: 587, isDefault: true });
    const security = viewSettings(inst.destination.descriptor, inst.host).find((s) => s.id === 'smtp_security');
    expect(security).toMatchObject({ value: 'starttls', isDefault: true });
    // Whatever answers on this machine's port 587 (usually nothing), the attempt names it.
    const result = await check(inst);
    expect(result.detail).toMatch(/^127\.0\.0\.1:587 starttls/);
  });

  it('never signs in over a connection it was told to secure when the server cannot', async () => {
    setUp({ smtp_security: 'starttls' });
    const attempts = smtp.authAttempts;
    const result = await sendOne(inst, exportFile(inst, 'Plain Text.pdf', await onePagePdf('Plain')), { title: 'Plain Text' });
    expect(result).toMatchObject({ ok: false, kind: 'NETWORK' });
    expect(result.message).toBe(
      `No secure connection to the mail server 127.0.0.1:${smtp.port} could be set up; check the connection security (starttls for port 587, tls for 465).`,
    );
    expect(smtp.authAttempts).toBe(attempts);
  });

  it('checks the settings before connecting (CONFIG)', async () => {
    configure(inst, {});
    expect(await check(inst)).toMatchObject({
      ok: false,
      kind: 'CONFIG',
      message: "Send to e-reader is not set up yet: set Mail server (SMTP), SMTP user name, From address, E-reader's address, SMTP password.",
    });
    const connections = smtp.connections;
    setUp({ to_address: 'my device' });
    const result = await sendOne(inst, exportFile(inst, 'Nowhere.pdf', await onePagePdf('Nowhere')), { title: 'Nowhere' });
    expect(result).toMatchObject({ ok: false, kind: 'CONFIG', message: `The e-reader's address "my device" is not a mail address.` });
    // A port out of range is refused when it is set; the setting before it stays.
    expect(() => setUp({ smtp_port: '70000' })).toThrow('smtp_port must be a port number from 1 to 65535.');
    expect(viewSettings(inst.destination.descriptor, inst.host).find((s) => s.id === 'to_address')).toMatchObject({ value: 'my device' });
    expect(smtp.connections).toBe(connections);
  });
});
