"""Chat model factory: any OpenAI-compatible endpoint through langchain-openai.

``models.chat.model`` empty means offline mode (no chat model): the graph then uses
its deterministic planner and extractive answers. ``models.fallbacks`` lists other
endpoints tried in order when the primary errors or times out (seed 003).
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from dropqa.config import ChatModelSettings, ModelSettings


def build_chat_model(cfg: ChatModelSettings) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    model = cfg.model.split("/", 1)[1] if cfg.model.startswith("openai/") else cfg.model
    return ChatOpenAI(
        model=model,
        base_url=cfg.base_url,
        api_key=cfg.api_key or "not-needed",  # type: ignore[arg-type]
        temperature=cfg.temperature,
        timeout=cfg.timeout_s,
        max_retries=cfg.max_retries,
        stream_usage=True,
    )


def chat_models(settings: ModelSettings) -> list[BaseChatModel]:
    """The primary model followed by its fallbacks; empty in offline mode."""
    if not settings.chat.model:
        return []
    return [build_chat_model(settings.chat)] + [build_chat_model(f) for f in settings.fallbacks if f.model]


def chat_with_fallbacks(settings: ModelSettings) -> Runnable | None:
    models = chat_models(settings)
    if not models:
        return None
    primary, *rest = models
    return primary.with_fallbacks(rest) if rest else primary
