"""Topics: list with document counts, one topic, its documents, merge.

A topic counts a document when the document's *current* version carries it and
the document is not deleted. Merged topics (``merged_into`` set) are hidden; the
trigger of migration 003 sends their future document links to the merge target.
Topics are per knowledge base (a name is unique within its base): every read takes the caller's
:class:`~dropqa.store.scope.Scope`, and the topics are recomputed base by base.
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from dropqa.store.db import Database
from dropqa.store.scope import Scope

_LIVE_LINK = (
    "JOIN documents d ON d.id = dt.document_id AND dt.version = d.current_version AND d.deleted_at IS NULL"
)


def list_topics(db: Database, scope: Scope, *, query: str | None = None, limit: int = 100,
                offset: int = 0) -> list[dict[str, Any]]:
    """Topics of the scope's bases that at least one live document carries, most documents first."""
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn:
        return conn.execute(
            "SELECT t.id, t.kb_id, t.name, t.description, t.descriptions, "
            "count(DISTINCT dt.document_id) AS document_count, avg(dt.confidence) AS confidence FROM topics t "
            f"JOIN document_topics dt ON dt.topic_id = t.id {_LIVE_LINK} "
            f"WHERE t.merged_into IS NULL AND {in_bases} "
            "AND (%(q)s::text IS NULL OR t.name ILIKE '%%' || %(q)s || '%%') "
            "GROUP BY t.id ORDER BY document_count DESC, t.name LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "q": query, "limit": limit, "offset": offset},
        ).fetchall()


def count_topics(db: Database, scope: Scope, *, query: str | None = None) -> int:
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(DISTINCT t.id) AS n FROM topics t "
            f"JOIN document_topics dt ON dt.topic_id = t.id {_LIVE_LINK} "
            f"WHERE t.merged_into IS NULL AND {in_bases} "
            "AND (%(q)s::text IS NULL OR t.name ILIKE '%%' || %(q)s || '%%')",
            {**params, "q": query},
        ).fetchone()
    return int(row["n"]) if row else 0


def get_topic(db: Database, scope: Scope, topic_id: uuid.UUID) -> dict[str, Any] | None:
    """The topic of the scope's bases (following a merge to its target), with its live document count and
    merged names."""
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn:
        row = conn.execute(
            "SELECT t.id, t.kb_id, t.name, t.description, t.descriptions, t.created_at, "
            f"(SELECT count(DISTINCT dt.document_id) FROM document_topics dt {_LIVE_LINK} "
            "  WHERE dt.topic_id = t.id) AS document_count, "
            "(SELECT coalesce(array_agg(m.name ORDER BY m.name), '{}') FROM topics m WHERE m.merged_into = t.id) "
            "AS merged_names "
            "FROM topics t WHERE t.id = coalesce((SELECT merged_into FROM topics WHERE id = %(id)s), %(id)s) "
            f"AND {in_bases}",
            {**params, "id": topic_id},
        ).fetchone()
    return row


