"""``Annotated`` dependency aliases so routes read ``def ask(req: AskRequest, svc: ServicesDep)``.

``CallerDep`` is who asks (left on the request by :class:`~dropqa.api.auth.KeyGate`); ``ScopeDep`` is what
the request may read — the bases its ``kb`` query parameters name among the caller's, or all of the
caller's — and is what every route that reads the store passes on; ``EditorDep`` and ``AdminDep`` refuse
callers below that role (403) before anything is looked up.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request

from dropqa.api import access
from dropqa.api.auth import CALLER
from dropqa.api.load import RunLimiter
from dropqa.config import Settings
from dropqa.services import Services
from dropqa.store.db import Database
from dropqa.store.scope import Scope


def get_services(request: Request) -> Services:
    return request.app.state.services


def get_db(request: Request) -> Database:
    return request.app.state.services.db


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.services.settings


def get_limiter(request: Request) -> RunLimiter:
    return request.app.state.limiter


def get_caller(request: Request) -> access.Caller:
    caller = request.scope.get("state", {}).get(CALLER)
    if not isinstance(caller, access.Caller):  # a protected route reached without the gate: a wiring error
        raise HTTPException(401, "no credential was checked for this route", headers={"WWW-Authenticate": "Bearer"})
    return caller


KbNames = Annotated[list[str] | None, Query(max_length=20, description="knowledge base names (repeat for several); "
                                            "default: every base the caller may read")]


def read_scope(request: Request, kb: KbNames = None) -> Scope:
    """The bases this request reads (``kb`` among the caller's, or all of them): a base the caller may not
    use is 404 ``kb_not_found``, the same as one that does not exist."""
    return access.scope_for(get_db(request), get_caller(request), kb)


def editor(request: Request) -> access.Caller:
    return access.require(get_caller(request), "editor")


def admin(request: Request) -> access.Caller:
    return access.require(get_caller(request), "admin")


def key_admin(request: Request) -> access.Caller:
    return access.key_admin(get_caller(request))


ServicesDep = Annotated[Services, Depends(get_services)]
DbDep = Annotated[Database, Depends(get_db)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
LimiterDep = Annotated[RunLimiter, Depends(get_limiter)]
CallerDep = Annotated[access.Caller, Depends(get_caller)]
ScopeDep = Annotated[Scope, Depends(read_scope)]
EditorDep = Annotated[access.Caller, Depends(editor)]
AdminDep = Annotated[access.Caller, Depends(admin)]
KeyAdminDep = Annotated[access.Caller, Depends(key_admin)]
