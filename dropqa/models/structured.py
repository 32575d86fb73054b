"""Structured replies, asked for the way each server takes them — learned once per server.

Three ways, tried in this order:

- ``json_schema``: ``response_format: {"type": "json_schema", …}`` (``with_structured_output``): OpenAI,
  vLLM, LM Studio, recent llama.cpp ``llama-server`` and Ollama take it;
- ``json_object``: ``response_format: {"type": "json_object", "schema": …}`` with the schema in the prompt
  too (llama-cpp-python's server takes ``schema`` there and holds the reply to it with a grammar; others
  read it from the prompt);
- ``prompt``: no ``response_format``; the schema in the prompt, the JSON read out of the text.

A server that refuses a way (an error that names ``response_format``, ``json_schema`` or ``json_object``,
such as llama-cpp-python's 500 "Input should be 'text' or 'json_object'") is asked the next way from then
on: :func:`learn_refusal` records it for the provider (``model@base_url``) for the life of the process and
logs it once; the refused call is made again the next way at once. A reply the model got wrong (not JSON,
not the schema) is no refusal: it stays an unreadable reply.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableLambda

from dropqa.models import prompts

log = logging.getLogger(__name__)
Method = Literal["json_schema", "json_object", "prompt"]
METHODS: tuple[Method, ...] = ("json_schema", "json_object", "prompt")
_REFUSAL_WORDS = ("response_format", "json_schema", "json_object", "response format")
_learned: dict[str, Method] = {}
_lock = threading.Lock()


def method_for(provider: str) -> Method:
    """How structured replies are asked of ``provider`` now."""
    with _lock:
        return _learned.get(provider, METHODS[0])


def forget(provider: str | None = None) -> None:
    """Forget what was learned (of one provider, or of all): the next call starts again with ``json_schema``."""
    with _lock:
        if provider is None:
            _learned.clear()
        else:
            _learned.pop(provider, None)


def is_refusal(exc: BaseException) -> bool:
    """Does ``exc`` say the server does not take the response format asked for? An HTTP error (400, 422,
    500, 501) whose message names the response format; timeouts, connection errors and other errors are not."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422, 500, 501):
        return False
    text = str(exc).lower()
    return any(word in text for word in _REFUSAL_WORDS)


def learn_refusal(provider: str, method: str, exc: BaseException) -> bool:
    """Record that ``provider`` refused ``method`` when ``exc`` is a refusal; True when there is a next way to
    try (the caller asks again), False otherwise (the error stands)."""
    if method not in METHODS or not is_refusal(exc):
        return False
    index = METHODS.index(method)  # type: ignore[arg-type]
    if index + 1 >= len(METHODS):
        return False
    following = METHODS[index + 1]
    with _lock:
        current = _learned.get(provider, METHODS[0])
        if METHODS.index(current) <= index:
            _learned[provider] = following
            log.warning("chat provider %s refuses %s (%s): structured replies are asked for as %s from now on",
                        provider, method, " ".join(str(exc).split())[:200], following)
    return True


def schema_of(schema: type) -> dict[str, Any]:
    """The JSON schema a model is asked to fill (title and description from the pydantic class)."""
    return {"title": schema.__name__, "description": (schema.__doc__ or schema.__name__).strip(),
            **schema.model_json_schema()}  # type: ignore[attr-defined]


def with_schema_prompt(messages: list[BaseMessage], schema: dict[str, Any]) -> list[BaseMessage]:
    """``messages`` with the JSON instruction and the schema added to the last user message (a system
    message is not read by every chat template: Gemma's has no system role)."""
    instruction = prompts.fill("dropqa.models", "json_reply.md",
                               {"schema": json.dumps(schema, ensure_ascii=False)}, expected=("schema",))
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        m = out[i]
        if isinstance(m, HumanMessage) and isinstance(m.content, str):
            out[i] = HumanMessage(content=f"{m.content}\n\n{instruction}")
            return out
    return [*out, HumanMessage(content=instruction)]


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def json_in(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (inside a code fence or after some prose), or None."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(candidate[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def _parsed(message: Any) -> dict[str, Any]:
    """A reply as ``with_structured_output(include_raw=True)`` shapes it."""
    if not isinstance(message, AIMessage):
        message = AIMessage(content=str(getattr(message, "content", message)))
    content = message.content
    text = content if isinstance(content, str) else "".join(
        p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    value = json_in(text)
    error = None if value is not None else ValueError(f"no JSON object in the reply: {text[:200]!r}")
    return {"raw": message, "parsed": value, "parsing_error": error}


def asker(model: BaseChatModel, schema: type) -> Any:
    """``method -> Runnable``: the model asked for ``schema`` that way; each replies
    ``{"raw": AIMessage, "parsed": dict | None, "parsing_error": …}`` (``parsed`` validated by the caller)."""
    json_schema = schema_of(schema)
    made: dict[str, Runnable] = {}

    def build(method: str) -> Runnable:
        if method == "json_schema":
            return model.with_structured_output(json_schema, include_raw=True)
        prompt = RunnableLambda(lambda messages: with_schema_prompt(list(messages), json_schema))
        bound: Runnable = model
        if method == "json_object":
            bound = model.bind(response_format={"type": "json_object", "schema": json_schema})
        return prompt | bound | RunnableLambda(_parsed)

    def runnable(method: str) -> Runnable:
        if method not in made:
            made[method] = build(method)
        return made[method]

    return runnable


prompts.preload("dropqa.models")
