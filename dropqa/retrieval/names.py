"""The names every visible document may be called by: its file name, title, first heading, and the
subjects found in its text (``dropqa.text.subjects``).

A version indexed before subjects were kept has none in its metadata: its subjects are found once
from its stored opening nodes, the first time a question needs them, and recorded, so an upgraded
store names its documents like a fresh one without indexing anything again.
"""

from __future__ import annotations

import uuid
from typing import Any

from dropqa.services import Services
from dropqa.store import recall
from dropqa.store.scope import Scope
from dropqa.text.subjects import OPENING_CHARS, document_subjects, file_stem_name


def _subjects_from_store(svc: Services, scope: Scope, row: dict[str, Any]) -> list[str]:
    nodes = recall.opening_nodes(svc.db, scope, uuid.UUID(str(row["document_id"])))
    headings = [file_stem_name(str(row["filename"])),
                *(n["title"] for n in nodes if n["node_type"] == "section" and n["title"])][:2]
    opening = "\n".join((n["title"] if n["node_type"] == "section" else n["content"]) or "" for n in nodes)
    return document_subjects(headings, opening[:OPENING_CHARS], opening)


def document_names(svc: Services, scope: Scope) -> list[dict[str, Any]]:
    """``recall.document_titles`` with every row's ``subjects`` filled (found and recorded now for a
    version indexed before subjects were kept)."""
    rows = recall.document_titles(svc.db, scope)
    for row in rows:
        if row.get("subjects") is None:
            row["subjects"] = _subjects_from_store(svc, scope, row)
            recall.set_subjects(svc.db, scope, uuid.UUID(str(row["document_id"])), int(row["version"]),
                                row["subjects"])
    return rows
