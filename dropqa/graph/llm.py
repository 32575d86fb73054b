"""Calling the chat model from graph nodes: providers in order (seed 003), token usage, degradation.

Each configured provider is tried in turn; an error or a timeout moves on to the
next. When all of them fail, :class:`ChatUnavailable` is raised and the node falls
back to the offline path for the rest of the run (``degraded: true`` in the answer).
Usage is counted per provider from each response's ``usage_metadata``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool

from dropqa.tools.services import Services

log = logging.getLogger(__name__)


class ChatUnavailable(RuntimeError):
    """Every configured chat provider failed (or none is configured)."""


def has_model(svc: Services, degraded: bool) -> bool:
    """A chat model is configured and has not failed earlier in this run."""
    return bool(svc.chat_models) and not degraded


def provider_name(model: Any) -> str:
    base = str(getattr(model, "openai_api_base", None) or "")
    return f"{getattr(model, 'model_name', None) or getattr(model, 'model', 'model')}@{base}" if base else \
        str(getattr(model, "model_name", None) or "model")


def usage_of(message: AIMessage, provider: str) -> dict[str, Any]:
    meta = message.usage_metadata or {}
    prompt, completion = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "by_provider": {provider: {"prompt_tokens": prompt, "completion_tokens": completion, "calls": 1}}}


def invoke_chat(svc: Services, messages: Sequence[BaseMessage], tools: Sequence[BaseTool] | None = None,
                ) -> tuple[AIMessage, dict[str, Any]]:
    """The first provider that answers: ``(message, usage)``. Raises :class:`ChatUnavailable`."""
    errors = []
    for model in svc.chat_models:
        name = provider_name(model)
        runnable = model.bind_tools(list(tools)) if tools else model
        try:
            message = runnable.invoke(list(messages))
        except Exception as exc:  # any provider failure means: try the next one
            log.warning("chat provider %s failed: %s", name, exc)
            errors.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if not isinstance(message, AIMessage):
            message = AIMessage(content=str(getattr(message, "content", message)))
        return message, usage_of(message, name)
    raise ChatUnavailable("; ".join(errors) or "no chat model configured")


def text_of(message: AIMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content).strip()
