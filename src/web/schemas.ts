/**
 * JSON schemas of the app's routes: what a request may carry is checked at the boundary, as the
 * job server checks its own; anything else is refused with a 400 sentence before a handler runs.
 */
const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, missing: { type: 'array', items: { type: 'string' } } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;

export const errors = { '4xx': errorSchema, '5xx': errorSchema } as const;

export const idParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' } },
  required: ['id'],
} as const;

export const pageParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' }, index: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
  required: ['id', 'index'],
} as const;

export const wordParams = {
  type: 'object',
  properties: { ...pageParams.properties, n: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
  required: ['id', 'index', 'n'],
} as const;

export const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 64 } },
  required: ['slug'],
} as const;

const ocrEngine = { type: 'string', pattern: '^[a-z][a-z0-9-]{0,39}$' } as const;
const ocrLanguages = { type: 'string', pattern: '^[A-Za-z0-9+_-]{1,200}$' } as const;
const preset = { type: 'string', enum: ['auto', 'book', 'sheet', 'flat'] } as const;

export const schemas = {
  health: {
    response: { 200: { type: 'object', properties: { ok: { type: 'boolean' }, version: { type: 'string' } }, required: ['ok', 'version'] }, ...errors },
  },
  settings: {
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        preset,
        ocrEngine,
        ocrLanguages,
        remoteOcrKey: { type: 'string', maxLength: 4096 },
        exportFolder: { type: 'string', maxLength: 1000 },
        forgetRemoteOcrKey: { type: 'boolean' },
      },
    },
    response: errors,
  },
  rerun: {
    body: { type: 'object', additionalProperties: false, properties: { preset }, required: ['preset'] },
    response: errors,
  },
  ocr: {
    body: { type: 'object', additionalProperties: false, properties: { engine: ocrEngine, languages: ocrLanguages }, required: ['engine', 'languages'] },
    response: errors,
  },
  word: {
    body: {
      type: 'object',
      additionalProperties: false,
      properties: { text: { type: 'string', maxLength: 200 }, was: { type: 'string', maxLength: 10_000 }, restore: { type: 'boolean' } },
      required: ['was'],
    },
    response: errors,
  },
  page: {
    body: { type: 'object', additionalProperties: false, properties: { hidden: { type: 'boolean' } }, required: ['hidden'] },
    response: errors,
  },
  image: {
    querystring: { type: 'object', properties: { size: { type: 'string', enum: ['thumb', 'full'] }, v: { type: 'integer' }, token: { type: 'string' } } },
  },
  exportAsk: {
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        target: { type: 'string', pattern: '^(?:[a-z][a-z0-9-]{0,39}|send:[a-z0-9]+(?:-[a-z0-9]+)*)$' },
        options: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 }, maxProperties: 10 },
        as: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,39}$' },
        also: {
          type: 'array',
          maxItems: 10,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              target: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,39}$' },
              options: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 }, maxProperties: 10 },
            },
            required: ['target'],
          },
        },
      },
      required: ['target'],
    },
    response: errors,
  },
  pluginSettings: {
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        settings: {
          type: 'object',
          additionalProperties: { anyOf: [{ type: 'string', maxLength: 65536 }, { type: 'number' }, { type: 'boolean' }] },
          maxProperties: 100,
        },
        secrets: { type: 'object', additionalProperties: { type: 'string', maxLength: 65536 }, maxProperties: 100 },
        forgetSecrets: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 100 },
      },
    },
    response: errors,
  },
  /** Optional: a POST without a body installs as before. */
  pluginInstall: {
    body: { type: ['object', 'null'], additionalProperties: false, properties: { allowUnisolated: { type: 'boolean' } } },
    response: errors,
  },
  /** Optional: the values typed into the settings dialog, checked and never stored. */
  pluginCheck: {
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        settings: {
          type: 'object',
          additionalProperties: { anyOf: [{ type: 'string', maxLength: 65536 }, { type: 'number' }, { type: 'boolean' }] },
          maxProperties: 100,
        },
        secrets: { type: 'object', additionalProperties: { type: 'string', maxLength: 65536 }, maxProperties: 100 },
      },
    },
    response: errors,
  },
  configExport: {
    body: { type: 'object', additionalProperties: false, properties: { withSecrets: { type: 'boolean' } }, required: ['withSecrets'] },
    response: errors,
  },
  configImport: {
    body: { type: 'object', additionalProperties: false, properties: { content: { type: 'string', maxLength: 512 * 1024 } }, required: ['content'] },
    response: errors,
  },
} as const;
