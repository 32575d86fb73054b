"""OpenAI-compatible chat endpoint, so existing chat clients and SDKs can talk to DropQA.

``POST /v1/chat/completions``: the last user message is the question. The reply's text
ends with a "Sources:" list (section paths, numbered like the ``[n]`` in the answer);
the same sources come structured in the extra field ``citations``. Extra request
fields ``thread_id``, ``version`` and ``topic_filter`` (the SDKs' ``extra_body``) are
passed to the graph. Streaming sends ``chat.completion.chunk`` events and ends with
``data: [DONE]``.

The model names the knowledge base, the OpenAI way: ``dropqa/<base>`` answers from that base,
``dropqa`` from every base the caller may read. ``GET /v1/models`` lists exactly those; any other model
— a base that does not exist or that the caller may not read alike — is OpenAI's 404 ``model_not_found``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from typing import Any, Literal

import anyio
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sse_starlette import EventSourceResponse

from dropqa.api import access, ask
from dropqa.api.deps import CallerDep, LimiterDep, ServicesDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.limits import QuestionInput, ThreadId, TopicName, Version
from dropqa.api.load import RunLimiter
from dropqa.api.sse import EVENT_SCHEMA, error_event, run_events, sse_response
from dropqa.blocking import in_thread
from dropqa.runtime import events
from dropqa.runtime.run import Answer, Source
from dropqa.services import Services
from dropqa.store import bases as base_store

router = APIRouter(prefix="/v1", tags=["openai"], responses=ERROR_RESPONSES)

MODEL_ID = "dropqa"  # every base the caller may read; "dropqa/<base>" is one base


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(str(p.get("text", "")) for p in self.content or [] if p.get("type") == "text")


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = Field(MODEL_ID, max_length=200, description="one of GET /v1/models: `dropqa/<base>` for one "
                                                             "knowledge base, `dropqa` for every base the caller "
                                                             "may read; any other is a 404 `model_not_found`")
    messages: list[ChatMessage] = Field(min_length=1, max_length=500)
    stream: bool = False
    thread_id: ThreadId | None = Field(None, description="DropQA conversation id")
    version: Version | None = None
    topic_filter: list[TopicName] = Field(default_factory=list, max_length=50)

    def question_input(self) -> QuestionInput:
        """The last user message as the question, held to the limits every entry point shares (a message
        over them is refused with 422, not cut)."""
        for message in reversed(self.messages):
            if message.role == "user" and message.text().strip():
                try:
                    return QuestionInput(question=message.text().strip(), version=self.version,
                                         topic_filter=self.topic_filter, thread_id=self.thread_id)
                except ValidationError as exc:
                    raise RequestValidationError([{**e, "loc": ("body", "messages", *e["loc"])}
                                                  for e in exc.errors()]) from None
        raise ValueError("no user message with text: the last user message is the question")


class ChatChoice(BaseModel):
    index: int = 0
    message: dict[str, Any]
    finish_reason: str = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: dict[str, int] | None = Field(description="tokens the chat model used; null when no chat model ran "
                                               "(offline answers cost no tokens)")
    citations: list[Source] = Field(description="the answer's sources; [n] in the text is citations[n-1]")
    answer_id: str | None = None
    confidence: str
    answerable: bool


def sources_text(answer: Answer) -> str:
    """The "Sources:" list appended to the message: the cited sources (all when none is marked cited),
    numbered like the answer's [n]."""
    numbered = list(enumerate(answer.sources, start=1))
    shown = [(i, s) for i, s in numbered if s.cited] or numbered
    if not shown:
        return ""
    lines = []
    for i, s in shown:
        where = f"{s.document_name} > {s.section}" if s.section else s.document_name
        page = f" (p.{s.page}{'≈' if s.page_estimated else ''})" if s.page else ""
        lines.append(f"[{i}] {where}{page}")
    return "\n\nSources:\n" + "\n".join(lines)


