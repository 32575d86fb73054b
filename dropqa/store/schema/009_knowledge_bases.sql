-- Knowledge bases and API keys (issue 25). A document belongs to one knowledge base; what is
-- indexed before this migration belongs to `default`, which always exists (its id is fixed, so the
-- code and this file name it the same way). Source keys, topic names and the job queue's per-file
-- order are per base; every read names the base(s) it may see (store/scope.py).
CREATE TABLE knowledge_bases (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX knowledge_bases_name ON knowledge_bases (lower(name));
INSERT INTO knowledge_bases (id, name) VALUES ('00000000-0000-0000-0000-000000000001', 'default');

-- Existing rows take `default` through the column default (no table rewrite); the default is then
-- dropped, so every new row must name its base.
ALTER TABLE documents ADD COLUMN kb_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001'
    REFERENCES knowledge_bases(id) ON DELETE CASCADE;
ALTER TABLE documents ALTER COLUMN kb_id DROP DEFAULT;
ALTER TABLE documents DROP CONSTRAINT documents_source_key_key;
ALTER TABLE documents ADD CONSTRAINT documents_kb_source_key UNIQUE (kb_id, source_key);
DROP INDEX IF EXISTS documents_file_hash;
CREATE INDEX documents_kb_file_hash ON documents (kb_id, file_hash);

ALTER TABLE topics ADD COLUMN kb_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001'
    REFERENCES knowledge_bases(id) ON DELETE CASCADE;
ALTER TABLE topics ALTER COLUMN kb_id DROP DEFAULT;
ALTER TABLE topics DROP CONSTRAINT topics_name_key;
ALTER TABLE topics ADD CONSTRAINT topics_kb_name UNIQUE (kb_id, name);

ALTER TABLE ingestion_jobs ADD COLUMN kb_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001'
    REFERENCES knowledge_bases(id) ON DELETE CASCADE;
ALTER TABLE ingestion_jobs ALTER COLUMN kb_id DROP DEFAULT;
CREATE INDEX ingestion_jobs_kb ON ingestion_jobs (kb_id, created_at);

-- An answer is visible to whoever may read every base it was answered from.
ALTER TABLE qa_history ADD COLUMN kb_ids uuid[] NOT NULL DEFAULT '{00000000-0000-0000-0000-000000000001}';
ALTER TABLE qa_history ALTER COLUMN kb_ids DROP DEFAULT;

-- Conversations: a checkpoint thread is named "<base ids>/<thread id>" (runtime/threads.py), so the
-- same thread id asked over another base is another conversation. Threads kept before this
-- migration were asked over `default`. (The checkpointer creates its tables on first use.)
DO $$
BEGIN
    IF to_regclass('checkpoints') IS NOT NULL THEN
        UPDATE checkpoints SET thread_id = '00000000-0000-0000-0000-000000000001/' || thread_id;
    END IF;
    IF to_regclass('checkpoint_blobs') IS NOT NULL THEN
        UPDATE checkpoint_blobs SET thread_id = '00000000-0000-0000-0000-000000000001/' || thread_id;
    END IF;
    IF to_regclass('checkpoint_writes') IS NOT NULL THEN
        UPDATE checkpoint_writes SET thread_id = '00000000-0000-0000-0000-000000000001/' || thread_id;
    END IF;
END
$$;

-- API keys: stored as the SHA-256 of the key (the key is 256 random bits, so a fast hash is as safe
-- as a slow one and lets every request find its key by an index look-up); shown once, when made.
CREATE TABLE api_keys (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text NOT NULL,
    key_hash     text NOT NULL UNIQUE,
    key_prefix   text NOT NULL,                   -- the key's first characters, to tell keys apart
    role         text NOT NULL CHECK (role IN ('reader', 'editor', 'admin')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL;

-- The bases a reader or editor key may use (an admin key uses every base).
CREATE TABLE api_key_bases (
    key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    kb_id  uuid NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    PRIMARY KEY (key_id, kb_id)
);
CREATE INDEX api_key_bases_kb ON api_key_bases (kb_id);
