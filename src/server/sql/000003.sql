-- The server under load and faults: a fair queue, per-key quotas, retention, retries for transient causes, and
-- admin sessions. Portable SQL, as 000001: ADD COLUMN one at a time, defaults given for NOT NULL columns.

-- Round-robin across keys: the claim takes the pending job of the key served longest ago, then bumps this to one
-- more than the largest value (a counter, not a time, so two claims in one millisecond still order).
ALTER TABLE api_keys ADD COLUMN served_seq BIGINT NOT NULL DEFAULT 0;

-- A pending job put back after a transient cause (a full disk) waits until run_after (ms), and says why in notice.
ALTER TABLE jobs ADD COLUMN run_after BIGINT;
ALTER TABLE jobs ADD COLUMN notice TEXT;
-- What the job keeps on disk, for the per-key storage quota; set to 0 when retention removes the files.
ALTER TABLE jobs ADD COLUMN input_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN output_bytes BIGINT NOT NULL DEFAULT 0;
-- When the job reached done, failed or cancelled (ms); retention counts from here. Jobs that ended before this
-- migration get the time of the first sweep after it.
ALTER TABLE jobs ADD COLUMN ended_at BIGINT;
-- 1 once retention removed the outputs of a done job: its downloads answer 410.
ALTER TABLE jobs ADD COLUMN expired INTEGER NOT NULL DEFAULT 0;

CREATE INDEX jobs_ended ON jobs (ended_at);

-- Admin page sessions: a cookie made after a visit with the admin secret. Only hashes of the token are kept; the
-- CSRF token is per session. Rotating the secret removes every session.
CREATE TABLE admin_sessions (
  token_hash TEXT PRIMARY KEY,
  csrf TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
