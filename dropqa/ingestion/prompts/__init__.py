"""Prompts of ingestion-time enrichment (chunk contexts, topic names, image readings), one file per language.

``<name>.<lang>.md`` with ``$placeholders``, filled by the one loader (``dropqa.models.prompts``); :func:`fill` checks
that a prompt uses exactly the placeholders its caller provides, so a broken
prompt file fails loudly at the first use instead of sending a half-filled prompt.
"""

from __future__ import annotations

from dropqa.models import prompts

PLACEHOLDERS = {
    "context": {"document", "document_summary", "section", "section_summary", "chunks", "count"},
    "cluster_topic": {"documents", "phrases"},
    "read_image": {"document"},
}


def fill(name: str, language: str, **values: object) -> str:
    lang = language if language in ("zh", "en") else "en"
    return prompts.fill("dropqa.ingestion.prompts", f"{name}.{lang}.md", values, expected=PLACEHOLDERS[name])
