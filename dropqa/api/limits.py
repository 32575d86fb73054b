"""The limits every entry point shares.

:class:`QuestionInput` is THE validated shape of a question — REST (``/api/qa/ask``, ``/stream``), the
OpenAI-compatible ``/v1``, the MCP ``ask`` tool and ``dropqa ask`` all build it, so a 1 MB question,
``version=-1`` or a 10,000-character ``thread_id`` is refused the same way everywhere, before any work.

:class:`DeclaredSizeLimit`: a request whose declared ``Content-Length`` is over its limit is refused
before anything reads it, with the API's JSON error. (FastAPI's own ``max_body_size`` still counts the
bytes of bodies without a length, and answers those with the same JSON through the error handlers.)"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, ValidationError, field_validator
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa.api.errors import Problem
from dropqa.store.scope import MAX_VERSION
from dropqa.store.storable import refusal

MAX_QUESTION_CHARS = 4000
MAX_THREAD_ID_CHARS = 200
MAX_TOPIC_CHARS = 200
MAX_TOPICS = 50
MAX_KBS = 20


def _no_nul(value: str) -> str:
    """The rule of :mod:`dropqa.store.storable` where a model is built outside the API (MCP, the CLI)."""
    reason = refusal(value)
    if reason:
        raise ValueError(reason)
    return value


Text = Annotated[str, AfterValidator(_no_nul)]
# (a blank question passes the schema and is refused by the run itself: "the question is empty")
Question = Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS), AfterValidator(_no_nul)]
Version = Annotated[int, Field(ge=1, le=MAX_VERSION, description="answer from version N of each document")]
ThreadId = Annotated[str, Field(min_length=1, max_length=MAX_THREAD_ID_CHARS), AfterValidator(_no_nul)]
TopicName = Annotated[str, Field(min_length=1, max_length=MAX_TOPIC_CHARS), AfterValidator(_no_nul)]
KbName = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_no_nul)]


class QuestionInput(BaseModel):
    """A question and what narrows it, with the limits every entry point shares."""

    question: Question
    version: Version | None = None
    topic_filter: list[TopicName] = Field(default_factory=list, max_length=MAX_TOPICS,
                                          description="only documents carrying these topics (ids or names)")
    thread_id: ThreadId | None = Field(default=None,
                                       description="conversation id: follow-up questions see the earlier turns "
                                                   "(asked over the same knowledge bases)")
    kb: list[KbName] = Field(default_factory=list, max_length=MAX_KBS,
                             description="knowledge base name(s) to answer from (a name or a list); default: every "
                                         "base the caller may read")

    @field_validator("kb", mode="before")
    @classmethod
    def _one_or_several(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


def validation_message(exc: ValidationError) -> str:
    """One line for a CLI or an MCP tool error: ``question: String should have at most 4000 characters``."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ()))
        parts.append(f"{where}: {e.get('msg', '')}" if where else str(e.get("msg", "")))
    return "; ".join(parts) or "invalid input"


class DeclaredSizeLimit:
    def __init__(self, app: ASGIApp, *, default_limit: int, limits: dict[str, int]):
        self.app = app
        self.default_limit = default_limit
        self.limits = limits  # path → limit, for the few routes that take big bodies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = Headers(scope=scope).get("content-length", "")
            limit = self.limits.get(scope["path"], self.default_limit)
            if declared.isdigit() and int(declared) > limit:
                too_large = Problem("too_large", 413, f"the request body is larger than {limit} bytes",
                                    headers={"Connection": "close"})
                await too_large.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)
