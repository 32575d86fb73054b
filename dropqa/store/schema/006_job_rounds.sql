-- Failed jobs get later rounds: a job that failed for a passing reason (its worker died every
-- attempt, the store was down) is queued again after a back-off, up to ingestion.job_failed_rounds.
ALTER TABLE ingestion_jobs ADD COLUMN failed_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE ingestion_jobs ADD COLUMN retry_failed boolean NOT NULL DEFAULT false;
CREATE INDEX ingestion_jobs_retry_failed ON ingestion_jobs (run_after) WHERE state = 'failed' AND retry_failed;
