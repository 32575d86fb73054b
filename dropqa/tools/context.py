"""The run-time context every tool and graph node gets (LangGraph's ``context_schema``)."""

from __future__ import annotations

from dataclasses import dataclass

from dropqa.tools.services import Services


@dataclass
class ToolContext:
    """``services`` is always passed in by whoever runs the graph (API, CLI, evals); only the
    LangGraph Studio entry point (``dropqa/graph/studio.py``) builds its own."""

    services: Services
    top_k: int | None = None  # passages the first retrieval keeps (default: Settings.retrieval.pool_k)
