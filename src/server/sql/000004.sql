-- Workers on several machines, progress steps, webhooks and cluster-wide metrics. Portable SQL, as 000001: it runs
-- unchanged on SQLite and PostgreSQL; ADD COLUMN one at a time. Times are milliseconds since the epoch.

-- A worker holding a job (processing, or one poll of an ocr_pending batch) renews its lease while it works; another
-- worker takes the job back once lease_until has passed. Each holder sets its own lease length.
ALTER TABLE jobs ADD COLUMN lease_until BIGINT;
-- When the job was last claimed: its queue wait is started_at minus its creation.
ALTER TABLE jobs ADD COLUMN started_at BIGINT;
-- What the running job is doing (starting, pages, ocr, export); pages_done counts pages within that step.
ALTER TABLE jobs ADD COLUMN progress_step TEXT;
-- Why the last attempt ended without finishing (its worker died, an unexpected fault), for the final error.
ALTER TABLE jobs ADD COLUMN last_error TEXT;
-- Where links in a notification point: base_url at submission, else the address the job was submitted to.
ALTER TABLE jobs ADD COLUMN link_base TEXT;

-- A webhook posted when the job ends (done, failed, cancelled). webhook_state: NULL until then, then pending,
-- delivered or failed. A sender holds a due delivery until webhook_lease_until, so two never post the same one.
ALTER TABLE jobs ADD COLUMN webhook_url TEXT;
ALTER TABLE jobs ADD COLUMN webhook_state TEXT;
ALTER TABLE jobs ADD COLUMN webhook_next_at BIGINT;
ALTER TABLE jobs ADD COLUMN webhook_lease_until BIGINT;
ALTER TABLE jobs ADD COLUMN webhook_lease_by TEXT;
-- JSON array of the delivery attempts: {"at": ms, "status": HTTP status or null, "error": text or null}.
ALTER TABLE jobs ADD COLUMN webhook_attempts TEXT;
CREATE INDEX jobs_webhook_due ON jobs (webhook_state, webhook_next_at);

-- The HMAC-SHA256 secret this key's webhooks are signed with: shown once, when the key is made; every worker signs
-- with it, so it is kept as is (keys made before this migration have none and cannot ask for webhooks).
ALTER TABLE api_keys ADD COLUMN webhook_secret TEXT;

-- The workers running: each says it is alive here while it runs, busy or idle (/metrics counts the live ones).
CREATE TABLE workers (
  worker_id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  concurrency INTEGER NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL
);

-- Counters for /metrics added to by whichever worker observed them (histogram buckets, sums, totals), so any
-- server shows the whole cluster's. The name is the Prometheus series, labels included.
CREATE TABLE metric_counters (
  name TEXT PRIMARY KEY,
  value DOUBLE PRECISION NOT NULL DEFAULT 0
);
