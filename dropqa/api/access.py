"""Who is asking, and which knowledge bases they may read and write.

:class:`~dropqa.api.auth.KeyGate` identifies every request to a protected route before its body is read
and leaves a :class:`Caller` on it: an API key's name, role and bases; the ``DROPQA_API_TOKEN``
(an admin of every base); or, on a server without a token and without keys, the local user (also an
admin of every base — what a one-user set-up on loopback has always been).

Roles are ordered — ``reader`` (ask and read), ``editor`` (also upload, re-index, delete documents,
cancel jobs, merge topics), ``admin`` (also manage bases and keys) — and a route below a caller's role
answers 403. Which bases a request sees is decided here, once: the bases it names (``kb``) among the
caller's, or all of the caller's when it names none. A base the caller may not use is "not found"
(404 ``kb_not_found``), exactly like one that does not exist, and an id of such a base is "not found"
by the route that looks it up — every look-up takes the request's :class:`~dropqa.store.scope.Scope`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from dropqa.errors import CodedError
from dropqa.store import bases
from dropqa.store.db import Database
from dropqa.store.keys import Role
from dropqa.store.scope import Scope

RANK: dict[str, int] = {"reader": 0, "editor": 1, "admin": 2}


@dataclass(frozen=True)
class Caller:
    name: str
    role: Role
    kb_ids: frozenset[uuid.UUID] | None  # the bases it may use; None: every base
    via: Literal["key", "token", "open"]

    def may(self, role: Role) -> bool:
        return RANK[self.role] >= RANK[role]


LOCAL = Caller(name="local", role="admin", kb_ids=None, via="open")  # loopback, no token, no key
TOKEN = Caller(name="token", role="admin", kb_ids=None, via="token")  # DROPQA_API_TOKEN


class Forbidden(CodedError):
    """The caller's role is below what the route needs (nothing about any resource is looked up)."""

    code = "forbidden"
    status = 403

    def __init__(self, needed: str, role: str):
        super().__init__(f"this needs the {needed} role; the key is a {role}", needed=needed, role=role)


class KeysNeedAnAdminKey(CodedError):
    code = "admin_key_required"
    status = 403

    def __init__(self) -> None:
        super().__init__("managing keys needs an admin key or the server's token; make the first admin key with "
                         "`dropqa keys create --name NAME --role admin`")


class BaseRequired(CodedError):
    code = "kb_required"
    status = 400

    def __init__(self) -> None:
        super().__init__("name the knowledge base to write to (kb): this key may use several")


def require(caller: Caller, role: Role) -> Caller:
    if not caller.may(role):
        raise Forbidden(role, caller.role)
    return caller


def key_admin(caller: Caller) -> Caller:
    """Key management: an admin key or the token — never the open local caller (the first admin key is
    made on the command line, never by an open route)."""
    require(caller, "admin")
    if caller.via == "open":
        raise KeysNeedAnAdminKey()
    return caller


def readable(db: Database, caller: Caller) -> tuple[uuid.UUID, ...]:
    """Every base the caller may use, ``default`` first."""
    every = bases.all_ids(db)
    return every if caller.kb_ids is None else tuple(k for k in every if k in caller.kb_ids)


def bases_for(db: Database, caller: Caller, names: Iterable[str] | None) -> tuple[uuid.UUID, ...]:
    """The bases a request reads: those ``names`` names (each one the caller may use, else
    :class:`~dropqa.store.bases.UnknownBase`), or all of the caller's when it names none."""
    wanted = [n for n in (names or []) if n.strip()]
    if wanted:
        return bases.resolve(db, wanted, allowed=caller.kb_ids)
    return readable(db, caller)


def scope_for(db: Database, caller: Caller, names: Iterable[str] | None) -> Scope:
    return Scope(kbs=bases_for(db, caller, names))


def write_base(db: Database, caller: Caller, name: str | None) -> uuid.UUID:
    """The one base an upload goes to: the one named; else ``default`` when the caller may use it; else
    the caller's only base (a key of several bases must name one: 400 ``kb_required``)."""
    require(caller, "editor")
    if name and name.strip():
        return bases.resolve(db, [name], allowed=caller.kb_ids)[0]
    if caller.kb_ids is None or bases.DEFAULT_KB in caller.kb_ids:
        return bases.DEFAULT_KB
    if len(caller.kb_ids) == 1:
        return next(iter(caller.kb_ids))
    raise BaseRequired()
