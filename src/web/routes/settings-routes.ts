/** The app's settings (export folder, OCR engine and languages, keys): read and saved. */
import type { FastifyInstance } from 'fastify';
import { schemas } from '../schemas.js';
import { saveGuiSettings, settingsView, type SettingsChange } from '../settings.js';
import type { GuiContext } from './context.js';

export function registerSettingsRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { host } = ctx;
  app.get('/api/settings', async () => settingsView(host.appData, host));
  app.put<{ Body: SettingsChange }>('/api/settings', { schema: schemas.settings }, async (request) => {
    const saved = await saveGuiSettings(host.appData, request.body, host);
    // Every window looks again: an engine may run now that its key is stored.
    ctx.send('settings', saved);
    return saved;
  });
}
