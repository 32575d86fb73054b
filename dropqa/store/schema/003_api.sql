-- The HTTP API: topic merges, job-change polling, upload de-duplication, QA threads.

-- A merged topic keeps its row (its name is what ingestion extracts again) and points at the
-- topic it was merged into; the trigger sends every new document_topics row there, so a merge
-- survives re-indexing.
ALTER TABLE topics ADD COLUMN merged_into uuid REFERENCES topics(id) ON DELETE SET NULL;

CREATE FUNCTION dropqa_topic_redirect() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    target uuid;
BEGIN
    SELECT merged_into INTO target FROM topics WHERE id = NEW.topic_id;
    IF target IS NOT NULL THEN
        NEW.topic_id := target;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER document_topics_redirect BEFORE INSERT ON document_topics
    FOR EACH ROW EXECUTE FUNCTION dropqa_topic_redirect();

-- GET /api/jobs/stream polls for jobs changed since its last look.
CREATE INDEX ingestion_jobs_updated ON ingestion_jobs (updated_at);

-- Upload: "same content as an existing document" is a hash look-up.
CREATE INDEX documents_file_hash ON documents (file_hash);

-- QA history by conversation.
CREATE INDEX qa_history_thread ON qa_history (thread_id, created_at) WHERE thread_id IS NOT NULL;
