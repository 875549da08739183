-- Quire job server: the first schema. Portable SQL: it runs unchanged on SQLite and PostgreSQL.
-- Times are milliseconds since the epoch (BIGINT), except a job's created_at and updated_at: ISO 8601 UTC text
-- with milliseconds, as the API shows them (and they sort), so listing 10,000 jobs formats no dates.
-- Booleans are 0/1 integers, which both bind the same way.

CREATE TABLE config (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE api_keys (
  -- Assigned by the store as MAX(key_id) + 1: no rowid or identity syntax, which differ between the two.
  key_id INTEGER PRIMARY KEY,
  email TEXT NOT NULL,
  -- sha256 of the raw key, hex; the raw key is shown once and never stored.
  key_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  -- NULL while the key is active.
  revoked_at BIGINT
);

CREATE TABLE jobs (
  job_id TEXT PRIMARY KEY,
  -- Submission order, so "the oldest pending job" is exact even within one millisecond.
  seq BIGINT NOT NULL UNIQUE,
  key_id INTEGER NOT NULL REFERENCES api_keys (key_id),
  -- pending | processing | ocr_pending | done | failed | cancelled
  status TEXT NOT NULL,
  error TEXT,
  email_notif INTEGER NOT NULL DEFAULT 0,
  ocr TEXT,
  dpi INTEGER,
  -- The file name the client uploaded, and what it was stored as: zip (for .aglbundle and .zip) or pdf.
  upload_name TEXT NOT NULL,
  input_ext TEXT NOT NULL,
  -- The document's name (bundle project or upload name), for Content-Disposition; set when the job is done.
  doc_name TEXT,
  has_md INTEGER NOT NULL DEFAULT 0,
  pages_done INTEGER NOT NULL DEFAULT 0,
  pages_total INTEGER,
  -- Every claim counts one attempt; a job interrupted by a crash runs again, at most 3 times.
  attempts INTEGER NOT NULL DEFAULT 0,
  -- host:pid:nonce of the worker running the job, and when it last said it was alive.
  worker_id TEXT,
  heartbeat_at BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE INDEX jobs_by_key ON jobs (key_id, seq);
CREATE INDEX jobs_by_status ON jobs (status, seq);
