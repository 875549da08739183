/**
 * What the web app's route groups share, built once by `createGuiApp`: the plugin host, the documents, the
 * person's dictionary, the event streams and the session's downloads.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ResolvedHostOptions } from '../../plugins/index.js';
import type { UserDictionary } from '../dictionary.js';
import type { DocumentStore } from '../documents.js';
import type { DestinationCache } from '../plugins.js';
import type { FolderOpener } from '../system-open.js';

export interface GuiContext {
  host: ResolvedHostOptions;
  /** Plugin registry folder or URL. */
  registry: string;
  /** Where downloads and staging of this session go. */
  sessionDir: string;
  documents: DocumentStore;
  dictionary: UserDictionary;
  destinations: DestinationCache;
  /** The installed destinations, their names noted for `words`. */
  knownDestinations(): Promise<Awaited<ReturnType<DestinationCache['all']>>>;
  /** A message in the window's words (plugins named as the Plugins tab names them). */
  words(message: string): string;
  /** Every open page's event stream. */
  streams: Set<ServerResponse>;
  /** Tell every open page of a change. */
  send(event: string, data: unknown): void;
  downloads: Downloads;
  /** Shows a folder in the file manager (Open folder). */
  openFolder: FolderOpener;
}

/** Whether a request comes from this computer: Open folder shows a folder only to a window on it. */
export function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1' || ip.startsWith('127.');
}

/** The files the page may download in this session, each under an address of its own. */
export class Downloads {
  private readonly files = new Map<string, { path: string; fileName: string }>();

  constructor(private readonly sessionDir: string) {}

  /** A file the page may download once it knows the address: each in a folder of its own, under its own name. */
  async create(fileName: string): Promise<{ url: string; path: string }> {
    const id = randomBytes(9).toString('base64url');
    const dir = join(this.sessionDir, 'downloads', id);
    await mkdir(dir, { recursive: true });
    const path = join(dir, fileName);
    this.files.set(id, { path, fileName });
    return { url: `/api/downloads/${id}`, path };
  }

  /** A file written elsewhere (the export folder), offered for download where it is. */
  offer(path: string, fileName: string): string {
    const id = randomBytes(9).toString('base64url');
    this.files.set(id, { path, fileName });
    return `/api/downloads/${id}`;
  }

  get(id: string): { path: string; fileName: string } | undefined {
    return this.files.get(id);
  }
}
