"""API keys (admin keys and the token only; never the open loopback caller — the first admin key is made
by ``dropqa keys create``): list, create (the key is shown once), revoke."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from dropqa.api.deps import DbDep, KeyAdminDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.store import bases as base_store
from dropqa.store import keys as key_store

router = APIRouter(prefix="/api/keys", tags=["keys"], responses=ERROR_RESPONSES)


class KeyInfo(BaseModel):
    name: str
    role: str
    kbs: list[str] = Field(description="the bases a reader or editor key may use (empty for an admin key: every "
                                       "base)")
    prefix: str = Field(description="the key's first characters, to tell keys apart (the key itself is never "
                                    "shown again)")
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class NewKey(BaseModel):
    name: str = Field(min_length=1, max_length=key_store.MAX_NAME_CHARS)
    role: Literal["reader", "editor", "admin"]
    kb: list[str] = Field(default_factory=list, max_length=100, description="base names (readers and editors; "
                                                                             "none for an admin key)")


class CreatedKey(KeyInfo):
    key: str = Field(description="the key, shown this once; send it as `Authorization: Bearer <key>`")


def key_info(row: dict[str, Any]) -> KeyInfo:
    return KeyInfo(name=row["name"], role=row["role"], kbs=list(row["kbs"] or []), prefix=row["key_prefix"],
                   created_at=row["created_at"], last_used_at=row["last_used_at"], revoked_at=row["revoked_at"])


@router.get("", response_model=list[KeyInfo])
def list_keys(_: KeyAdminDep, db: DbDep) -> list[KeyInfo]:
    """Every key, live ones first, with when it was last used."""
    return [key_info(r) for r in key_store.list_keys(db)]


@router.post("", response_model=CreatedKey, status_code=201)
def create_key(req: NewKey, _: KeyAdminDep, db: DbDep) -> CreatedKey:
    """Make a key; the response carries the key itself, the only time it is shown."""
    kb_ids = base_store.resolve(db, req.kb)
    key, row = key_store.create(db, req.name, req.role, kb_ids)
    return CreatedKey(**key_info(row).model_dump(), key=key)


@router.delete("/{name}", response_model=KeyInfo)
def revoke_key(name: str, _: KeyAdminDep, db: DbDep) -> KeyInfo:
    """Revoke the live key of that name: refused from its next request on."""
    revoked = key_store.revoke(db, name)
    return key_info(next(r for r in key_store.list_keys(db) if r["id"] == revoked["id"]))
