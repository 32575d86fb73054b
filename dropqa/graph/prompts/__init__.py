"""The graph's model prompts, one file per prompt and language (``<name>.<lang>.md``) beside this module.

They go through the one loader (``dropqa.models.prompts``: a missing value raises) and are all read
when this module is imported, so the graph's async nodes never read a file on the event loop.
User-facing messages are not prompts: they live in ``dropqa.text.messages``.
"""

from __future__ import annotations

from dropqa.models import prompts


def fill(name: str, language: str, **values: object) -> str:
    """A model prompt (``<name>.<lang>.md``) with its ``$placeholders`` filled; a missing value is an
    error (``dropqa.models.prompts``), never a ``$name`` sent to the model."""
    return prompts.fill("dropqa.graph.prompts", f"{name}.{language}.md", values)


prompts.preload("dropqa.graph.prompts")
