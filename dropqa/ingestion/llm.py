"""The chat model as ingestion uses it: many small structured requests, bounded concurrency, no surprises.

Built only when a chat model is configured (``models.chat.model``) and
``ingestion.model_enrichment`` is on. Every request goes through the configured
provider and its fallbacks (``dropqa.models.chat``) with ``with_structured_output``;
a request that fails or answers something that does not fit the schema comes back
as an exception object, never raised, so callers fall back to the offline result
for that piece and count it.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from dropqa.config import ModelSettings, Settings
from dropqa.models.chat import chat_with_fallbacks

log = logging.getLogger(__name__)
Reply = TypeVar("Reply", bound=BaseModel)


class BadReply(ValueError):
    """The model answered, but not with what the prompt asked for."""


class EnrichmentModel:
    def __init__(self, models: ModelSettings, concurrency: int):
        self.models = models
        self.concurrency = max(1, concurrency)
        self.name = models.chat.model or "chat"

    @classmethod
    def from_settings(cls, settings: Settings) -> EnrichmentModel | None:
        if not settings.ingestion.model_enrichment or not settings.models.chat.model:
            return None
        return cls(settings.models, settings.ingestion.context_concurrency)

    def ask_many(self, prompts: list[str], schema: type[Reply]) -> list[Reply | Exception]:
        """Send each prompt (at most ``concurrency`` at a time); each answer as ``schema``, or the
        exception that prevented it (a failed request, or :class:`BadReply`)."""
        runnable = chat_with_fallbacks(self.models, schema=schema) if prompts else None
        if runnable is None:
            return []
        replies = runnable.batch([[HumanMessage(p)] for p in prompts],
                                 config={"max_concurrency": self.concurrency}, return_exceptions=True)
        out: list[Reply | Exception] = []
        for reply in replies:
            if isinstance(reply, Exception):
                log.warning("enrichment request failed: %s: %s", type(reply).__name__, reply)
                out.append(reply)
            elif reply.get("parsed") is None:
                out.append(BadReply(f"the reply does not fit {schema.__name__}: {reply.get('parsing_error')}"[:300]))
            else:
                out.append(reply["parsed"])
        return out
