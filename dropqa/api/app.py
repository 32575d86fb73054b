"""The FastAPI application: services, embedded ingestion workers and the MCP session manager
live in ``lifespan``; one router per resource; the web page; MCP at ``/mcp``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
from fastapi import Depends, FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import Route

from dropqa import __version__, blocking
from dropqa.api.auth import Identify, KeyGate
from dropqa.api.edge import refuse_unstorable_text
from dropqa.api.errors import install_error_handlers
from dropqa.api.hosts import HostGuard, allowed_names
from dropqa.api.limits import DeclaredSizeLimit
from dropqa.api.load import RunLimiter
from dropqa.api.routers import bases, documents, health, images, jobs, keys, nodes, openai_compat, qa, topics
from dropqa.api.workers import EmbeddedWorkers
from dropqa.config import Settings
from dropqa.services import Services

log = logging.getLogger(__name__)

DESCRIPTION = """Ask questions about your documents; answers cite the section they come from.

Documents live in knowledge bases; routes take `kb` (a base name) to pick them, and default to every
base the caller may read. When the server has a token (`DROPQA_API_TOKEN`) or API keys
(`dropqa keys create`), every route but `/api/health` needs `Authorization: Bearer <token or key>`;
a key reads only its own bases, and an id of any other base is 404.
Errors are JSON: `{"error": {"code": "...", "message": "..."}}`.
"""


def create_app(settings: Settings, services: Services | None = None) -> FastAPI:
    """Build the app. Pass ``services`` to share an already-open pool (tests, ``dropqa serve``);
    the app then leaves closing it to the caller."""
    token = settings.api_token
    api_token = token.get_secret_value() if token else None
    limiter = RunLimiter(settings.api.max_concurrent_runs, settings.api.max_waiting_runs, settings.api.queue_wait_s)
    mcp = None
    if settings.api.mcp_enabled:
        from dropqa.api.mcp_server import build_mcp

        mcp = build_mcp(lambda: app.state.services, limiter)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        # blocking work (database calls, runs) shares one bounded thread pool, sized from Settings
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.api.thread_pool_size
        blocking.configure(settings.api.thread_pool_size, settings.api.thread_idle_s)  # the runs' threads
        app.state.services = services or await run_in_threadpool(Services.open, settings)
        workers = EmbeddedWorkers(app.state.services, settings.api.embedded_workers)
        app.state.workers = workers
        try:
            async with AsyncExitStack() as stack:
                if mcp is not None:
                    await stack.enter_async_context(mcp.session_manager.run())
                workers.start()
                yield
        finally:
            await run_in_threadpool(workers.stop)
            if owned:
                from dropqa.runtime.threads import close_all

                close_all()  # the conversation checkpointer's pool, if a thread was used
                app.state.services.close()

    app = FastAPI(title="DropQA", version=__version__, lifespan=lifespan, description=DESCRIPTION,
                  dependencies=[Depends(refuse_unstorable_text)])  # NUL & co. in any field: 422 naming it
    app.state.api_token = api_token
    app.state.limiter = limiter
    # Body limits: a declared Content-Length over the limit is refused up front (JSON 413); bodies
    # without one are counted by the routers' max_body_size. (Not FastAPI(max_body_size=…): that
    # one sits outside the error handlers and answers in plain text.)
    app.add_middleware(DeclaredSizeLimit, default_limit=settings.api.max_request_bytes,
                       limits={documents.UPLOAD_PATH: settings.api.max_upload_bytes})
    # the credential before any body is read or parsed
    app.add_middleware(KeyGate, identify=Identify(api_token, lambda: app.state.services))
    if settings.api.cors_origins:  # off unless configured
        app.add_middleware(CORSMiddleware, allow_origins=settings.api.cors_origins, allow_methods=["*"],
                           allow_headers=["*"])
    app.add_middleware(HostGuard, allowed=allowed_names(settings.api.allowed_hosts, settings.api.host))
    install_error_handlers(app)
    app.include_router(health.router)
    # the file count is checked by the route (413 with a clear message); the form parser's own
    # limits stay as a backstop, the body limit bounds what is spooled to disk
    app.include_router(documents.upload_router, max_body_size=settings.api.max_upload_bytes,
                       form_limits={"max_files": max(1000, settings.api.max_upload_files), "max_fields": 20})
    for module in (bases, keys, documents, jobs, topics, qa, nodes, images, openai_compat):
        app.include_router(module.router, max_body_size=settings.api.max_request_bytes)
    if mcp is not None:
        from dropqa.api.mcp_server import http_endpoint

        app.router.routes.append(Route("/mcp", http_endpoint(mcp, settings),
                                       methods=["GET", "POST", "DELETE"]))
    _mount_web(app)
    return app


def _mount_web(app: FastAPI) -> None:
    """The web page (static files, no token: they hold no document data)."""
    try:
        from dropqa.api.web import mount_web
    except ImportError:  # a build without the page still serves the API
        log.warning("the web page is not available (dropqa.api.web missing)")
        return
    mount_web(app)
