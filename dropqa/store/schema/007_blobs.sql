-- File bytes in the database (issue 16): every uploaded, watched or indexed file is stored once,
-- content-addressed by its SHA-256 (the same hex digest as documents.file_hash and
-- document_versions.file_hash), so a worker anywhere needs only DATABASE_URL and pg_dump backs up
-- the documents themselves. The bytes are split into chunks (store/blobs.py) so that no single
-- value is huge. Nothing references a blob by foreign key: a blob is live while a version of a
-- live document or an unfinished job names it, and store/blobs.py collects the rest.
CREATE TABLE blobs (
    sha256     text PRIMARY KEY,
    size       bigint NOT NULL,
    chunks     integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    touched_at timestamptz NOT NULL DEFAULT now()   -- last stored again: collection spares young blobs
);

CREATE TABLE blob_chunks (
    sha256 text NOT NULL REFERENCES blobs(sha256) ON DELETE CASCADE,
    seq    integer NOT NULL,
    data   bytea NOT NULL,
    PRIMARY KEY (sha256, seq)
);

-- A job carries the bytes it indexes (uploads, watched files, re-index), not a path on one machine.
ALTER TABLE ingestion_jobs ADD COLUMN blob_sha256 text;
CREATE INDEX ingestion_jobs_blob ON ingestion_jobs (blob_sha256) WHERE blob_sha256 IS NOT NULL;

-- Collection asks "does a version still name these bytes?".
CREATE INDEX document_versions_file_hash ON document_versions (file_hash);
