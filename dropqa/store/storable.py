"""Text PostgreSQL refuses: the one rule every edge holds input to, before it reaches the database.

A ``text`` value cannot hold NUL (``\\x00``: "invalid byte sequence for encoding UTF8: 0x00"), and a
string with an unpaired UTF-16 surrogate (JSON's ``"\\ud800"``) is not Unicode text at all — it cannot
even be encoded to send. The API refuses both with a 422 that names the field (``dropqa.api.edge``),
the tools (the agent's and MCP's) with an error that names the argument.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def refusal(text: str) -> str | None:
    """Why PostgreSQL cannot take ``text`` (``None``: it can)."""
    if "\x00" in text:
        return "NUL characters (\\x00) are not allowed: the database cannot store them"
    if _SURROGATE.search(text):
        return "unpaired surrogates (\\ud800-\\udfff) are not allowed: they are not valid Unicode text"
    return None


def refused(value: Any, loc: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """``(location, reason)`` for every string inside ``value`` (a JSON-like value: dicts, lists, strings)
    that :func:`refusal` refuses — dictionary keys too, located at their own entry."""
    if isinstance(value, str):
        reason = refusal(value)
        if reason:
            yield loc, reason
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and (reason := refusal(key)):
                yield (*loc, key), f"key: {reason}"
            yield from refused(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from refused(item, (*loc, i))
