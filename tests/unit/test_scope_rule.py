"""The one visibility rule, held mechanically: every store function whose SQL touches a table of documents,
their content, topics, jobs or answers takes the caller's ``Scope`` (or, on the indexer's write path, the
knowledge base it writes to) — except the queue's and the embedder's own bookkeeping, listed here with why.
A new query that forgets the bases fails this test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from dropqa.store.scope import Scope

STORE = Path(__file__).resolve().parents[2] / "dropqa" / "store"
TABLES = ("documents", "document_versions", "nodes", "embeddings", "title_index", "topics", "document_topics",
          "images", "qa_history", "ingestion_jobs", "pending_embeddings")
TOUCHES = re.compile(r"\b(FROM|JOIN|UPDATE|INTO)\s+(" + "|".join(TABLES) + r")\b")
BASES = {"scope", "kb", "kbs"}
OWN_WORK = {  # function → why it needs no caller's bases
    "documents.cached_embeddings": "a vector of the same text (by its hash): nobody's content",
    "documents.write_version": "the indexer's write; the version names its base (NewVersion.kb_id)",
    "documents._insert_topics": "inside write_version, in the version's base",
    "documents._copy_nodes": "inside write_version",
    "documents._insert_images": "inside write_version",
    "documents._insert_titles": "inside write_version",
    "jobs.claim": "a worker takes the next job of any base",
    "jobs.heartbeat": "the job its worker holds",
    "jobs.set_state": "the job its worker holds",
    "jobs.finish": "the job its worker holds",
    "jobs.fail": "the job its worker holds",
    "jobs.lock_if_active": "the job its worker holds",
    "jobs.get": "the job its worker holds (callers read through jobs.find)",
    "jobs.queue_depth": "a count for /api/health and the upload limit: no job's content",
    "pending.fill_batch": "the embedder fills every base's pending embeddings",
    "pending.count_for": "the version its indexer just wrote",
    "pending.totals": "counts for /api/health and `dropqa index`: no document's content",
    "pending.backlog": "counts of the embedder's backlog for `dropqa index` (issue 23): no document's content",
    "blobs.collect": "which stored bytes no live version or job names any more: no one's content",
    "bases.delete": "deleting a base is about that base",
}


def _touching_functions() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for path in sorted(STORE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            texts = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            texts += [v.value for j in ast.walk(node) if isinstance(j, ast.JoinedStr)
                      for v in j.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if any(TOUCHES.search(t) for t in texts):
                found.append((f"{path.stem}.{node.name}", node))
    return found


def test_every_query_names_its_bases() -> None:
    functions = _touching_functions()
    assert len(functions) > 40  # the parser sees the store's queries
    missing = [name for name, node in functions
               if name not in OWN_WORK and not BASES & {a.arg for a in [*node.args.args, *node.args.kwonlyargs]}]
    assert not missing, f"store queries without the caller's bases (a Scope or the base they write to): {missing}"
    stale = set(OWN_WORK) - {name for name, _ in functions}
    assert not stale, f"listed as the store's own work but no such query: {stale}"


def test_a_scope_cannot_be_made_without_its_bases() -> None:
    import pytest

    with pytest.raises(TypeError):
        Scope()  # type: ignore[call-arg]
    where, params = Scope(kbs=()).sql()
    assert where.startswith("d.kb_id = ANY(%(scope_kbs)s::uuid[])") and params["scope_kbs"] == []
    visible, _ = Scope(kbs=()).answers_sql()
    assert "cardinality(h.kb_ids) > 0" in visible  # an answer never recorded with bases is nobody's
