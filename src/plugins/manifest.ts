/** The plugin manifest `quire-plugin.toml`: read and checked before any plugin code is touched. */
import { parse, TomlError } from 'smol-toml';
import { API_VERSION } from '../plugin-api/index.js';
import { SLUG_PATTERN } from '../settings/index.js';

/** The manifest's file name in a plugin directory. */
export const MANIFEST_FILE = 'quire-plugin.toml';

/** A checked `quire-plugin.toml`. */
export interface PluginManifest {
  slug: string;
  /** Human name ("Send to library"). */
  name: string;
  version: string;
  /** The module file, relative to the plugin directory (`plugin.mjs`). */
  entry: string;
  /** One line, optional. */
  description: string;
  requires: { api: number };
  /** What it is: a destination (the default), a pipeline step, or an OCR engine. */
  kind: PluginKind;
  /**
   * What the plugin declares it does. `network`: it talks to a server (Node 20's permission
   * model cannot confine the network, so this is shown, not enforced).
   */
  capabilities: { network: boolean; tesseract: boolean };
}

/** The three plugin kinds, as `kind` in the manifest. */
export const PLUGIN_KINDS = ['destination', 'processor', 'ocr'] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/** Why a manifest was refused: `message` completes "refused: …" for the user. */
export class ManifestError extends Error {
  readonly detail: string;
  constructor(message: string, detail = '') {
    super(message);
    this.name = 'ManifestError';
    this.detail = detail;
  }
}

const PLAIN_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.(?:mjs|js)$/;

function text(table: Record<string, unknown>, key: string, required: boolean): string {
  const value = table[key];
  if (value === undefined && !required) return '';
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    throw new ManifestError(`its ${MANIFEST_FILE} needs "${key}" as a non-empty text`);
  }
  return value.trim();
}

function table(value: unknown, key: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ManifestError(`its ${MANIFEST_FILE} has "${key}" but it is not a [${key}] table`);
  return value as Record<string, unknown>;
}

/**
 * Parse and check a manifest's text. `directoryName` is the plugin's directory, which decides the
 * slug: a manifest naming another slug is refused. A `requires.api` other than ours is refused
 * naming both numbers. Throws {@link ManifestError}.
 */
export function parseManifest(source: string, directoryName: string): PluginManifest {
  let doc: Record<string, unknown>;
  try {
    doc = parse(source) as Record<string, unknown>;
  } catch (e) {
    const where = e instanceof TomlError ? ` (line ${e.line})` : '';
    throw new ManifestError(`its ${MANIFEST_FILE} is not valid TOML${where}`, e instanceof Error ? e.message : String(e));
  }
  const slug = text(doc, 'slug', true);
  if (!SLUG_PATTERN.test(slug)) throw new ManifestError(`its slug "${slug}" must be lower-case letters and digits joined by single hyphens`);
  if (slug !== directoryName) {
    throw new ManifestError(
      `its manifest names the slug "${slug}" but it sits in the directory "${directoryName}"; the directory decides, so rename one to match`,
    );
  }
  const requires = table(doc.requires, 'requires');
  const api = requires.api;
  if (typeof api !== 'number' || !Number.isInteger(api)) throw new ManifestError(`its ${MANIFEST_FILE} needs [requires] api as a whole number`);
  if (api !== API_VERSION) throw new ManifestError(`it needs plugin API ${api}, and this Quire provides plugin API ${API_VERSION}`);
  const entry = text(doc, 'entry', true);
  if (!PLAIN_FILE.test(entry)) throw new ManifestError(`its entry "${entry}" must be one .mjs or .js file in the plugin's directory`);
  const capabilities = table(doc.capabilities, 'capabilities');
  for (const key of ['network', 'tesseract'] as const) {
    if (capabilities[key] !== undefined && typeof capabilities[key] !== 'boolean') throw new ManifestError(`its [capabilities] ${key} must be true or false`);
  }
  const kind = doc.kind ?? 'destination';
  if (!(PLUGIN_KINDS as readonly unknown[]).includes(kind)) throw new ManifestError(`its kind must be one of ${PLUGIN_KINDS.join(', ')}`);
  return {
    slug,
    kind: kind as PluginKind,
    name: text(doc, 'name', true),
    version: text(doc, 'version', true),
    entry,
    description: text(doc, 'description', false),
    requires: { api },
    capabilities: { network: capabilities.network === true, tesseract: capabilities.tesseract === true },
  };
}
