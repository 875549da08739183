/** The person's dictionary: the words they added, read and replaced (Settings) and added one at a time (proofreading). */
import type { FastifyInstance } from 'fastify';
import { MAX_WORDS } from '../dictionary.js';
import type { GuiContext } from './context.js';

const wordsBody = {
  type: 'object',
  additionalProperties: false,
  properties: { words: { type: 'array', maxItems: MAX_WORDS, items: { type: 'string', maxLength: 200 } } },
  required: ['words'],
} as const;
const wordBody = {
  type: 'object',
  additionalProperties: false,
  properties: { word: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['word'],
} as const;

/** `GET`/`PUT /api/dictionary` (Settings) and `POST /api/dictionary/words` (Add to dictionary); every open document is counted again after each change. */
export function registerDictionaryRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { dictionary } = ctx;
  // A word added stops being marked in every open document at once.
  const changed = (): Promise<void> => ctx.documents.recount();
  app.get('/api/dictionary', async () => ({ words: dictionary.words() }));
  app.put<{ Body: { words: string[] } }>('/api/dictionary', { schema: { body: wordsBody } }, async (request) => {
    const words = await dictionary.replace(request.body.words);
    await changed();
    return { words };
  });
  app.post<{ Body: { word: string } }>('/api/dictionary/words', { schema: { body: wordBody } }, async (request) => {
    const words = await dictionary.add(request.body.word);
    await changed();
    return { words };
  });
}
