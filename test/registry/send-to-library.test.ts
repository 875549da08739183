/**
 * send-to-library against a real calibre content server (Debian's calibre-server), installed
 * from the registry and run through the host's sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { calibreInstalled, startCalibre, type CalibreServer, type CalibreUser } from './calibre-server.js';
import { sendExports } from '../../src/plugins/index.js';
import { check, configure, expectPlainMessage, exportFile, freePort, install, onePagePdf, peerMissing, sendOne, startedTogether, tempDir, type Installation } from './helpers.js';

const alice: CalibreUser = { name: 'alice', password: 'orchard-7' };
const reader: CalibreUser = { name: 'reader', password: 'look-only', readonly: true };
const bob: CalibreUser = { name: 'bob', password: 'basic-9' };

describe.skipIf(peerMissing('calibre-server', calibreInstalled(), 'apt-get install calibre'))('send-to-library with calibre-server', () => {
  let dir: string;
  let digest: CalibreServer;
  let basic: CalibreServer;
  let inst: Installation;

  beforeAll(async () => {
    dir = tempDir('quire-calibre-');
    await startedTogether([
      startCalibre(`${dir}/digest`, { users: [alice, reader], libraryName: 'My Books' }).then((s) => (digest = s)),
      startCalibre(`${dir}/basic`, { users: [bob], authMode: 'basic' }).then((s) => (basic = s)),
      install('send-to-library').then((i) => (inst = i)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([digest?.stop(), basic?.stop()]);
    inst?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const as = (user: CalibreUser, extra: Record<string, string> = {}, server = (): CalibreServer => digest): void =>
    configure(inst, { base_url: server().url, username: user.name, ...extra }, { password: user.password });

  it('checks sign-in and write access without adding a book', async () => {
    as(alice);
    const result = await check(inst);
    expect(result).toMatchObject({ ok: true, kind: null });
    expect(result.message).toBe('Signed in to the calibre server as alice, who may add books to the default library.');
    expect(await digest.findBooks('', alice)).toEqual([]);
  });

  it('adds a PDF as a book named by its title, found with /ajax/search; sent again it is already there', async () => {
    as(alice);
    const file = exportFile(inst, 'The Quiet Orchard.pdf', await onePagePdf('The Quiet Orchard'));
    const first = await sendOne(inst, file, { title: 'The Quiet Orchard', authors: ['A. Gardener'] });
    expect(first).toMatchObject({ ok: true, alreadyThere: false, kind: null, message: '"The Quiet Orchard" was added to the calibre library.' });
    expect(first.detail).toMatch(/book_id=\d+/);
    expect(await digest.findBooks('title:"=The Quiet Orchard"', alice)).toMatchObject([{ title: 'The Quiet Orchard' }]);

    const again = await sendOne(inst, file, { title: 'The Quiet Orchard', authors: ['A. Gardener'] });
    expect(again).toMatchObject({ ok: true, alreadyThere: true, message: '"The Quiet Orchard" is already in the calibre library, so it was not added again.' });
    expect(await digest.findBooks('title:"=The Quiet Orchard"', alice)).toHaveLength(1);
    // The raw body, never multipart: calibre read it as a PDF, whose format it lists.
    expect(digest.requestLines().filter((l) => l.includes('POST /cdb/add-book/'))).not.toHaveLength(0);
  });

  it('also takes Markdown', async () => {
    as(alice);
    const result = await sendOne(inst, exportFile(inst, 'Field Notes.md', '# Field Notes\n\nA page of notes.\n'), { title: 'Field Notes' });
    expect(result).toMatchObject({ ok: true, alreadyThere: false });
    expect(await digest.findBooks('title:"=Field Notes" and formats:MD', alice)).toHaveLength(1);
  });

  it('quotes every path segment, so a title with / and spaces cannot change the route', async () => {
    as(alice);
    const title = 'Crime / Punishment? 100% #1';
    const result = await sendOne(inst, exportFile(inst, 'Crime - Punishment.pdf', await onePagePdf('Crime')), { title });
    expect(result).toMatchObject({ ok: true, alreadyThere: false });
    const line = digest.requestLines().find((l) => l.includes('/cdb/add-book/') && l.includes('Crime'));
    expect(line).toContain('/n/Crime%20%2F%20Punishment%3F%20100%25%20%231.pdf/');
    // calibre makes the file name safe for its folder ("/" and "?" are not kept); the title is set again, intact.
    const [book] = await digest.findBooks('title:Punishment', alice);
    expect(book.title).toBe(title);
  });

  it('sends one document as pdf and md as one book with both formats, its title intact, / ? " and all', async () => {
    as(alice, { library_id: 'My Books' });
    // A plain title would do to show the one book; this one also shows the title arriving intact.
    const title = 'War / Peace? "Abridged" \\ 2';
    const files = [exportFile(inst, 'Export.pdf', await onePagePdf('Two')), exportFile(inst, 'Export.md', `# ${title}\n\nA page.\n`)];
    const first = await sendExports(files, [inst.slug], { title }, inst.host);
    expect(first.map((o) => o.result)).toMatchObject([
      { ok: true, alreadyThere: false, message: `"${title}" was added to the My_Books library.` },
      { ok: true, alreadyThere: false, message: `"${title}" as MD was added to its book in the My_Books library, which now has PDF, MD.` },
    ]);
    const query = `title:"=${title.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    expect(await digest.findBooks(query, alice)).toMatchObject([{ title, formats: ['md', 'pdf'] }]);
    // Sent again: both formats are already there, and it is still one book.
    const again = await sendExports(files, [inst.slug], { title }, inst.host);
    expect(again.map((o) => [o.result.ok, o.result.alreadyThere, o.result.message])).toEqual([
      [true, true, `"${title}" is already in the My_Books library, so it was not added again.`],
      [true, true, `"${title}" is already in the My_Books library, so it was not added again.`],
    ]);
    expect(await digest.findBooks(query, alice)).toHaveLength(1);
    // md first, then pdf: the same one book.
    const notes = [exportFile(inst, 'Notes First.md', '# Notes First\n'), exportFile(inst, 'Notes First.pdf', await onePagePdf('Notes'))];
    const outcomes = await sendExports(notes, [inst.slug], { title: 'Notes First', authors: ['A. Writer'] }, inst.host);
    expect(outcomes.map((o) => o.result.ok)).toEqual([true, true]);
    expect(await digest.findBooks('title:"=Notes First"', alice)).toMatchObject([{ title: 'Notes First', authors: ['A. Writer'], formats: ['md', 'pdf'] }]);
  });

  it('sends to the library named by its folder name, and names a library the user cannot open', async () => {
    as(alice, { library_id: 'My Books' });
    const result = await sendOne(inst, exportFile(inst, 'Second Shelf.pdf', await onePagePdf('Second')), { title: 'Second Shelf' });
    expect(result).toMatchObject({ ok: true, message: '"Second Shelf" was added to the My_Books library.' });
    expect(await digest.findBooks('title:"=Second Shelf"', alice)).toHaveLength(1);

    as(alice, { library_id: 'Elsewhere' });
    const checked = await check(inst);
    expect(checked).toMatchObject({ ok: false, kind: 'PERMISSION', message: 'The calibre user alice has no library "Elsewhere" on this server; it can open: My_Books.' });
    const sent = await sendOne(inst, exportFile(inst, 'Lost.pdf', await onePagePdf('Lost')), { title: 'Lost' });
    expect(sent).toMatchObject({ ok: false, kind: 'PERMISSION', message: 'The calibre user alice cannot open the library "Elsewhere"; check the library setting.' });
    expectPlainMessage(sent, '403', 'not allowed');
    expect(sent.detail).toContain('HTTP 403');
  });

  it('reports a wrong password as AUTH, the status only in the detail', async () => {
    configure(inst, { base_url: digest.url, username: 'alice' }, { password: 'wrong' });
    const checked = await check(inst);
    expect(checked).toMatchObject({ ok: false, kind: 'AUTH' });
    expect(checked.message).toMatch(/^The calibre server refused the user name or password of alice; check both/);
    expect(checked.message).toContain('nor whether digest or basic sign-in was expected');
    expect(checked.detail).toMatch(/^HTTP 401/);
    const sent = await sendOne(inst, exportFile(inst, 'Refused.pdf', await onePagePdf('Refused')), { title: 'Refused' });
    expect(sent).toMatchObject({ ok: false, kind: 'AUTH' });
    expectPlainMessage(sent, '401', 'Unauthorized');
    expect(await digest.findBooks('title:Refused', alice)).toEqual([]);
  });

  it('reports a read-only user as PERMISSION, and adds nothing', async () => {
    as(reader);
    const checked = await check(inst);
    expect(checked).toMatchObject({ ok: false, kind: 'PERMISSION', message: 'The calibre user reader may only read the library; give that user write access or use another one.' });
    const sent = await sendOne(inst, exportFile(inst, 'Read Only.pdf', await onePagePdf('Read only')), { title: 'Read Only' });
    expect(sent).toMatchObject({ ok: false, kind: 'PERMISSION' });
    expectPlainMessage(sent, '403', 'does not have permission');
    expect(sent.detail).toContain('does not have permission to make changes');
    expect(await digest.findBooks('title:"Read Only"', alice)).toEqual([]);
  });

  it('reports a server that is down as NETWORK', async () => {
    const port = await freePort();
    configure(inst, { base_url: `http://127.0.0.1:${port}`, username: 'alice' }, { password: alice.password });
    const checked = await check(inst);
    expect(checked).toMatchObject({ ok: false, kind: 'NETWORK', message: `The calibre server at http://127.0.0.1:${port} cannot be reached.` });
    expect(checked.detail).toContain('ECONNREFUSED');
    const sent = await sendOne(inst, exportFile(inst, 'Offline.pdf', await onePagePdf('Offline')), { title: 'Offline' });
    expect(sent).toMatchObject({ ok: false, kind: 'NETWORK' });
  });

  it('signs in with basic when the server runs with --auth-mode basic', async () => {
    as(bob, { auth_mode: 'basic' }, () => basic);
    expect(await check(inst)).toMatchObject({ ok: true });
    const sent = await sendOne(inst, exportFile(inst, 'Plain Sign-in.pdf', await onePagePdf('Basic')), { title: 'Plain Sign-in' });
    expect(sent).toMatchObject({ ok: true, alreadyThere: false });
    expect(await basic.findBooks('title:"=Plain Sign-in"', bob)).toHaveLength(1);
  });

  it('explains the 400 calibre gives basic sign-in on a digest server, and the reverse', async () => {
    as(alice, { auth_mode: 'basic' });
    const sent = await sendOne(inst, exportFile(inst, 'Wrong Method.pdf', await onePagePdf('Wrong')), { title: 'Wrong Method' });
    expect(sent).toMatchObject({
      ok: false,
      kind: 'AUTH',
      message: 'The calibre server signs in with digest, not basic: set the sign-in method (auth_mode) to digest, its default.',
    });
    expect(sent.detail).toMatch(/^HTTP 400 .*Unsupported authentication method/);
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'AUTH', message: sent.message });

    as(bob, {}, () => basic);
    expect(await check(inst)).toMatchObject({
      ok: false,
      kind: 'AUTH',
      message: 'The calibre server asks for basic sign-in: set the sign-in method (auth_mode) to basic, and use that only behind HTTPS.',
    });
  });

  it('checks the settings before any request (CONFIG)', async () => {
    configure(inst, {});
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'CONFIG', message: 'Send to library is not set up yet: set Server address, User name, Password.' });

    const before = digest.requestLines().length;
    // An address without its scheme is refused when it is set, and nothing is stored.
    expect(() => as(alice, { base_url: 'calibre.local:8080' })).toThrow('base_url must be an http or https URL such as https://example.org.');
    expect(await check(inst)).toMatchObject({ ok: false, kind: 'CONFIG', message: 'Send to library is not set up yet: set Server address, User name, Password.' });
    as(alice, { headers: 'X-Proxy-Token secret' });
    const sent = await sendOne(inst, exportFile(inst, 'Not Yet.pdf', await onePagePdf('Not yet')), { title: 'Not Yet' });
    expect(sent).toMatchObject({ ok: false, kind: 'CONFIG', message: 'The extra headers setting needs one "Name: value" per line.' });
    expect(sent.detail).toContain('line 1');
    expect(digest.requestLines()).toHaveLength(before);
  });
});
