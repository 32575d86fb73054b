-- Ingestion: topic clustering across documents. A topic's name embedding is compared only with
-- embeddings of the same model (the column is dimension-less, like embeddings.embedding).
ALTER TABLE topics ADD COLUMN embedding_model text;
CREATE INDEX topics_embedding_model ON topics (embedding_model) WHERE merged_into IS NULL;
