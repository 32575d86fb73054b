"""Prompt and message templates live in files beside this module, one per language."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template

import yaml


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


@lru_cache(maxsize=32)
def prompt(name: str, language: str) -> str:
    """A model prompt (``<name>.<lang>.md``); ``$name`` placeholders are filled by :func:`fill`."""
    return resources.files("dropqa.graph.prompts").joinpath(f"{name}.{language}.md").read_text("utf-8").strip()


def fill(name: str, language: str, **values: object) -> str:
    return Template(prompt(name, language)).safe_substitute(**values)
