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
from dropqa.models.chat import UnreadableReply, batch_structured, chat_providers

log = logging.getLogger(__name__)
Reply = TypeVar("Reply", bound=BaseModel)


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
        exception that prevented it (a failed request, or ``UnreadableReply`` for a reply that does not fit)."""
        providers = chat_providers(self.models) if prompts else []
        if not providers:
            return []
        out = batch_structured(providers, [[HumanMessage(p)] for p in prompts], schema, self.concurrency)
        for reply in out:
            if isinstance(reply, Exception) and not isinstance(reply, UnreadableReply):
                log.warning("enrichment request failed: %s: %s", type(reply).__name__, reply)
        return out
