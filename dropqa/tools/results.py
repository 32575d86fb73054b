"""The one short status format every tool returns, so the agent and the trace read alike."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from dropqa.retrieval.hits import Hit


class ToolResult(BaseModel):
    tool: str
    status: str = Field(description="one line: what was found")
    hits: list[Hit] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None

    def render(self, limit: int = 8) -> str:
        """Text for the model / trace: the status line, then one line per hit."""
        lines = [f"{self.tool}: {self.status}"]
        if self.error:
            lines.append(f"error: {self.error}")
        lines += [h.line() for h in self.hits[:limit]]
        return "\n".join(lines)


    def as_tool_output(self, text: str | None = None) -> tuple[str, dict[str, Any]]:
        """``(content, artifact)`` for ``response_format="content_and_artifact"`` tools: the model reads
        the text; the graph reads the hits from the artifact without parsing text."""
        return (text if text is not None else self.render()), self.model_dump(mode="json")


def found(tool: str, hits: list[Hit], what: str = "passages") -> ToolResult:
    docs = len({h.document_id for h in hits})
    status = f"{len(hits)} {what} from {docs} document(s)" if hits else f"no {what} found"
    return ToolResult(tool=tool, status=status, hits=hits)


def failed(tool: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, status="failed", error=message)
