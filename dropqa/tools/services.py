"""The long-lived things tools and graph nodes need: settings, database, embedder.

Built once by whoever runs the graph (API lifespan, CLI, eval runner) and passed
in the graph's run-time context (``tools.context.ToolContext``) — never opened behind
the caller's back. LangGraph Studio (``langgraph dev``) cannot pass Python objects, so
its entry point (``dropqa/graph/studio.py``) opens its own from the environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dropqa.config import Settings
from dropqa.models.embeddings import Embedder, get_embedder
from dropqa.store.db import Database
from dropqa.store.vectors import ensure_vector_index


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    _chat: list[tuple[str, Any]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """What every run reads once is made here, where blocking is fine — never on a run's event
        loop: the chat clients (their TLS set-up reads certificate files) and the answerability fit."""
        from dropqa.models.chat import chat_providers
        from dropqa.tools.answerability import calibration

        self._chat = chat_providers(self.settings.models)
        path = self.settings.retrieval.calibration_file
        calibration(str(path) if path else None)

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

