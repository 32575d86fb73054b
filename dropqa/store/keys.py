"""API keys (tables ``api_keys`` and ``api_key_bases``, migration 009).

A key has a name, a role — ``reader`` (ask and read), ``editor`` (also upload, re-index, delete
documents), ``admin`` (also manage bases and keys) — and, for readers and editors, the bases it may
use; an admin key uses every base (it could grant itself any of them anyway).

The key itself is ``dqa_`` + 43 URL-safe characters from :func:`secrets.token_urlsafe` (256 random
bits). It is shown once, when it is made; the database keeps its SHA-256. A slow password hash
(bcrypt, argon2) protects *guessable* secrets against a stolen table; a 256-bit random key cannot be
guessed from its hash either way, and a plain SHA-256 lets every request find its key with one index
look-up. Every request looks its key up again, so a revoked key is refused from the next request on;
``last_used_at`` is written at most every ``api.key_touch_s`` seconds per key.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from collections.abc import Iterable
from typing import Any, Literal, get_args

from dropqa.errors import CodedError
from dropqa.store.db import Database

Role = Literal["reader", "editor", "admin"]
ROLES: tuple[str, ...] = get_args(Role)
KEY_PREFIX = "dqa_"
SHOWN_PREFIX_CHARS = 10  # "dqa_" and 6 characters: enough to tell keys apart in a list
MAX_NAME_CHARS = 64
_NAME = re.compile(r"[^\W_][\w.@-]*")


class KeyRequestError(CodedError):
    code = "invalid_key_request"
    status = 422


class BadKeyName(KeyRequestError, ValueError):
    def __init__(self, name: str):
        super().__init__(f"{name[:80]!r} is not a key name: 1 to {MAX_NAME_CHARS} letters, digits, '_', '.', '@' "
                         "or '-', starting with a letter or digit", name=name[:80])


class BadRole(KeyRequestError, ValueError):
    def __init__(self, role: str):
        super().__init__(f"{role[:40]!r} is not a role; one of: {', '.join(ROLES)}", role=role[:40], roles=list(ROLES))


class BasesForRole(KeyRequestError, ValueError):
    def __init__(self, role: str):
        what = ("an admin key uses every base: name none" if role == "admin"
                else f"a {role} key needs at least one base (--kb NAME)")
        super().__init__(what, role=role)


class KeyNameTaken(CodedError):
    code = "key_exists"
    status = 409

    def __init__(self, name: str):
        super().__init__(f"a key named {name!r} exists already (revoke it first)", name=name)


class UnknownKey(CodedError, LookupError):
    code = "key_not_found"
    status = 404

    def __init__(self, name: str):
        super().__init__(f"no live key named {name!r}", name=name)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def checked(name: str, role: str, kb_ids: Iterable[uuid.UUID]) -> tuple[str, str, list[uuid.UUID]]:
    name = (name or "").strip()
    if not (0 < len(name) <= MAX_NAME_CHARS and _NAME.fullmatch(name)):
        raise BadKeyName(name)
    if role not in ROLES:
        raise BadRole(role)
    bases = list(dict.fromkeys(uuid.UUID(str(k)) for k in kb_ids))
    if (role == "admin") == bool(bases):
        raise BasesForRole(role)
    return name, role, bases


def create(db: Database, name: str, role: str, kb_ids: Iterable[uuid.UUID] = ()) -> tuple[str, dict[str, Any]]:
    """Make a key; returns ``(the key, its row)``. The key is not stored and cannot be shown again."""
    name, role, bases = checked(name, role, kb_ids)
    key = new_key()
    with db.transaction() as conn:
        row = conn.execute(
            "INSERT INTO api_keys (name, key_hash, key_prefix, role) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING RETURNING id",
            (name, digest(key), key[:SHOWN_PREFIX_CHARS], role),
        ).fetchone()
        if row is None:
            raise KeyNameTaken(name)
        conn.cursor().executemany("INSERT INTO api_key_bases (key_id, kb_id) VALUES (%s, %s)",
                                  [(row["id"], kb) for kb in bases])
    found = [k for k in list_keys(db) if k["id"] == row["id"]]
    return key, found[0]


def list_keys(db: Database, include_revoked: bool = True) -> list[dict[str, Any]]:
    """Every key (never the key itself): name, role, bases (names), prefix, created, last used, revoked."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT k.id, k.name, k.role, k.key_prefix, k.created_at, k.last_used_at, k.revoked_at, "
            "coalesce((SELECT array_agg(b.name ORDER BY lower(b.name)) FROM api_key_bases kb "
            "          JOIN knowledge_bases b ON b.id = kb.kb_id WHERE kb.key_id = k.id), '{}') AS kbs "
            "FROM api_keys k WHERE %s OR k.revoked_at IS NULL ORDER BY k.revoked_at IS NOT NULL, lower(k.name), "
            "k.created_at",
            (include_revoked,),
        ).fetchall()


def revoke(db: Database, name: str) -> dict[str, Any]:
    """Revoke the live key named ``name`` (refused from the next request on); :class:`UnknownKey` if none."""
    with db.connection() as conn:
        row = conn.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE name = %s AND revoked_at IS NULL "
            "RETURNING id, name, role, revoked_at", (name.strip(),),
        ).fetchone()
    if row is None:
        raise UnknownKey(name)
    return row


def authenticate(db: Database, key: str, touch_every_s: float) -> dict[str, Any] | None:
    """The live key ``key`` is — ``{id, name, role, kb_ids}`` — or ``None``. Records ``last_used_at``
    when it is older than ``touch_every_s`` (0: at every request)."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT k.id, k.name, k.role, k.last_used_at < now() - make_interval(secs => %(every)s) "
            "OR k.last_used_at IS NULL AS stale, "
            "ARRAY(SELECT kb.kb_id FROM api_key_bases kb WHERE kb.key_id = k.id) AS kb_ids "
            "FROM api_keys k WHERE k.key_hash = %(hash)s AND k.revoked_at IS NULL",
            {"hash": digest(key), "every": touch_every_s},
        ).fetchone()
        if row is not None and row["stale"]:
            conn.execute("UPDATE api_keys SET last_used_at = now() WHERE id = %s", (row["id"],))
    return row


def any_key(db: Database) -> bool:
    """Has a key ever been made here (revoked ones count)? Then every request must carry one."""
    with db.connection() as conn:
        return conn.execute("SELECT EXISTS (SELECT 1 FROM api_keys) AS e").fetchone()["e"]  # type: ignore[index]
