"""The one chat-model factory, used by the graph, ingestion and the eval judge.

``models.chat.model`` empty means offline mode (no chat model): the graph then uses its
deterministic planner and extractive answers. A model is built with LangChain's
``init_chat_model`` for ``models.chat.provider`` (default ``openai``: any OpenAI-compatible
endpoint, ``base_url``); ``models.fallbacks`` lists other endpoints tried in order when the
primary errors or times out (seed 003), through ``with_fallbacks``.

:func:`chat_runnable` is what callers invoke: every provider's model (with tools bound or a
structured-output schema when asked), each tagged with its provider name so the caller can
count usage per provider, chained with ``with_fallbacks``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import ValidationError

from dropqa.config import ChatModelSettings, ModelSettings

log = logging.getLogger(__name__)
PROVIDER_KEY = "dropqa_provider"  # response_metadata key (plain replies) / dict key (structured replies)


def _model_name(cfg: ChatModelSettings) -> str:
    """The model's name as its provider knows it (``openai/gpt-4o-mini`` → ``gpt-4o-mini``)."""
    return cfg.model.split("/", 1)[1] if cfg.model.startswith("openai/") else cfg.model


def build_chat_model(cfg: ChatModelSettings) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    model = _model_name(cfg)
    kwargs: dict[str, Any] = {"temperature": cfg.temperature, "timeout": cfg.timeout_s, "max_retries": cfg.max_retries}
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    if cfg.provider == "openai":
        kwargs["api_key"] = cfg.api_key or "not-needed"  # local OpenAI-compatible servers take any key
        kwargs["stream_usage"] = True
    elif cfg.api_key:
        kwargs["api_key"] = cfg.api_key
    return init_chat_model(model, model_provider=cfg.provider, **kwargs)  # type: ignore[return-value]


def provider_name(cfg: ChatModelSettings) -> str:
    """How usage and logs name a provider: ``model@base_url`` (``model`` without a base URL)."""
    model = _model_name(cfg)
    return f"{model}@{cfg.base_url}" if cfg.base_url else model


def chat_providers(settings: ModelSettings) -> list[tuple[str, BaseChatModel]]:
    """``(name, model)`` for the primary model and its fallbacks, in the order tried; [] offline."""
    if not settings.chat.model:
        return []
    configs = [settings.chat, *(f for f in settings.fallbacks if f.model)]
    return [(provider_name(c), build_chat_model(c)) for c in configs]


def _validated(reply: dict[str, Any], schema: Any) -> dict[str, Any]:
    """The structured reply with ``parsed`` as a ``schema`` instance, or None and the reason: the
    model is asked for the schema's JSON (not the pydantic class, whose client-side parse raises and
    loses the reply and the tokens it cost), so the reply is validated here."""
    parsed = reply.get("parsed")
    if parsed is None or isinstance(parsed, schema):
        return reply
    try:
        return {**reply, "parsed": schema.model_validate(parsed)}
    except ValidationError as exc:
        return {**reply, "parsed": None, "parsing_error": exc}


def _tagged(name: str, runnable: Runnable, structured: Any, errors: list[str] | None) -> Runnable:
    """``runnable`` whose reply says which provider gave it; a failure is logged (and added to
    ``errors``), then raised (``with_fallbacks`` moves on to the next provider). Sync and async
    (``ainvoke`` awaits the provider's own async client, so cancelling the run cancels the request)."""
    def failed(exc: Exception) -> None:
        log.warning("chat provider %s failed: %s: %s", name, type(exc).__name__, str(exc)[:200])
        if errors is not None:
            errors.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")

    def tag(reply: Any) -> Any:
        if structured:
            return {**_validated(reply, structured), PROVIDER_KEY: name}
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(getattr(reply, "content", reply)))
        reply.response_metadata[PROVIDER_KEY] = name
        return reply

    def call(messages: Any) -> Any:
        try:
            reply = runnable.invoke(messages)
        except Exception as exc:
            failed(exc)
            raise
        return tag(reply)

    async def acall(messages: Any) -> Any:
        try:
            reply = await runnable.ainvoke(messages)
        except Exception as exc:
            failed(exc)
            raise
        return tag(reply)

    return RunnableLambda(call, afunc=acall, name=name)


def chat_runnable(providers: Sequence[tuple[str, BaseChatModel]], tools: Sequence[Any] | None = None,
                  schema: type | None = None, errors: list[str] | None = None) -> Runnable | None:
    """Every provider (tools bound, or replying with ``schema`` through ``with_structured_output``),
    tried in order with ``with_fallbacks``; None offline.

    A structured reply is ``{"parsed": <schema instance | None>, "raw": AIMessage, "parsing_error": …,
    PROVIDER_KEY: name}``; a plain one an AIMessage with ``response_metadata[PROVIDER_KEY]``.
    ``errors`` collects one line per provider that failed."""
    def prepare(model: BaseChatModel) -> Runnable:
        if schema is not None:
            json_schema = {"title": schema.__name__, "description": (schema.__doc__ or schema.__name__).strip(),
                           **schema.model_json_schema()}
            return model.with_structured_output(json_schema, include_raw=True)
        return model.bind_tools(list(tools)) if tools else model

    chain: list[Runnable] = [_tagged(name, prepare(model), schema, errors) for name, model in providers]
    if not chain:
        return None
    first, *rest = chain
    return first.with_fallbacks(rest) if rest else first


def chat_with_fallbacks(settings: ModelSettings, schema: type | None = None) -> Runnable | None:
    """The configured models as one runnable (see :func:`chat_runnable`); None offline."""
    return chat_runnable(chat_providers(settings), schema=schema)


def vision_runnable(settings: ModelSettings, schema: type) -> tuple[str, Runnable] | None:
    """``(name, runnable)`` for the vision model (``models.vision``) replying with ``schema`` (structured
    output, see :func:`chat_runnable`); None when no vision model is configured."""
    cfg = settings.vision
    if not cfg.model:
        return None
    name = provider_name(cfg)
    runnable = chat_runnable([(name, build_chat_model(cfg))], schema=schema)
    assert runnable is not None
    return name, runnable
