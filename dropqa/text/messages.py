"""User-facing messages in Chinese and English (``messages.<lang>.yaml`` beside this module).

Answers' lead lines, the reasoning trace and "not in the documents" are written from these
templates, by offline answering and by the graph alike. They are rendered leniently — a
message never stops an answer — and read when this module is imported, so an async node never
reads a file on the event loop and a malformed template stops the program at start.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template

import yaml

LANGUAGES = ("zh", "en")


@lru_cache(maxsize=8)
def messages(language: str) -> dict[str, str]:
    """The message templates of ``language``, validated on load."""
    text = resources.files("dropqa.text").joinpath(f"messages.{language}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    for key, value in data.items():
        if not isinstance(value, str) or not Template(value).is_valid():
            raise ValueError(f"messages.{language}.yaml: {key} must be a valid $-template string")
    return data


def render(language: str, key: str, **values: object) -> str:
    return Template(messages(language)[key]).safe_substitute(**values)


for _language in LANGUAGES:
    messages(_language)
