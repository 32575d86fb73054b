"""What a run needs, built once: :class:`Services` (settings, database, embedder, chat models, the fitted
answerability model) and :class:`Context`, the run-time context every graph node and tool gets
(LangGraph's ``context_schema``).

Whoever runs the graph (API lifespan, CLI, eval runner) opens the services and passes them in
``Context(services=...)`` — never opened behind the caller's back. LangGraph Studio (``langgraph dev``)
cannot pass Python objects, so a context made without services (Studio's, from JSON) opens the
process's own from the environment on first use (:func:`environment_services`), inside a node.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dropqa.config import Settings, get_settings
from dropqa.models.calibration import Calibration, load_calibration
from dropqa.models.embeddings import Embedder, get_embedder
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.vectors import ensure_vector_index


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    _chat: list[tuple[str, Any]] = field(init=False, repr=False)
    calibration: Calibration = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """What every run reads once is made here, where blocking is fine — never on a run's event
        loop: the chat clients (their TLS set-up reads certificate files) and the answerability fit."""
        from dropqa.models.chat import chat_providers

        self._chat = chat_providers(self.settings.models)
        self.calibration = load_calibration(self.settings.retrieval.calibration_file)

    @property
    def chat_providers(self) -> list[tuple[str, Any]]:
        """``(name, chat model)``: the model and its fallbacks, in the order they are tried; empty offline."""
        return self._chat

    @classmethod
    def open(cls, settings: Settings) -> Services:
        from dropqa.text.segment import initialize

        db = Database.open(settings)
        embedder = get_embedder(settings.models.embeddings)
        ensure_vector_index(db, embedder.name, embedder.dimensions)
        initialize()
        return cls(settings=settings, db=db, embedder=embedder)

    def close(self) -> None:
        self.db.close()


_environment: Services | None = None
_environment_lock = threading.Lock()


def environment_services() -> Services:
    """This process's services, opened from the environment's Settings on first use (Studio only)."""
    global _environment
    with _environment_lock:
        if _environment is None:
            _environment = Services.open(get_settings())
        return _environment


@dataclass(init=False)
class Context:
    """The run-time context: the services, the knowledge bases the run reads, and per-run knobs.

    ``Context(services=svc, kbs=...)`` from the API, the CLI and the evals: whoever runs the graph decides
    which bases it may read (the caller's access, never the model's choice), and every search, browse
    and tool of the run is held to them (:meth:`scope`). It is not part of the state, so a conversation's
    checkpoints never carry it. Studio sends the context as JSON (``{}`` or ``{"top_k": 5}``): it reads
    the ``default`` base, and its services come from :func:`environment_services`, opened on first use
    inside a node — not while LangGraph's server builds the context on its event loop, where a blocking
    call (starting PostgreSQL) is refused."""

    top_k: int | None  # passages the first retrieval keeps (default: Settings.retrieval.pool_k)
    kbs: tuple[uuid.UUID, ...]  # the knowledge bases the run reads

    def __init__(self, services: Services | None = None, top_k: int | None = None,
                 kbs: Iterable[uuid.UUID | str] | None = None) -> None:
        self._services = services
        self.top_k = top_k
        self.kbs = tuple(uuid.UUID(str(k)) for k in kbs) if kbs is not None else (DEFAULT_KB,)

    def scope(self, version: int | None = None, topics: Iterable[str] = ()) -> Scope:
        """What every read of this run sees: its bases, at ``version``, narrowed to ``topics``."""
        return Scope(kbs=self.kbs, version=version, topics=tuple(topics))

    @property
    def services(self) -> Services:
        if self._services is None:
            self._services = environment_services()
        return self._services
