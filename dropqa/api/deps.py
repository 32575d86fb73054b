"""``Annotated`` dependency aliases so routes read ``def ask(req: AskRequest, svc: ServicesDep)``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from dropqa.api.load import RunLimiter
from dropqa.config import Settings
from dropqa.services import Services
from dropqa.store.db import Database


def get_services(request: Request) -> Services:
    return request.app.state.services


def get_db(request: Request) -> Database:
    return request.app.state.services.db


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.services.settings


def get_limiter(request: Request) -> RunLimiter:
    return request.app.state.limiter


ServicesDep = Annotated[Services, Depends(get_services)]
DbDep = Annotated[Database, Depends(get_db)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
LimiterDep = Annotated[RunLimiter, Depends(get_limiter)]
