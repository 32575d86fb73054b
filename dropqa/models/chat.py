"""The one chat-model factory, used by the graph, ingestion and the eval judge.

``models.chat.model`` empty means offline mode (no chat model): the graph then uses its
deterministic planner and extractive answers. A model is built with LangChain's
``init_chat_model`` for ``models.chat.provider`` (default ``openai``: any OpenAI-compatible
endpoint, ``base_url``); ``models.fallbacks`` lists other endpoints tried in order when the
primary errors or times out (seed 003), through ``with_fallbacks``.

:func:`chat_runnable` is what callers invoke: every provider's model (with tools bound or a
structured-output schema when asked), each tagged with its provider name so the caller can
count usage per provider, chained with ``with_fallbacks``. The calls every room makes go through
the functions below it — :func:`ainvoke_chat` (tools bound or not), :func:`ainvoke_structured`,
:func:`invoke_structured` and :func:`batch_structured` — and a structured reply is unwrapped (its
``parsed`` value checked, its tokens counted) only here, in :func:`_unwrap`.

Structured replies are asked for the way each server takes them (:mod:`dropqa.models.structured`): a
``json_schema`` response format first; a server that refuses it (llama-cpp-python answers 500 "Input should
be 'text' or 'json_object'") is asked for ``json_object`` with the schema in the prompt from then on, and
one that refuses that too for plain text with the schema in the prompt — learned once per server
(``model@base_url``) and process, not tried again on every request.

Time: every call of a question may be given a ``deadline`` (``time.time()`` seconds; the question's
model-time budget, ``agent.model_seconds``): a call still waiting then is cancelled (its HTTP request
with it) and raises :class:`ChatUnavailable`, so the offline path answers at once. Every request
carries ``max_tokens`` (``models.chat.max_tokens``): a model that does not stop cannot run on.
Tool calls written as text in another dialect are read back into ``tool_calls`` (:mod:`dropqa.models.toolcalls`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, Field, ValidationError

from dropqa.config import ChatModelSettings, ModelSettings
from dropqa.models import structured as structured_replies
from dropqa.models.toolcalls import recover_tool_calls

log = logging.getLogger(__name__)
PROVIDER_KEY = "dropqa_provider"  # response_metadata key (plain replies) / dict key (structured replies)
Providers = Sequence[tuple[str, BaseChatModel]]
Reply = TypeVar("Reply", bound=BaseModel)


class ProviderUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0


class Usage(BaseModel):
    """Tokens the chat models reported, in all and per provider. ``replace`` marks an update that starts
    the count afresh (a new question of a conversation) instead of adding to it (:func:`add_usage`)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    by_provider: dict[str, ProviderUsage] = Field(default_factory=dict)
    replace: bool = Field(default=False, exclude=True)

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def add_usage(left: Usage | None, right: Usage | None) -> Usage:
    """The reducer of a run's usage: ``right`` added to ``left``, or instead of it when ``right.replace``."""
    if right is None:
        return left or Usage()
    if right.replace or left is None:
        return right.model_copy(update={"replace": False})
    by_provider = {name: p.model_copy() for name, p in left.by_provider.items()}
    for name, p in right.by_provider.items():
        mine = by_provider.setdefault(name, ProviderUsage())
        by_provider[name] = ProviderUsage(prompt_tokens=mine.prompt_tokens + p.prompt_tokens,
                                          completion_tokens=mine.completion_tokens + p.completion_tokens,
                                          calls=mine.calls + p.calls)
    return Usage(prompt_tokens=left.prompt_tokens + right.prompt_tokens,
                 completion_tokens=left.completion_tokens + right.completion_tokens, by_provider=by_provider)


class ChatUnavailable(RuntimeError):
    """Every configured chat provider failed (or none is configured, or the reply was unreadable).
    ``usage``: the tokens an unreadable reply still cost (they count in the run's usage)."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or Usage()


class UnreadableReply(ChatUnavailable):
    """A provider answered, but not in the shape asked for (``reason``: what was wrong or what it said)."""

    def __init__(self, reason: str, usage: Usage | None = None) -> None:
        super().__init__(f"unreadable reply: {reason}", usage)
        self.reason = reason


def _model_name(cfg: ChatModelSettings) -> str:
    """The model's name as its provider knows it (``openai/gpt-4o-mini`` → ``gpt-4o-mini``)."""
    return cfg.model.split("/", 1)[1] if cfg.model.startswith("openai/") else cfg.model


