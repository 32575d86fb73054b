-- Job queue look-ups by file: enqueue de-duplication and the per-key ordering check in claim().
CREATE INDEX ingestion_jobs_key_state ON ingestion_jobs (source_key, state, created_at);
