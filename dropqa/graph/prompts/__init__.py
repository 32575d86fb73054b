"""Prompt and message templates live in files beside this module, one per language.

Model prompts go through the one loader (``dropqa.models.prompts``: a missing value raises);
user-facing messages (``messages.<lang>.yaml``) are rendered leniently — a message never
stops an answer. All of them are read when this module is imported: the graph's async nodes never
read a file on the event loop."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template

import yaml

from dropqa.models import prompts


@lru_cache(maxsize=8)
def messages(language: str) -> dict[str, str]:
    """User-facing message templates (``messages.<lang>.yaml``), validated on load."""
    text = resources.files("dropqa.graph.prompts").joinpath(f"messages.{language}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    for key, value in data.items():
        if not isinstance(value, str) or not Template(value).is_valid():
            raise ValueError(f"messages.{language}.yaml: {key} must be a valid $-template string")
    return data


def render(language: str, key: str, **values: object) -> str:
    return Template(messages(language)[key]).safe_substitute(**values)


def fill(name: str, language: str, **values: object) -> str:
    """A model prompt (``<name>.<lang>.md``) with its ``$placeholders`` filled; a missing value is an
    error (``dropqa.models.prompts``), never a ``$name`` sent to the model."""
    return prompts.fill("dropqa.graph.prompts", f"{name}.{language}.md", values)


LANGUAGES = ("zh", "en")
for _language in LANGUAGES:
    messages(_language)
prompts.preload("dropqa.graph.prompts")
