-- DropQA schema v1: documents, versions, the node tree, embeddings, topics, images,
-- ingestion jobs and QA history. Applied once, in a transaction, under an advisory lock.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE documents (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    source_key      text NOT NULL UNIQUE,          -- path relative to the indexed root
    filename        text NOT NULL,
    file_type       text NOT NULL,
    file_hash       text NOT NULL,
    file_size       bigint NOT NULL,
    storage_path    text,
    current_version integer NOT NULL DEFAULT 1,
    deleted_at      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE document_versions (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    document_id   uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version       integer NOT NULL,
    file_hash     text NOT NULL,
    file_size     bigint NOT NULL,
    storage_path  text,
    node_count    integer NOT NULL DEFAULT 0,
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (document_id, version)
);

CREATE TABLE nodes (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    document_id   uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version       integer NOT NULL,
    parent_id     uuid REFERENCES nodes(id) ON DELETE CASCADE,
    node_type     text NOT NULL,
    depth         integer NOT NULL,
    title         text,
    content       text NOT NULL DEFAULT '',
    summary       text,
    breadcrumb    text NOT NULL DEFAULT '',      -- "file > chapter > section"
    position      integer NOT NULL,              -- document order within the version
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    content_hash  text NOT NULL DEFAULT '',
    search_vector tsvector,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX nodes_doc_version_pos ON nodes (document_id, version, position);
CREATE INDEX nodes_parent ON nodes (parent_id);
CREATE INDEX nodes_search ON nodes USING gin (search_vector);

-- Embeddings of "breadcrumb + content". The column is dimension-less so several models
-- can coexist; each model gets its own HNSW expression index (see store/vectors.py).
CREATE TABLE embeddings (
    node_id     uuid PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
    model_name  text NOT NULL,
    text_hash   text NOT NULL,
    embedding   vector NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX embeddings_model_hash ON embeddings (model_name, text_hash);

-- Title index (seed 004 §5.2): file names and sheet names, embedded on their own.
CREATE TABLE title_index (
    id           bigserial PRIMARY KEY,
    document_id  uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version      integer NOT NULL,
    node_id      uuid REFERENCES nodes(id) ON DELETE CASCADE,
    title_text   text NOT NULL,
    model_name   text NOT NULL,
    embedding    vector NOT NULL,
    search_vector tsvector
);
CREATE INDEX title_index_doc ON title_index (document_id, version);

CREATE TABLE topics (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL UNIQUE,
    description text,
    embedding   vector,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE document_topics (
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    topic_id    uuid NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
    version     integer NOT NULL,
    confidence  double precision NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, topic_id, version)
);

CREATE TABLE images (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    node_id     uuid NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    mime        text NOT NULL,
    data        bytea NOT NULL,
    width       integer,
    height      integer,
    ocr_text    text,
    description text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX images_node ON images (node_id);

CREATE TABLE ingestion_jobs (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    source_key   text NOT NULL,
    path         text NOT NULL,
    action       text NOT NULL DEFAULT 'index',   -- index | delete
    state        text NOT NULL DEFAULT 'queued',  -- queued|parsing|enriching|embedding|done|failed|cancelled
    outcome      text,                            -- indexed|unchanged|new_version|deleted
    error        text,
    progress     jsonb NOT NULL DEFAULT '{}'::jsonb,
    attempts     integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 3,
    run_after    timestamptz NOT NULL DEFAULT now(),
    locked_by    text,
    heartbeat_at timestamptz,
    document_id  uuid,
    version      integer,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ingestion_jobs_ready ON ingestion_jobs (state, run_after);

CREATE TABLE qa_history (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    thread_id   text,
    question    text NOT NULL,
    answer      text NOT NULL,
    response    jsonb NOT NULL,
    feedback    jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX qa_history_created ON qa_history (created_at DESC);
