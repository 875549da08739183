-- Remote OCR batches. A job whose OCR was submitted as a batch waits in `ocr_pending`, with the ids of
-- its batches, when it was submitted and when the ticker polls it next. The poll times follow the backoff schedule
-- measured from submission (1, 2, 4, … 512 minutes) and are kept here, so a restarted server carries on with it.
-- Times are milliseconds since the epoch, as in 000001. Portable SQL: ADD COLUMN one at a time.

-- JSON array of the service's batch ids.
ALTER TABLE jobs ADD COLUMN ocr_batch TEXT;
ALTER TABLE jobs ADD COLUMN ocr_submitted_at BIGINT;
ALTER TABLE jobs ADD COLUMN ocr_next_poll_at BIGINT;

CREATE INDEX jobs_ocr_due ON jobs (status, ocr_next_poll_at);
