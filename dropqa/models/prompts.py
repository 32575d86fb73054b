"""The one prompt loader: model prompts live in files (``<name>.<lang>.md`` or ``<name>.md``) inside
a package, with ``$placeholders`` (``string.Template``).

:func:`fill` fails loudly — :class:`PromptError` naming the file and the placeholder — when a
prompt needs a value the caller did not give (``safe_substitute`` would send ``$question`` to
the model as is); with ``expected`` it also checks the file uses exactly those placeholders.
Used by the graph (``dropqa.graph.prompts``), ingestion (``dropqa.ingestion.prompts``) and the
eval judge (``dropqa.evals.prompts``).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from importlib import resources
from string import Template


class PromptError(ValueError):
    """A prompt file is malformed, or a placeholder it uses was not given a value."""


@lru_cache(maxsize=64)
def template(package: str, filename: str) -> Template:
    """The prompt file as a template (cached); a malformed ``$`` is an error at load."""
    text = resources.files(package).joinpath(filename).read_text("utf-8").strip()
    found = Template(text)
    if not found.is_valid():
        raise PromptError(f"{package}/{filename}: invalid $placeholder syntax")
    return found


def preload(package: str) -> None:
    """Read every prompt file of ``package`` now (import time), so a run never reads a file on the
    event loop and a malformed prompt stops the program at start, not in a run."""
    for entry in resources.files(package).iterdir():
        if entry.name.endswith(".md"):
            template(package, entry.name)


def fill(package: str, filename: str, values: dict[str, object], expected: Collection[str] | None = None) -> str:
    """The prompt with every placeholder filled from ``values``."""
    prompt = template(package, filename)
    used = set(prompt.get_identifiers())
    if expected is not None and used != set(expected):
        raise PromptError(f"{package}/{filename} must use exactly ${', $'.join(sorted(expected))}; "
                          f"it uses {sorted(used)}")
    missing = sorted(used - set(values))
    if missing:
        raise PromptError(f"{package}/{filename}: no value for ${', $'.join(missing)}")
    return prompt.substitute(values)
