"""The events of an answer stream, typed: what :func:`dropqa.runtime.run.stream` yields.

Each event has a name (``event``, the SSE event name) and a JSON payload (:meth:`StreamEvent.data`,
the SSE ``data``), in the order a run produces them: ``status``, ``retrieval``, ``reasoning``,
``token``, ``citation``, then exactly one terminal event, ``done`` (the full :class:`Answer`) or
``error`` (sent by the API when the run fails; the run itself raises). The payloads are the
public contract of ``POST /api/qa/stream`` (the web page reads them) and feed ``/v1`` streaming.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from dropqa.runtime.run import Answer, Source


class StreamEvent(BaseModel):
    """One event; its fields are its payload."""

    event: ClassVar[str]
    terminal: ClassVar[bool] = False

    def data(self) -> dict[str, Any]:
        """The payload as JSON (what an SSE ``data`` line carries)."""
        return self.model_dump(mode="json")


class Status(StreamEvent):
    """A node started working (``start`` before the first one)."""

    event: ClassVar[str] = "status"
    node: str


class Retrieval(StreamEvent):
    """A search step's outcome."""

    event: ClassVar[str] = "retrieval"
    hits: int
    top_relevance: float


class Reasoning(StreamEvent):
    """One step of the reasoning trace, as the graph wrote it (``tool``, ``arguments``,
    ``result_summary`` and the like ride along as extra fields)."""

    model_config = ConfigDict(extra="allow")
    event: ClassVar[str] = "reasoning"
    step: int
    type: str
    content: str

    def data(self) -> dict[str, Any]:
        return self.model_dump()  # the step unchanged; the renderer writes what JSON cannot hold as text


class Token(StreamEvent):
    """A piece of the answer's text as it is written."""

    event: ClassVar[str] = "token"
    text: str


class Citation(Source, StreamEvent):
    """A cited source, in the answer's final numbering (after the text that cites it)."""

    event: ClassVar[str] = "citation"


class Done(Answer, StreamEvent):
    """The full answer: the last event of a run that succeeded."""

    event: ClassVar[str] = "done"
    terminal: ClassVar[bool] = True


class Error(StreamEvent):
    """The last event of a run that failed: a code and a one-line message, never a stack trace;
    ``params`` for a coded error (the web page words the message itself), ``retry_after`` for
    ``too_many_requests``."""

    event: ClassVar[str] = "error"
    terminal: ClassVar[bool] = True
    code: str
    message: str
    params: dict[str, Any] | None = Field(default=None, description="sent only when set")
    retry_after: int | None = Field(default=None, description="sent only when set")

    def data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