def build_chat_model(cfg: ChatModelSettings) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    model = _model_name(cfg)
    kwargs: dict[str, Any] = {"temperature": cfg.temperature, "timeout": cfg.timeout_s, "max_retries": cfg.max_retries,
                              "max_tokens": cfg.max_tokens}
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    if cfg.provider == "openai" and cfg.base_url:
        # langchain-openai sends max_tokens as OpenAI's newer max_completion_tokens, which servers such as
        # llama-cpp-python's ignore (their reply then runs to the end of the context): another server gets
        # the classic max_tokens, which every OpenAI-compatible server reads.
        del kwargs["max_tokens"]
        kwargs["extra_body"] = {"max_tokens": cfg.max_tokens}
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


def _tagged(name: str, runnable: Runnable | Callable[[str], Runnable], structured: Any,
            errors: list[str] | None) -> Runnable:
    """``runnable`` whose reply says which provider gave it; a failure is logged (and added to
    ``errors``), then raised (``with_fallbacks`` moves on to the next provider). Sync and async
    (``ainvoke`` awaits the provider's own async client, so cancelling the run cancels the request).

    Structured (``runnable`` is then ``method -> Runnable``): the call uses the way of asking this server
    is known to take; a refusal of that way is learned and the call made again the next way."""
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

    def target() -> tuple[str, Runnable]:
        if not structured:
            return "", runnable  # type: ignore[return-value]
        method = structured_replies.method_for(name)
        return method, runnable(method)  # type: ignore[operator]

    def refused(method: str, exc: Exception) -> bool:
        return bool(structured) and structured_replies.learn_refusal(name, method, exc)

    def call(messages: Any) -> Any:
        while True:
            method, current = target()
            try:
                reply = current.invoke(messages)
            except Exception as exc:
                if refused(method, exc):
                    continue
                failed(exc)
                raise
            return tag(reply)

    async def acall(messages: Any) -> Any:
        while True:
            method, current = target()
            try:
                reply = await current.ainvoke(messages)
            except Exception as exc:
                if refused(method, exc):
                    continue
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
    def prepare(model: BaseChatModel) -> Runnable | Callable[[str], Runnable]:
        if schema is not None:
            return structured_replies.asker(model, schema)
        return model.bind_tools(list(tools)) if tools else model

    chain: list[Runnable] = [_tagged(name, prepare(model), schema, errors) for name, model in providers]
    if not chain:
        return None
    first, *rest = chain
    return first.with_fallbacks(rest) if rest else first


def vision_providers(settings: ModelSettings) -> list[tuple[str, BaseChatModel]]:
    """``[(name, model)]`` for the vision model (``models.vision``); [] when none is configured."""
    cfg = settings.vision
    return [(provider_name(cfg), build_chat_model(cfg))] if cfg.model else []


def text_of(message: AIMessage) -> str:
    """The reply's text (a string, or the text parts of a list of content blocks)."""
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content).strip()


def usage_of(message: AIMessage, provider: str) -> Usage:
    """The tokens ``message`` reports, as one call of ``provider``."""
    meta = message.usage_metadata or {}
    prompt, completion = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))
    return Usage(prompt_tokens=prompt, completion_tokens=completion,
                 by_provider={provider: ProviderUsage(prompt_tokens=prompt, completion_tokens=completion, calls=1)})


def _unwrap(out: dict[str, Any], schema: type[Reply]) -> tuple[Reply, Usage]:
    """A structured reply (see :func:`chat_runnable`) as ``(schema instance, usage)``; an unreadable one raises
    :class:`UnreadableReply` carrying the tokens it cost."""
    raw, parsed = out.get("raw"), out.get("parsed")
    usage = usage_of(raw, out.get(PROVIDER_KEY, "model")) if isinstance(raw, AIMessage) else Usage()
    if not isinstance(parsed, schema):
        text = raw.content if isinstance(raw, AIMessage) else raw
        raise UnreadableReply(f"{out.get('parsing_error') or str(text or '')[:200]!r}"[:280], usage)
    return parsed, usage


def _runnable(providers: Providers, tools: Sequence[Any] | None, schema: type | None,
              errors: list[str]) -> Runnable:
    runnable = chat_runnable(providers, tools=tools, schema=schema, errors=errors)
    if runnable is None:
        raise ChatUnavailable("no chat model configured")
    return runnable


