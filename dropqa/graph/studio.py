"""The LangGraph Studio entry point (``langgraph.json``): the graph whose context opens its own services.

``langgraph dev`` cannot pass Python objects in a run's context, so here — and only here —
the services are built from the environment's Settings (``DATABASE_URL``, ``DROPQA_*``),
once per process, when the first run's context is made. Everything else (API, CLI, evals)
passes the services it opened in ``Context(services=...)``.
"""

from __future__ import annotations

import threading

from dropqa.config import get_settings
from dropqa.graph.context import Context
from dropqa.graph.graph import build_graph
from dropqa.tools.services import Services

_services: Services | None = None
_lock = threading.Lock()


def studio_services() -> Services:
    """This process's services, opened from the environment on first use."""
    global _services
    with _lock:
        if _services is None:
            _services = Services.open(get_settings())
        return _services


class StudioContext(Context):
    """Studio sends the context as JSON (``{}`` or ``{"top_k": 5}``); the services come from here,
    opened on first use inside a node — not while LangGraph's server builds the context on its
    event loop, where a blocking call (starting PostgreSQL) is refused."""

    def __init__(self, top_k: int | None = None):
        self.top_k = top_k

    @property  # type: ignore[override]
    def services(self) -> Services:
        return studio_services()


graph = build_graph(StudioContext).compile(name="dropqa")
