import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import { createErrorHandler, HttpError } from '../../src/http/index.js';

const app = Fastify({ logger: false });
app.setErrorHandler(createErrorHandler({ internal: 'Something broke here.', tooLarge: 'Too big here.', rateLimited: 'Slow down here.' }));
const routes: Record<string, () => never> = {
  'bad-pdf': () => {
    throw new QuireError(ERROR_CODES.BAD_PDF, 'book.pdf is not a readable PDF: it has no pages.', 'pdf.js said: /tmp/x/y');
  },
  'bad-zip': () => {
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, 'book.zip is not a readable scan bundle.');
  },
  cancelled: () => {
    throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
  },
  'ocr-down': () => {
    throw new QuireError(ERROR_CODES.REMOTE_OCR_FAILED, 'The OCR service did not answer.');
  },
  internal: () => {
    throw new QuireError(ERROR_CODES.INTERNAL, 'Worker crashed at /srv/quire/jobs/1/input.zip.');
  },
  unexpected: () => {
    throw new TypeError("Cannot read properties of undefined (reading 'pages')");
  },
  refused: () => {
    throw new HttpError(409, 'not_set_up', 'Calibre is not set up yet; it needs URL.', ['URL']);
  },
};
for (const [path, handler] of Object.entries(routes)) app.get(`/${path}`, handler);
app.post('/form', { schema: { body: { type: 'object', required: ['name'] } } }, () => 'ok');
afterAll(() => app.close());

async function answer(path: string): Promise<{ status: number; body: unknown }> {
  const res = await app.inject({ url: `/${path}` });
  return { status: res.statusCode, body: res.json() };
}

describe('the shared HTTP error vocabulary', () => {
  it('answers a bad input with a 4xx and its own sentence, never a 500', async () => {
    expect(await answer('bad-pdf')).toEqual({ status: 400, body: { error: { code: 'bad_pdf', message: 'book.pdf is not a readable PDF: it has no pages.' } } });
    expect(await answer('bad-zip')).toEqual({ status: 400, body: { error: { code: 'bad_archive', message: 'book.zip is not a readable scan bundle.' } } });
    expect(await answer('cancelled')).toEqual({ status: 409, body: { error: { code: 'cancelled', message: 'The conversion was cancelled.' } } });
  });

  it('answers a failed peer with 502 and its sentence, a fault of ours with 500 and no internals', async () => {
    expect(await answer('ocr-down')).toEqual({ status: 502, body: { error: { code: 'remote_ocr_failed', message: 'The OCR service did not answer.' } } });
    expect(await answer('internal')).toEqual({ status: 500, body: { error: { code: 'internal', message: 'Something broke here.' } } });
    expect(await answer('unexpected')).toEqual({ status: 500, body: { error: { code: 'internal', message: 'Something broke here.' } } });
  });

  it('answers a route’s own refusal as it was thrown, and a request that fails its schema with 400', async () => {
    expect(await answer('refused')).toEqual({
      status: 409,
      body: { error: { code: 'not_set_up', message: 'Calibre is not set up yet; it needs URL.', missing: ['URL'] } },
    });
    const res = await app.inject({ method: 'POST', url: '/form', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'bad_request', message: expect.stringMatching(/^The request is not valid: .*name.*\.$/) } });
  });
});
