"""Knowledge bases (table ``knowledge_bases``, migration 009): create, list, rename, delete, look up by name.

A document belongs to one base. ``default`` always exists — what was indexed before bases existed is
there, and a command or request that names no base writes into it — so it can be neither renamed nor
deleted. Names are compared without case; they may use letters of any script, digits, ``_``, ``.``
and ``-`` (``hr-policies``, ``财务报告``), so they fit in a URL, a command line and an OpenAI model
name (``dropqa/hr-policies``).

Deleting a base removes, in one transaction, its documents (their versions, nodes, embeddings, images,
titles and topic links follow by foreign key), its topics, its jobs, the QA history and the
conversation threads answered from it, and the stored file bytes nothing else names.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from typing import Any

from dropqa.errors import CodedError
from dropqa.store import blobs
from dropqa.store.db import Database

DEFAULT_KB = uuid.UUID("00000000-0000-0000-0000-000000000001")  # migration 009 gives `default` this id
DEFAULT_NAME = "default"
MAX_NAME_CHARS = 64
_NAME = re.compile(r"[^\W_][\w.-]*")


class UnknownBase(CodedError, LookupError):
    """No base of that name that the caller may use (the same answer whether it exists or not)."""

    code = "kb_not_found"
    status = 404

    def __init__(self, name: str):
        super().__init__(f"no knowledge base named {name!r}", kb=name)


class BaseNameTaken(CodedError):
    code = "kb_exists"
    status = 409

    def __init__(self, name: str):
        super().__init__(f"a knowledge base named {name!r} exists already", kb=name)


class BadBaseName(CodedError, ValueError):
    code = "kb_name_invalid"
    status = 422

    def __init__(self, name: str):
        super().__init__(f"{name[:80]!r} is not a knowledge base name: 1 to {MAX_NAME_CHARS} letters, digits, "
                         "'_', '.' or '-', starting with a letter or digit", kb=name[:80])


class DefaultBaseFixed(CodedError):
    code = "kb_default_fixed"
    status = 409

    def __init__(self) -> None:
        super().__init__(f"the {DEFAULT_NAME!r} knowledge base can be neither renamed nor deleted", kb=DEFAULT_NAME)


def checked_name(name: str) -> str:
    """``name`` without surrounding spaces, or :class:`BadBaseName`."""
    name = (name or "").strip()
    if not (0 < len(name) <= MAX_NAME_CHARS and _NAME.fullmatch(name)):
        raise BadBaseName(name)
    return name


_COLUMNS = (
    "b.id, b.name, b.created_at, "
    "(SELECT count(*) FROM documents d WHERE d.kb_id = b.id AND d.deleted_at IS NULL AND d.current_version > 0) "
    "AS document_count"
)


def list_bases(db: Database, ids: Iterable[uuid.UUID] | None = None) -> list[dict[str, Any]]:
    """Every base (only those of ``ids`` when given), ``default`` first, then by name."""
    wanted = None if ids is None else [uuid.UUID(str(i)) for i in ids]
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {_COLUMNS} FROM knowledge_bases b WHERE (%(ids)s::uuid[] IS NULL OR b.id = ANY(%(ids)s::uuid[])) "
            "ORDER BY b.id <> %(default)s, lower(b.name)",
            {"ids": wanted, "default": DEFAULT_KB},
        ).fetchall()


def all_ids(db: Database) -> tuple[uuid.UUID, ...]:
    with db.connection() as conn:
        rows = conn.execute("SELECT id FROM knowledge_bases ORDER BY id <> %s, lower(name)", (DEFAULT_KB,)).fetchall()
    return tuple(r["id"] for r in rows)


def find(db: Database, name: str) -> dict[str, Any] | None:
    with db.connection() as conn:
        return conn.execute(f"SELECT {_COLUMNS} FROM knowledge_bases b WHERE lower(b.name) = lower(%s)",
                            (name.strip(),)).fetchone()


def resolve(db: Database, names: Iterable[str], allowed: Iterable[uuid.UUID] | None = None) -> tuple[uuid.UUID, ...]:
    """The ids of the bases ``names`` name, in order, without repeats; :class:`UnknownBase` for the first
    name that is not a base — or, with ``allowed``, not one of those (the same error: no leak of what exists)."""
    permitted = None if allowed is None else {uuid.UUID(str(i)) for i in allowed}
    out: list[uuid.UUID] = []
    for name in names:
        row = find(db, name)
        if row is None or (permitted is not None and row["id"] not in permitted):
            raise UnknownBase(name)
        if row["id"] not in out:
            out.append(row["id"])
    return tuple(out)


def names_of(db: Database, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, str]:
    with db.connection() as conn:
        rows = conn.execute("SELECT id, name FROM knowledge_bases WHERE id = ANY(%s::uuid[])",
                            ([uuid.UUID(str(i)) for i in ids],)).fetchall()
    return {r["id"]: r["name"] for r in rows}


def create(db: Database, name: str) -> dict[str, Any]:
    name = checked_name(name)
    with db.connection() as conn:
        row = conn.execute(
            "INSERT INTO knowledge_bases (name) VALUES (%s) ON CONFLICT DO NOTHING RETURNING id", (name,)
        ).fetchone()
    if row is None:
        raise BaseNameTaken(name)
    found = find(db, name)
    assert found is not None
    return found


def rename(db: Database, old: str, new: str) -> dict[str, Any]:
    new = checked_name(new)
    with db.transaction() as conn:
        row = conn.execute("SELECT id FROM knowledge_bases WHERE lower(name) = lower(%s) FOR UPDATE",
                           (old.strip(),)).fetchone()
        if row is None:
            raise UnknownBase(old)
        if row["id"] == DEFAULT_KB:
            raise DefaultBaseFixed()
        clash = conn.execute("SELECT id FROM knowledge_bases WHERE lower(name) = lower(%s) AND id <> %s",
                             (new, row["id"])).fetchone()
        if clash is not None:
            raise BaseNameTaken(new)
        conn.execute("UPDATE knowledge_bases SET name = %s WHERE id = %s", (new, row["id"]))
    found = find(db, new)
    assert found is not None
    return found


def delete(db: Database, name: str) -> dict[str, Any]:
    """Delete the base and everything of it, in one transaction; returns what was removed."""
    with db.transaction() as conn:
        row = conn.execute("SELECT id, name FROM knowledge_bases WHERE lower(name) = lower(%s) FOR UPDATE",
                           (name.strip(),)).fetchone()
        if row is None:
            raise UnknownBase(name)
        kb = row["id"]
        if kb == DEFAULT_KB:
            raise DefaultBaseFixed()
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM documents WHERE kb_id = %(kb)s) AS documents, "
            "(SELECT count(*) FROM document_versions v JOIN documents d ON d.id = v.document_id "
            " WHERE d.kb_id = %(kb)s) AS versions, "
            "(SELECT count(*) FROM topics WHERE kb_id = %(kb)s) AS topics, "
            "(SELECT count(*) FROM ingestion_jobs WHERE kb_id = %(kb)s) AS jobs, "
            "(SELECT count(*) FROM qa_history WHERE %(kb)s = ANY(kb_ids)) AS answers",
            {"kb": kb},
        ).fetchone()
        hashes = [r["h"] for r in conn.execute(
            "SELECT v.file_hash AS h FROM document_versions v JOIN documents d ON d.id = v.document_id "
            "WHERE d.kb_id = %(kb)s UNION SELECT blob_sha256 FROM ingestion_jobs "
            "WHERE kb_id = %(kb)s AND blob_sha256 IS NOT NULL", {"kb": kb}).fetchall()]
        conn.execute("DELETE FROM qa_history WHERE %s = ANY(kb_ids)", (kb,))
        _delete_threads(conn, kb)
        conn.execute("DELETE FROM knowledge_bases WHERE id = %s", (kb,))  # documents, topics, jobs: by cascade
        freed, freed_bytes = blobs.collect(db, grace_s=0, only=hashes)
    return {"id": kb, "name": row["name"], **dict(counts or {}), "files_freed": freed, "bytes_freed": freed_bytes}


def _delete_threads(conn: Any, kb: uuid.UUID) -> None:
    """The conversation checkpoints asked over ``kb`` (their thread names start with the base ids,
    runtime/threads.py). The checkpointer makes its tables on first use: there may be none yet."""
    for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL AS t", (table,)).fetchone()
        if exists and exists["t"]:
            conn.execute(f"DELETE FROM {table} WHERE split_part(thread_id, '/', 1) LIKE %s",
                         (f"%{kb}%",))


def thread_name(kbs: Iterable[uuid.UUID], thread_id: str) -> str:
    """The checkpoint thread of conversation ``thread_id`` asked over ``kbs``: the same thread id over other
    bases is another conversation, so nobody reads a thread through a base they may not read."""
    return ",".join(sorted(str(k) for k in kbs)) + "/" + thread_id
