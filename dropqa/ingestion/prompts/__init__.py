"""Prompts of ingestion-time enrichment (chunk contexts, topic names), one file per language.

``<name>.<lang>.md`` with ``$placeholders`` (``string.Template``); :func:`fill` checks
that a prompt uses exactly the placeholders its caller provides, so a broken
prompt file fails loudly at the first use instead of sending a half-filled prompt.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template

PLACEHOLDERS = {
    "context": {"document", "document_summary", "section", "section_summary", "chunks", "count"},
    "topics": {"document", "summary", "keywords", "count"},
}


@lru_cache(maxsize=16)
def prompt(name: str, language: str) -> Template:
    lang = language if language in ("zh", "en") else "en"
    text = resources.files("dropqa.ingestion.prompts").joinpath(f"{name}.{lang}.md").read_text("utf-8").strip()
    template = Template(text)
    found = set(template.get_identifiers())
    if not template.is_valid() or found != PLACEHOLDERS[name]:
        raise ValueError(f"prompt {name}.{lang}.md must use exactly ${', $'.join(sorted(PLACEHOLDERS[name]))}; "
                         f"it uses {sorted(found)}")
    return template


def fill(name: str, language: str, **values: object) -> str:
    return prompt(name, language).substitute(**values)