def _usage(answer: Answer) -> dict[str, int] | None:
    if answer.usage is None:
        return None
    prompt = int(answer.usage.get("prompt_tokens", 0) or 0)
    completion = int(answer.usage.get("completion_tokens", 0) or 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def model_names(db: Any, caller: access.Caller) -> dict[str, tuple[uuid.UUID, ...]]:
    """The models this caller may name, each with the bases it answers from."""
    readable = access.readable(db, caller)
    names = base_store.names_of(db, readable)
    return {MODEL_ID: readable, **{f"{MODEL_ID}/{names[k]}": (k,) for k in readable if k in names}}


def model_not_found(model: str, accepted: list[str]) -> JSONResponse:
    """OpenAI's answer to an unknown model: 404 with type, param and code, so SDKs raise NotFoundError."""
    return JSONResponse({"error": {
        "message": f"The model `{model}` does not exist. Models served here: {', '.join(accepted)} "
                   "(GET /v1/models).",
        "type": "invalid_request_error", "param": "model", "code": "model_not_found",
        "params": {"model": model, "models": accepted}}}, status_code=404)


def _bases_of(models: dict[str, tuple[uuid.UUID, ...]], model: str) -> tuple[uuid.UUID, ...] | None:
    """The bases ``model`` answers from (a base name matches without case, like everywhere else)."""
    if model in models:
        return models[model]
    return next((kbs for name, kbs in models.items() if name.lower() == model.lower()), None)


@router.get("/models", response_model=ModelList)
async def list_models(svc: ServicesDep, caller: CallerDep) -> ModelList:
    """The models `model` may name: `dropqa` (every base the caller may read) and `dropqa/<base>` for each."""
    models = await in_thread(model_names, svc.db, caller)
    return ModelList(data=[ModelCard(id=m, created=0, owned_by="dropqa") for m in models])


@router.post("/chat/completions", response_model=ChatCompletion, responses={200: {
    "description": "a chat.completion, or with `stream: true` server-sent `chat.completion.chunk` events "
                   "ending with `data: [DONE]`",
    "content": {"text/event-stream": {"schema": EVENT_SCHEMA}}}})
async def chat_completions(req: ChatRequest, svc: ServicesDep, caller: CallerDep, limiter: LimiterDep,
                           request: Request) -> ChatCompletion | EventSourceResponse | JSONResponse:
    models = await in_thread(model_names, svc.db, caller)
    kbs = _bases_of(models, req.model)
    if kbs is None:
        return model_not_found(req.model, list(models))
    q = req.question_input()
    if req.stream:
        run = await ask.open_stream(svc, q, kbs, show_reasoning=False, limiter=limiter)
        return sse_response(lambda shutdown: _chunks(svc, kbs, req.model, run, shutdown, limiter))
    # a client that hangs up first cancels its run
    answer = await ask.answer(svc, q, kbs, show_reasoning=True, limiter=limiter, request=request)
    return ChatCompletion(
        id=f"chatcmpl-{uuid.uuid4().hex}", created=int(time.time()), model=req.model,
        choices=[ChatChoice(message={"role": "assistant", "content": answer.answer + sources_text(answer)})],
        usage=_usage(answer), citations=answer.sources, answer_id=answer.answer_id, confidence=answer.confidence,
        answerable=answer.answerable,
    )


async def _chunks(svc: Services, kbs: tuple[uuid.UUID, ...], model: str,
                  run: Callable[[], AsyncIterator[events.StreamEvent]], shutdown: anyio.Event,
                  limiter: RunLimiter) -> AsyncIterator[dict[str, Any]]:
    cid, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        body = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
        return {"data": json.dumps(body, ensure_ascii=False)}

    yield chunk({"role": "assistant", "content": ""})
    try:
        async with aclosing(run_events(run, shutdown, limiter)) as running:
            async for event in running:
                if isinstance(event, events.Token):
                    yield chunk({"content": event.text})
                elif isinstance(event, events.Done):
                    answer = await ask.record(svc, kbs, event)
                    tail = sources_text(answer)
                    if tail:
                        yield chunk({"content": tail})
                    yield chunk({}, "stop", usage=_usage(answer), answer_id=answer.answer_id,
                                citations=[s.model_dump(mode="json") for s in answer.sources])
                    break
            else:
                raise RuntimeError("the run ended without a result")
    except Exception as exc:
        yield {"data": json.dumps({"error": error_event(exc).data()}, ensure_ascii=False)}
    yield {"data": "[DONE]"}
