import { JOB_STATUSES, type ApiKeyRow, type JobStatus, type WorkerRow } from './store.js';

/** Text made safe inside HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .8rem;text-align:left}
td.n{text-align:right}.revoked{color:#999}code{background:#f3f3f3;padding:.2rem .4rem;word-break:break-all}
form.inline{display:inline}button{cursor:pointer}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

function date(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

function seconds(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

/** The workers converting jobs, with their last heartbeat: one that stopped beating has died or lost the database. */
function workerTable(workers: WorkerRow[]): string {
  if (workers.length === 0) return '<p>No worker is running: jobs wait until one starts.</p>';
  const rows = workers
    .map(
      (w) =>
        `<tr><td>${escapeHtml(w.host)}</td><td class="n">${w.pid}</td><td class="n">${w.concurrency}</td><td>${seconds(w.startedAt)}</td><td>${seconds(w.heartbeat)}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Host</th><th>Process</th><th>Jobs at once</th><th>Started</th><th>Last heartbeat</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The admin page: job counts by status, the workers and the key table, with plain forms to create and revoke keys (no script). */
export function adminPage(prefix: string, csrf: string, counts: Record<JobStatus, number>, keys: ApiKeyRow[], workers: WorkerRow[]): string {
  const token = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  const countRows = JOB_STATUSES.map((st) => `<tr><td>${st}</td><td class="n">${counts[st]}</td></tr>`).join('');
  const keyRows = keys
    .map((k) => {
      const active = k.revoked === null;
      const action = active
        ? `<form class="inline" method="post" action="${escapeHtml(prefix)}/admin/keys/${k.keyId}/revoke">${token}<button type="submit">Revoke</button></form>`
        : '';
      return `<tr${active ? '' : ' class="revoked"'}><td class="n">${k.keyId}</td><td>${escapeHtml(k.email)}</td><td>${active ? 'active' : 'revoked'}</td><td>${date(k.created)}</td><td class="n">${k.jobCount}</td><td>${action}</td></tr>`;
    })
    .join('');
  return page(
    'Quire server — admin',
    `<h1>Quire server</h1>
<h2>Jobs</h2>
<table><thead><tr><th>Status</th><th>Jobs</th></tr></thead><tbody>${countRows}</tbody></table>
<h2>Workers</h2>
${workerTable(workers)}
<h2>API keys</h2>
${keys.length === 0 ? '<p>No API keys yet.</p>' : `<table><thead><tr><th>Id</th><th>Email</th><th>State</th><th>Created</th><th>Jobs</th><th></th></tr></thead><tbody>${keyRows}</tbody></table>`}
<p>Revoking a key also cancels its jobs that have not ended.</p>
<h2>New API key</h2>
<form method="post" action="${escapeHtml(prefix)}/admin/keys">${token}
<label>Email for completion mail <input type="email" name="email" required></label> <button type="submit">Create key</button>
</form>
<form method="post" action="${escapeHtml(prefix)}/admin/logout">${token}<button type="submit">Sign out</button></form>`,
  );
}

/** Shown once after creating a key from the admin page: the raw key is never shown again. */
export function keyCreatedPage(prefix: string, key: { key_id: number; email: string; api_key: string; webhook_secret: string }): string {
  return page(
    'Quire server — new API key',
    `<h1>New API key</h1>
<p>Key ${key.key_id} for ${escapeHtml(key.email)}:</p>
<p><code>${escapeHtml(key.api_key)}</code></p>
<p>Copy it now: only its hash is stored, so it cannot be shown again.</p>
<p>Its webhook secret, which signs the webhooks of its jobs (the X-Quire-Signature header):</p>
<p><code>${escapeHtml(key.webhook_secret)}</code></p>
<p>Shown only now too.</p>
<p><a href="${escapeHtml(prefix)}/admin">Back to the admin page</a></p>`,
  );
}

/** Shown at the admin address to a browser without a session: how to get one. */
export function signInPage(): string {
  return page(
    'Quire server — admin',
    `<h1>Quire server</h1>
<p>Open the admin link with the admin secret (<code>/admin?secret=…</code>), printed when the secret was made, to sign in.
A lost secret is replaced with <code>quire server --rotate-admin-secret</code>.</p>`,
  );
}
