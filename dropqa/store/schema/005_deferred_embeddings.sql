-- Answerable before embedded (issue 12): a version is written (nodes, tree, full-text vectors) and
-- becomes current at once; the embeddings of its content nodes are filled in afterwards, in batches.
-- One row per node still to embed, with the exact text to embed. A filler takes rows with
-- FOR UPDATE SKIP LOCKED and deletes them in the transaction that inserts their embeddings, so a
-- process killed mid-batch leaves its rows for the next one and several fillers never share a row.
CREATE TABLE pending_embeddings (
    node_id     uuid PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version     integer NOT NULL,
    model_name  text NOT NULL,
    text_hash   text NOT NULL,
    text        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX pending_embeddings_doc ON pending_embeddings (document_id, version);
CREATE INDEX pending_embeddings_next ON pending_embeddings (model_name, created_at);
