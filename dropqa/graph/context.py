"""Run-time context passed to every node (``context_schema``): the tools' context — services and
per-run knobs. Defined in ``tools/`` so the tools can type it without importing the graph."""

from __future__ import annotations

from dropqa.tools.context import ToolContext

Context = ToolContext

__all__ = ["Context"]
