import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire } from '../helpers.js';
import { FakeEngine } from './fake-engine.js';
import { testServer, type TestServer } from './helpers.js';

interface Operation {
  summary?: string;
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; webhooks: Record<string, unknown>; info: { version: string } };

let t: TestServer;
let doc: Document;

beforeAll(async () => {
  t = await testServer({ engine: new FakeEngine() });
  const res = await t.server.app.inject({ url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  doc = res.json<Document>();
});

afterAll(async () => {
  await t.close();
});

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route of the server, each with a summary', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        'GET /health',
        'GET /metrics',
        'GET /openapi.json',
        'POST /run',
        'GET /list',
        'GET /check/{job_id}',
        'GET /get/{job_id}',
        'GET /download/{job_id}/{kind}',
        'POST /cancel/{job_id}',
        'POST /delete/{job_id}',
        'GET /admin',
        'POST /admin/keys',
        'POST /admin/keys/{key_id}/revoke',
        'POST /admin/logout',
      ].sort(),
    );
    for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) expect(op.summary).toBeTruthy();
  });

  it('gives every status its body: the error statuses the {"error":{code,message}} object, the answers theirs', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => /^[23]/.test(s)),
          `${method} ${path}`,
        ).toBe(true);
        for (const [status, response] of Object.entries(op.responses)) {
          expect(response.description, `${method} ${path} ${status}`).toBeTruthy();
          // A redirect and "not modified" have no body.
          if (status === '303' || status === '304') continue;
          const [media] = Object.values(response.content ?? {});
          expect(media?.schema, `${method} ${path} ${status}`).toBeDefined();
          // An error answers JSON (the admin page also a page for a browser).
          if (Number(status) >= 400 && path !== '/health') {
            expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toMatchObject({
              type: 'object',
              required: ['error'],
              properties: { error: { required: ['code', 'message'] } },
            });
          }
        }
      }
    }
    // The answers the job routes give, field by field.
    const check = doc.paths['/check/{job_id}'].get.responses['200'].content!['application/json'].schema as {
      properties: Record<string, { properties?: object }>;
    };
    expect(Object.keys(check.properties.progress.properties!)).toEqual(['pages_done', 'pages_total', 'step']);
    expect(doc.paths['/run'].post.responses['507'].description).toContain('disk_full');
  });

  it('documents the webhook the server posts when a job ends, with its signature header', () => {
    expect(doc.webhooks).toMatchObject({
      jobEnded: {
        post: {
          parameters: [{ name: 'x-quire-signature', in: 'header' }],
          requestBody: { content: { 'application/json': { schema: { required: ['job_id', 'status', 'error', 'pdf_url', 'md_url'] } } } },
        },
      },
    });
  });

  it('is what `quire server --print-openapi` prints, without starting a server', async () => {
    const printed = await runQuire(['server', '--print-openapi'], { env: { QUIRE_HOME: t.dir } });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(doc);
  });
});
