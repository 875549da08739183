/// <reference lib="dom" />
/**
 * Before a file is sent: one Quire cannot open (told by its first bytes and its name) or one larger than it takes
 * is refused here, at once, rather than after the whole of it has crossed to the server.
 */
import { mayOpen, MAX_UPLOAD, notOpenable, SNIFF_BYTES } from '../upload-kind.js';
import { ApiFailure } from './api.js';

export async function refuseUnopenable(files: readonly File[]): Promise<void> {
  for (const file of files) {
    if (file.size > MAX_UPLOAD) throw new ApiFailure(413, 'too_large', `${file.name} is larger than Quire opens here (${MAX_UPLOAD / 1024 ** 3} GB).`);
    if (file.size === 0) continue; // the server says it is empty
    const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
    if (!mayOpen(file.name, head)) throw new ApiFailure(400, 'unsupported_input', notOpenable(file.name));
  }
}
