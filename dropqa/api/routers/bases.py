"""Knowledge bases: the caller (``/api/me``), the bases it may read, and — for admins — create, rename, delete."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from dropqa.api import access
from dropqa.api.deps import AdminDep, CallerDep, DbDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.store import bases as base_store

router = APIRouter(prefix="/api", tags=["knowledge bases"], responses=ERROR_RESPONSES)


class BaseInfo(BaseModel):
    id: str
    name: str
    document_count: int = Field(description="live documents")
    created_at: datetime
    default: bool = Field(description="the base a request that names none writes to; it cannot be renamed or "
                                      "deleted")


class Me(BaseModel):
    name: str = Field(description="the key's name; `token` for DROPQA_API_TOKEN; `local` on an open loopback server")
    role: str = Field(description="reader, editor or admin")
    via: str = Field(description="key, token, or open (loopback without a token or keys)")
    kbs: list[BaseInfo] = Field(description="the bases the caller may read")


class BaseName(BaseModel):
    name: str = Field(min_length=1, max_length=base_store.MAX_NAME_CHARS,
                      description="letters (any script), digits, '_', '.', '-'")


class BaseDeleted(BaseModel):
    name: str
    documents: int
    versions: int
    topics: int
    jobs: int
    answers: int
    files_freed: int


def base_info(row: dict[str, Any]) -> BaseInfo:
    return BaseInfo(id=str(row["id"]), name=row["name"], document_count=int(row["document_count"]),
                    created_at=row["created_at"], default=row["id"] == base_store.DEFAULT_KB)


def _readable(db: Any, caller: access.Caller) -> list[BaseInfo]:
    return [base_info(r) for r in base_store.list_bases(db, access.readable(db, caller))]


@router.get("/me", response_model=Me)
def me(caller: CallerDep, db: DbDep) -> Me:
    """Who the credential is, its role, and the bases it may read (what the web page shows)."""
    return Me(name=caller.name, role=caller.role, via=caller.via, kbs=_readable(db, caller))


@router.get("/kbs", response_model=list[BaseInfo])
def list_bases(caller: CallerDep, db: DbDep) -> list[BaseInfo]:
    """The bases the caller may read (an admin: every base), `default` first."""
    return _readable(db, caller)


@router.post("/kbs", response_model=BaseInfo, status_code=201)
def create_base(req: BaseName, _: AdminDep, db: DbDep) -> BaseInfo:
    """Make a knowledge base (admin). 409 `kb_exists` when the name is taken (names ignore case)."""
    return base_info(base_store.create(db, req.name))


@router.patch("/kbs/{name}", response_model=BaseInfo)
def rename_base(name: str, req: BaseName, _: AdminDep, db: DbDep) -> BaseInfo:
    """Rename a base (admin); its documents, keys and history keep it. `default` cannot be renamed."""
    return base_info(base_store.rename(db, name, req.name))


@router.delete("/kbs/{name}", response_model=BaseDeleted)
def delete_base(name: str, _: AdminDep, db: DbDep) -> BaseDeleted:
    """Delete a base and everything of it, in one transaction (admin): its documents, versions, stored
    file bytes nothing else names, topics, jobs, answers and conversations. `default` cannot be deleted."""
    return BaseDeleted(**base_store.delete(db, name))
