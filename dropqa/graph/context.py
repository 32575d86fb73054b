"""Run-time context passed to every node (``context_schema``): services and per-run knobs."""

from __future__ import annotations

from dataclasses import dataclass

from dropqa.tools.services import Services, default_services


@dataclass
class Context:
    """``services`` is None under LangGraph Studio; nodes then open the process default."""

    services: Services | None = None
    top_k: int | None = None

    def svc(self) -> Services:
        return self.services or default_services()