def _failed(errors: list[str], exc: Exception) -> ChatUnavailable:
    return ChatUnavailable("; ".join(errors) or f"{type(exc).__name__}: {str(exc)[:200]}")


class OutOfTime(ChatUnavailable):
    """The question's model-time budget is spent (before the call, or while it waited)."""


async def _within(call: Any, deadline: float | None) -> Any:
    """Await ``call`` (a coroutine) until ``deadline`` (``time.time()``); past it the call is cancelled and
    :class:`OutOfTime` raised."""
    if deadline is None:
        return await call
    left = deadline - time.time()
    if left <= 0:
        call.close()
        raise OutOfTime("the question's model time is spent")
    try:
        return await asyncio.wait_for(call, left)
    except TimeoutError as exc:
        raise OutOfTime(f"the question's model time ran out after waiting {left:.1f} s for a reply") from exc


async def ainvoke_chat(providers: Providers, messages: Sequence[BaseMessage], tools: Sequence[Any] | None = None,
                       deadline: float | None = None) -> tuple[AIMessage, Usage]:
    """The first provider that answers: ``(message, usage)``; tool calls a model wrote as text are read
    back into ``tool_calls``. Raises :class:`ChatUnavailable` (:class:`OutOfTime` past ``deadline``). Async:
    cancelling the caller cancels the request in flight."""
    errors: list[str] = []
    runnable = _runnable(providers, tools, None, errors)
    try:
        message = await _within(runnable.ainvoke(list(messages)), deadline)
    except ChatUnavailable:
        raise
    except Exception as exc:  # with_fallbacks re-raises when the last provider failed too
        raise _failed(errors, exc) from exc
    if tools:
        message = recover_tool_calls(message, [_tool_name(t) for t in tools])
    return message, usage_of(message, message.response_metadata.get(PROVIDER_KEY, "model"))


def _tool_name(tool: Any) -> str:
    """A tool's name: a LangChain tool's, or an OpenAI-style dict's (``{"type": "function", "function": {…}}``)."""
    if isinstance(tool, dict):
        return str(tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("title") or "")
    return str(getattr(tool, "name", None) or getattr(tool, "__name__", tool))


async def ainvoke_structured(providers: Providers, messages: Sequence[BaseMessage], schema: type[Reply],
                             deadline: float | None = None) -> tuple[Reply, Usage]:
    """The first provider's reply as ``schema``: ``(reply, usage)``. Raises :class:`ChatUnavailable` when every
    provider fails or the reply does not fit ``schema`` (:class:`OutOfTime` past ``deadline``)."""
    errors: list[str] = []
    runnable = _runnable(providers, None, schema, errors)
    try:
        out = await _within(runnable.ainvoke(list(messages)), deadline)
    except ChatUnavailable:
        raise
    except Exception as exc:
        raise _failed(errors, exc) from exc
    return _unwrap(out, schema)


def invoke_structured(providers: Providers, messages: Sequence[BaseMessage], schema: type[Reply],
                      ) -> tuple[Reply, Usage]:
    """:func:`ainvoke_structured` for synchronous callers (the eval judge)."""
    errors: list[str] = []
    runnable = _runnable(providers, None, schema, errors)
    try:
        out = runnable.invoke(list(messages))
    except Exception as exc:
        raise _failed(errors, exc) from exc
    return _unwrap(out, schema)


def batch_structured(providers: Providers, prompts: Sequence[Sequence[BaseMessage]], schema: type[Reply],
                     concurrency: int) -> list[Reply | Exception]:
    """Each prompt's reply as ``schema`` (at most ``concurrency`` requests at a time), or the exception that
    prevented it — a failed request, or :class:`UnreadableReply` for a reply that does not fit — never raised."""
    if not prompts:
        return []
    errors: list[str] = []
    runnable = _runnable(providers, None, schema, errors)
    replies = runnable.batch([list(p) for p in prompts], config={"max_concurrency": max(1, concurrency)},
                             return_exceptions=True)
    out: list[Reply | Exception] = []
    for reply in replies:
        if isinstance(reply, Exception):
            out.append(reply)
            continue
        try:
            out.append(_unwrap(reply, schema)[0])
        except UnreadableReply as exc:
            out.append(exc)
    return out
