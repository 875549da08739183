/** A multipart body as a browser's FormData would send it, for `app.inject`. */
export async function formBody(files: Array<{ name: string; data: string | Buffer }>): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([typeof f.data === 'string' ? f.data : new Uint8Array(f.data)]), f.name);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type') ?? '' } };
}
