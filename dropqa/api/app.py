"""The FastAPI application: services opened in ``lifespan``, one router per resource."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware

from dropqa import __version__
from dropqa.api.errors import install_error_handlers
from dropqa.api.routers import documents, health, qa
from dropqa.config import Settings
from dropqa.tools.services import Services


def create_app(settings: Settings, services: Services | None = None) -> FastAPI:
    """Build the app. Pass ``services`` to share an already-open pool (tests, ``make run``)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        app.state.services = services or await run_in_threadpool(Services.open, settings)
        try:
            yield
        finally:
            if owned:
                app.state.services.close()

    app = FastAPI(title="DropQA", version=__version__, lifespan=lifespan,
                  description="Ask questions about your documents; answers cite the section they come from.")
    token = settings.api_token or settings.api.token
    app.state.api_token = token.get_secret_value() if token else None
    if settings.api.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.api.cors_origins, allow_methods=["*"],
                           allow_headers=["*"])
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(qa.router)
    app.include_router(documents.router)
    return app
