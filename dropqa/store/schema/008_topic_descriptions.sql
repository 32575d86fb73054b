-- Topics are clusters of documents (ingestion/topic_clusters.py): a one-line description per page
-- language, so a Chinese page never shows the English line (and the reverse).
ALTER TABLE topics ADD COLUMN descriptions jsonb;
