"""The visibility rule every read query shares.

A read sees the knowledge bases it names — ``kbs`` has no default, so no query can forget it — and,
inside them, a node is visible when its document is not deleted and the node belongs to the
version the reader asked for: the document's current version by default, or version N when the
reader asked for N (documents that never had an N-th version answer with their latest). Optional
filters narrow to some documents (by id, or by topic name).

:meth:`Scope.sql` is the whole rule for node queries; :meth:`Scope.kb_sql` is the base part alone,
for rows looked up by id (a document, a job, a topic — deleted documents too, for their history):
an id of another base is simply not found.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

# The largest version number any entry point accepts (REST, /v1, MCP, CLI, the agent's tools): far above
# any real document's history, far below PostgreSQL's int range (a bigger number is an input error).
MAX_VERSION = 1_000_000


@dataclass(frozen=True)
class Scope:
    kbs: tuple[uuid.UUID, ...]  # the knowledge bases this read may see (empty: it sees nothing)
    version: int | None = None
    document_ids: tuple[uuid.UUID, ...] = field(default_factory=tuple)
    content_only: bool = True
    topics: tuple[str, ...] = field(default_factory=tuple)  # only documents with one of these topics

    def __post_init__(self) -> None:
        object.__setattr__(self, "kbs", tuple(uuid.UUID(str(k)) for k in self.kbs))

    def kb_sql(self, alias: str = "d", column: str = "kb_id") -> tuple[str, dict[str, object]]:
        """``alias.column`` is one of the scope's bases (documents, topics, jobs: rows with a ``kb_id``)."""
        return f"{alias}.{column} = ANY(%(scope_kbs)s::uuid[])", {"scope_kbs": list(self.kbs)}

    def answers_sql(self, alias: str = "h") -> tuple[str, dict[str, object]]:
        """A QA-history row is visible when every base it was answered from is one of the scope's."""
        return (f"cardinality({alias}.kb_ids) > 0 AND {alias}.kb_ids <@ %(scope_kbs)s::uuid[]",
                {"scope_kbs": list(self.kbs)})

    def sql(self, n: str = "n", d: str = "d", *, node_types: bool = True) -> tuple[str, dict[str, object]]:
        """The WHERE clause (and its parameters) for nodes aliased ``n`` joined to documents ``d``.
        ``node_types=False`` for tables without a ``node_type`` column (``title_index``)."""
        in_bases, params = self.kb_sql(d)
        clauses = [
            in_bases,
            f"{d}.deleted_at IS NULL",
            f"{n}.version = CASE WHEN %(scope_version)s::int IS NULL THEN {d}.current_version "
            f"ELSE LEAST(%(scope_version)s::int, {d}.current_version) END",
        ]
        params["scope_version"] = self.version
        if self.document_ids:
            clauses.append(f"{n}.document_id = ANY(%(scope_docs)s)")
            params["scope_docs"] = list(self.document_ids)
        if self.topics:
            clauses.append(
                f"EXISTS (SELECT 1 FROM document_topics dt JOIN topics t ON t.id = dt.topic_id "
                f"WHERE dt.document_id = {n}.document_id AND dt.version = {d}.current_version "
                f"AND t.name = ANY(%(scope_topics)s))"
            )
            params["scope_topics"] = list(self.topics)
        if self.content_only and node_types:
            clauses.append(f"{n}.node_type NOT IN ('section', 'document')")
        return " AND ".join(clauses), params