def topic_documents(db: Database, scope: Scope, topic_id: uuid.UUID, *, limit: int = 100,
                    offset: int = 0) -> list[dict[str, Any]]:
    """Live documents of the scope's bases carrying the topic, most confident first."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id, d.kb_id, (SELECT b.name FROM knowledge_bases b WHERE b.id = d.kb_id) AS kb, "
            "d.source_key, d.filename, d.file_type, d.file_size, d.current_version, d.created_at, "
            "d.updated_at, d.deleted_at, dt.confidence FROM document_topics dt "
            f"{_LIVE_LINK} WHERE dt.topic_id = %(id)s AND {in_bases} "
            "ORDER BY dt.confidence DESC, d.filename LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "id": topic_id, "limit": limit, "offset": offset},
        ).fetchall()


class MergeError(ValueError):
    """The merge cannot be done as asked (nothing to merge, the target was merged away)."""


class UnknownTopic(MergeError):
    pass


class NameTaken(MergeError):
    pass


def merge_topics(db: Database, scope: Scope, source_ids: list[uuid.UUID], target_id: uuid.UUID,
                 new_name: str | None = None) -> dict[str, Any]:
    """Move every document link of ``source_ids`` to ``target_id`` (keeping the higher confidence),
    mark the sources merged, optionally rename the target. The topics must be of one base, one of the
    scope's (a topic of another base is unknown). One transaction."""
    sources = [s for s in dict.fromkeys(source_ids) if s != target_id]
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn, conn.transaction():
        ids = [*sources, target_id]
        found = conn.execute(
            f"SELECT t.id, t.kb_id, t.merged_into FROM topics t WHERE t.id = ANY(%(ids)s) AND {in_bases} "
            "FOR UPDATE", {**params, "ids": ids},
        ).fetchall()
        known = {r["id"]: r["merged_into"] for r in found}
        missing = [str(i) for i in ids if i not in known]
        if missing:
            raise UnknownTopic(f"unknown topic(s): {', '.join(missing)}")
        if not sources:  # checked after the look-up: a topic of another base is "unknown" first
            raise MergeError("name at least one topic other than the target")
        if len({r["kb_id"] for r in found}) > 1:
            raise MergeError("the topics belong to different knowledge bases; merge topics of one base")
        kb = found[0]["kb_id"]
        if known[target_id] is not None:
            raise MergeError("the target topic was itself merged into another topic; merge into that one")
        conn.execute(
            "INSERT INTO document_topics (document_id, topic_id, version, confidence) "
            "SELECT document_id, %s, version, max(confidence) FROM document_topics WHERE topic_id = ANY(%s) "
            "GROUP BY document_id, version "
            "ON CONFLICT (document_id, topic_id, version) DO UPDATE "
            "SET confidence = greatest(document_topics.confidence, EXCLUDED.confidence)",
            (target_id, sources),
        )
        moved = conn.execute("DELETE FROM document_topics WHERE topic_id = ANY(%s)", (sources,)).rowcount
        # earlier merges into a source now point at the target too (no chains)
        conn.execute("UPDATE topics SET merged_into = %s WHERE merged_into = ANY(%s) OR id = ANY(%s)",
                     (target_id, sources, sources))
        if new_name:
            clash = conn.execute("SELECT id FROM topics WHERE kb_id = %s AND name = %s AND id <> %s",
                                 (kb, new_name, target_id)).fetchone()
            if clash is not None:
                if clash["id"] not in sources:
                    raise NameTaken(f"another topic is already named {new_name!r}; merge it too")
                # the name belongs to a source: give that row a placeholder so the target can take it
                conn.execute("UPDATE topics SET name = name || ' (merged ' || id::text || ')' WHERE id = %s",
                             (clash["id"],))
            conn.execute("UPDATE topics SET name = %s WHERE id = %s", (new_name, target_id))
    return {"target_id": target_id, "merged": sources, "links_moved": moved}


def topic_inputs(db: Database, kb: uuid.UUID, model_name: str) -> list[dict[str, Any]]:
    """Per live document of base ``kb`` (current version): the mean of its nodes' embeddings (``vector``,
    None while none is embedded), its candidate names with counts (``phrases``) and its concept counts
    (``concepts``, both from indexing; no ``concepts`` for a version indexed before they were kept), and its
    name and language."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id, d.filename, d.current_version AS version, v.metadata->'phrases' AS phrases, "
            "v.metadata->'concepts' AS concepts, "
            "v.metadata->'enrichment'->>'language' AS language, "
            "(SELECT avg(e.embedding) FROM nodes n JOIN embeddings e ON e.node_id = n.id "
            "  WHERE n.document_id = d.id AND n.version = d.current_version AND e.model_name = %s) AS vector "
            "FROM documents d JOIN document_versions v ON v.document_id = d.id AND v.version = d.current_version "
            "WHERE d.deleted_at IS NULL AND d.kb_id = %s ORDER BY d.created_at, d.id",
            (model_name, kb),
        ).fetchall()


def replace_topic_links(db: Database, kb: uuid.UUID, clusters: list[dict[str, Any]]) -> None:
    """Base ``kb``'s topics, recomputed: the links of its documents' current versions are replaced by
    ``clusters`` (``name``, ``description``, ``documents``: ``[(document_id, version, confidence)]``). A
    name a user merged away still reaches its merge target (the trigger of migration 003). One
    transaction, serialised between processes (per base) by an advisory lock."""
    with db.connection() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('dropqa.topics:' || %s::text))", (kb,))
        conn.execute("DELETE FROM document_topics dt USING documents d "
                     "WHERE dt.document_id = d.id AND dt.version = d.current_version AND d.kb_id = %s", (kb,))
        for c in clusters:
            row = conn.execute(
                "INSERT INTO topics (kb_id, name, description, descriptions) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (kb_id, name) "
                "DO UPDATE SET description = EXCLUDED.description, descriptions = EXCLUDED.descriptions "
                "RETURNING id, merged_into",
                (kb, c["name"], c["description"], Jsonb(c.get("descriptions") or {})),
            ).fetchone()
            assert row is not None
            if row["merged_into"] is not None:  # the merge target shows the description
                conn.execute("UPDATE topics SET description = coalesce(description, %s), "
                             "descriptions = coalesce(descriptions, %s) WHERE id = %s",
                             (c["description"], Jsonb(c.get("descriptions") or {}), row["merged_into"]))
            conn.cursor().executemany(
                "INSERT INTO document_topics (document_id, topic_id, version, confidence) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (document_id, topic_id, version) DO UPDATE "
                "SET confidence = greatest(document_topics.confidence, EXCLUDED.confidence)",
                [(doc, row["id"], version, conf) for doc, version, conf in c["documents"]],
            )
