"""The chat model as ingestion uses it: many small JSON requests, bounded concurrency, no surprises.

Built only when a chat model is configured (``models.chat.model``) and
``ingestion.model_enrichment`` is on. Every request goes through the configured
provider and its fallbacks (``dropqa.models.chat``); a request that fails or
answers something unusable comes back as an exception object, never raised, so
callers fall back to the offline result for that piece and count it.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from langchain_core.messages import HumanMessage

from dropqa.config import Settings
from dropqa.models.chat import chat_with_fallbacks

log = logging.getLogger(__name__)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class BadReply(ValueError):
    """The model answered, but not with what the prompt asked for."""


class EnrichmentModel:
    def __init__(self, runnable: Any, concurrency: int):
        self.runnable = runnable
        self.concurrency = max(1, concurrency)
        self.name = str(getattr(runnable, "model_name", None) or getattr(runnable, "model", None) or "chat")

    @classmethod
    def from_settings(cls, settings: Settings) -> EnrichmentModel | None:
        if not settings.ingestion.model_enrichment:
            return None
        runnable = chat_with_fallbacks(settings.models)
        return cls(runnable, settings.ingestion.context_concurrency) if runnable is not None else None

    def json_many(self, prompts: list[str], key: str) -> list[list[Any] | Exception]:
        """Send each prompt (at most ``concurrency`` at a time); each answer's JSON list under ``key``,
        or the exception that prevented it."""
        if not prompts:
            return []
        replies = self.runnable.batch([[HumanMessage(p)] for p in prompts],
                                      config={"max_concurrency": self.concurrency}, return_exceptions=True)
        out: list[list[Any] | Exception] = []
        for reply in replies:
            if isinstance(reply, Exception):
                log.warning("enrichment request failed: %s: %s", type(reply).__name__, reply)
                out.append(reply)
                continue
            try:
                out.append(json_list(str(getattr(reply, "content", reply)), key))
            except BadReply as exc:
                out.append(exc)
        return out


def json_list(text: str, key: str) -> list[Any]:
    """The list under ``key`` of the JSON object in ``text`` (tolerates code fences and chatter
    around the object)."""
    cleaned = _FENCE.sub("", text.strip())
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if start == -1 or end <= start:
        raise BadReply(f"no JSON object in the reply: {text[:120]!r}")
    try:
        data = json.loads(cleaned[start : end + 1])
    except json.JSONDecodeError as exc:
        raise BadReply(f"invalid JSON in the reply: {exc}") from exc
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, list):
        raise BadReply(f"the reply has no list {key!r}")
    return value
