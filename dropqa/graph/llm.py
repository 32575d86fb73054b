"""Calling the chat model from graph nodes: providers in order (seed 003), token usage, degradation.

The configured providers are one runnable (``dropqa.models.chat.chat_runnable``:
``with_fallbacks`` over every provider); an error or a timeout moves on to the next. When
all of them fail, :class:`ChatUnavailable` is raised and the node falls back to the offline
path for the rest of the run (``degraded: true`` in the answer). Usage is counted per
provider from the answering reply's ``usage_metadata``. The calls are async (``ainvoke``): a run
that is cancelled (its client left) cancels the request in flight.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from dropqa.models.chat import PROVIDER_KEY, chat_runnable
from dropqa.tools.services import Services

log = logging.getLogger(__name__)
Reply = TypeVar("Reply", bound=BaseModel)


class ChatUnavailable(RuntimeError):
    """Every configured chat provider failed (or none is configured, or the reply was unreadable).
    ``usage``: the tokens an unreadable reply still cost (they count in the run's usage)."""

    def __init__(self, message: str, usage: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.usage = usage or {}


def has_model(svc: Services, degraded: bool) -> bool:
    """A chat model is configured and has not failed earlier in this run."""
    return bool(svc.chat_providers) and not degraded


def usage_of(message: AIMessage, provider: str) -> dict[str, Any]:
    meta = message.usage_metadata or {}
    prompt, completion = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "by_provider": {provider: {"prompt_tokens": prompt, "completion_tokens": completion, "calls": 1}}}


async def _invoke(svc: Services, messages: Sequence[BaseMessage], tools: Sequence[BaseTool] | None,
                  schema: type | None) -> Any:
    errors: list[str] = []
    runnable = chat_runnable(svc.chat_providers, tools=tools, schema=schema, errors=errors)
    if runnable is None:
        raise ChatUnavailable("no chat model configured")
    try:
        return await runnable.ainvoke(list(messages))
    except Exception as exc:  # with_fallbacks re-raises when the last provider failed too
        raise ChatUnavailable("; ".join(errors) or f"{type(exc).__name__}: {str(exc)[:200]}") from exc


async def invoke_chat(svc: Services, messages: Sequence[BaseMessage], tools: Sequence[BaseTool] | None = None,
                      ) -> tuple[AIMessage, dict[str, Any]]:
    """The first provider that answers: ``(message, usage)``. Raises :class:`ChatUnavailable`."""
    message = await _invoke(svc, messages, tools, None)
    return message, usage_of(message, message.response_metadata.get(PROVIDER_KEY, "model"))


async def invoke_structured(svc: Services, messages: Sequence[BaseMessage], schema: type[Reply],
                            ) -> tuple[Reply, dict[str, Any]]:
    """The first provider's reply as ``schema`` (``with_structured_output``): ``(reply, usage)``.
    Raises :class:`ChatUnavailable` when every provider fails or the reply does not fit ``schema``."""
    out = await _invoke(svc, messages, None, schema)
    raw, parsed = out.get("raw"), out.get("parsed")
    usage = usage_of(raw, out[PROVIDER_KEY]) if isinstance(raw, AIMessage) else {}
    if parsed is None:
        raise ChatUnavailable(f"unreadable reply: {out.get('parsing_error')}"[:300], usage)
    return parsed, usage


def text_of(message: AIMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content).strip()
