/** A destination plugin's settings and secrets: shown, saved, checked, and carried to another computer (export/import). */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../../http/index.js';
import { exportSettings, exportWarnings, importSettings } from '../../plugins/index.js';
import { applySettings, secretsOf } from '../../settings/index.js';
import type { ConfigExportView, ConfigImportView, UnsavedSettings } from '../api-types.js';
import { checkView, settingsView as pluginSettingsView } from '../plugins.js';
import { schemas, slugParams } from '../schemas.js';
import type { GuiContext } from './context.js';

export function registerPluginSettingsRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { host, destinations } = ctx;
  app.get<{ Params: { slug: string } }>('/api/plugins/:slug/settings', { schema: { params: slugParams } }, async (request) =>
    pluginSettingsView(await destinations.usable(request.params.slug), host),
  );
  app.put<{
    Params: { slug: string };
    Body: { settings?: Record<string, string | number | boolean>; secrets?: Record<string, string>; forgetSecrets?: string[] };
  }>('/api/plugins/:slug/settings', { schema: { params: slugParams, ...schemas.pluginSettings } }, async (request) => {
    const d = await destinations.usable(request.params.slug);
    const { settings = {}, secrets = {}, forgetSecrets = [] } = request.body;
    for (const key of [...Object.keys(secrets), ...forgetSecrets]) {
      if (!d.descriptor.secretFields.some((f) => f.id === key)) throw httpError('bad_setting', `${d.descriptor.display} has no secret "${key}".`);
    }
    applySettings(
      d.descriptor,
      Object.entries(settings).map(([k, v]) => [k, String(v)] as const),
      host,
    );
    const store = secretsOf(d.slug, host);
    // An empty secret field means "keep the stored one": the page never has it to send back.
    for (const [key, value] of Object.entries(secrets)) if (value.trim() !== '') store.set(key, value);
    for (const key of forgetSecrets) store.delete(key);
    return pluginSettingsView(d, host);
  });
  // Check tests the values in the form (over the stored ones) and stores nothing: only Save stores.
  app.post<{ Params: { slug: string }; Body: UnsavedSettings | undefined }>(
    '/api/plugins/:slug/check',
    { schema: { params: slugParams, ...schemas.pluginCheck } },
    async (request) => {
      const d = await destinations.usable(request.params.slug);
      const form = request.body ?? {};
      return checkView(d, host, (detail) => request.log.info({ slug: request.params.slug, detail }, 'check'), {
        settings: form.settings ?? {},
        secrets: form.secrets ?? {},
      });
    },
  );
  app.post<{ Params: { slug: string }; Body: { withSecrets: boolean } }>(
    '/api/plugins/:slug/config/export',
    { schema: { params: slugParams, ...schemas.configExport } },
    async (request): Promise<ConfigExportView> => {
      const d = await destinations.usable(request.params.slug);
      const fileName = `${d.slug}-settings.json`;
      const { url, path } = await ctx.downloads.create(fileName);
      const report = exportSettings(d.descriptor, path, request.body.withSecrets, host);
      return {
        download: { url, fileName, bytes: (await stat(path)).size },
        settings: report.settings,
        secretsWritten: report.secretsWritten,
        secretsUnreadable: report.secretsUnreadable,
        secretsNotSet: report.secretsNotSet,
        warnings: request.body.withSecrets ? exportWarnings(report) : [],
      };
    },
  );
  app.post<{ Params: { slug: string }; Body: { content: string } }>(
    '/api/plugins/:slug/config/import',
    { schema: { params: slugParams, ...schemas.configImport } },
    async (request): Promise<ConfigImportView> => {
      const d = await destinations.usable(request.params.slug);
      const dir = await mkdtemp(join(ctx.sessionDir, 'staging', 'import-'));
      const path = join(dir, 'settings.json');
      try {
        await writeFile(path, request.body.content, { mode: 0o600 });
        const report = importSettings(d.descriptor, path, host);
        return { settings: report.settings, secrets: report.secrets };
      } catch (e) {
        // The bundle's path means nothing to the person who picked the file.
        if (e instanceof Error) e.message = e.message.split(path).join('The file');
        throw e;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
}
