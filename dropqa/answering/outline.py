"""A document's outline as the agent reads it (``get_document_structure``) and chapter and page answers use it."""

from __future__ import annotations

from pydantic import BaseModel, Field


class OutlineEntry(BaseModel):
    """One node of the outline: the document (depth 0) or a section."""

    node_id: str
    depth: int
    title: str | None = None
    summary: str | None = None
    page: int | None = None


class Outline(BaseModel):
    document_id: str = ""
    version: int = 0
    tree: list[OutlineEntry] = Field(default_factory=list)
