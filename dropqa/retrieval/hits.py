"""A search hit as tools, the graph and the API see it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from dropqa.text.lang import detect_language
from dropqa.text.sentences import truncate


class Source(BaseModel):
    """A passage as an answer lists it: where it is, a snippet, how relevant, whether the answer cites it."""

    document_id: str
    document_name: str
    section: str = Field(description="section path below the file name")
    node_id: str
    snippet: str
    relevance: float = Field(ge=0, le=1)
    page: int | None = None
    page_estimated: bool = False
    version: int
    cited: bool = False


class Hit(BaseModel):
    node_id: str
    document_id: str
    document_name: str
    version: int
    node_type: str
    section: str = Field(description="section path below the file name, e.g. '第3章 > 3.2 云平台建设'")
    breadcrumb: str
    content: str
    position: int
    page: int | None = None
    page_estimated: bool = False
    score: float = 0.0
    relevance: float = 0.0
    channels: list[str] = Field(default_factory=list)
    matched_terms: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    subjects: list[str] = Field(default_factory=list, description="what the passage's document is about, by name "
                                "(its court, hospital, patient, company: retrieval.names)")

    def names(self) -> str:
        """What names the passage's document — its file name, root title and subjects, lower-cased: a
        question term found here says which document is meant, not what is asked of it."""
        return " ".join([self.document_name, self.breadcrumb.split(" > ")[0], *self.subjects]).lower()

    def snippet(self, limit: int = 240) -> str:
        return truncate(self.content, limit)

    @classmethod
    def from_row(cls, row: dict[str, Any], channel: str) -> Hit:
        meta = row.get("metadata") or {}
        crumb: str = row.get("breadcrumb") or ""
        parts = crumb.split(" > ")
        return cls(
            node_id=str(row["node_id"]),
            document_id=str(row["document_id"]),
            document_name=row["document_name"],
            version=int(row["version"]),
            node_type=row["node_type"],
            section=" > ".join(parts[1:]),
            breadcrumb=crumb,
            content=row.get("content") or "",
            position=int(row.get("position") or 0),
            page=meta.get("page"),
            page_estimated=bool(meta.get("page_estimated", False)),
            score=float(row.get("score") or 0.0),
            channels=[channel],
            matched_terms=list(row.get("matched") or []),
            metadata=meta,
            subjects=list(row.get("subjects") or []),
        )

    def where(self) -> str:
        """Where the passage is below its file name, never empty: its section path, or — in a document without
        headings (a plain .txt, a PDF without an outline) — its page or its place among the paragraphs
        ("第 3 页" / "page 3", "第 2 段" / "paragraph 2"), in the document's language."""
        if self.section:
            return self.section
        zh = detect_language(self.content[:200]) == "zh"
        if self.page:
            return f"第 {self.page} 页" if zh else f"page {self.page}"
        return f"第 {max(self.position, 1)} 段" if zh else f"paragraph {max(self.position, 1)}"

    def source(self, snippet_chars: int, cited: bool) -> Source:
        """This passage as an answer's source."""
        return Source(document_id=self.document_id, document_name=self.document_name, section=self.where(),
                      node_id=self.node_id, snippet=self.snippet(snippet_chars),
                      relevance=round(min(1.0, max(0.0, self.relevance)), 3), page=self.page,
                      page_estimated=self.page_estimated, version=self.version, cited=cited)

    def line(self, limit: int = 160) -> str:
        """One line for tool results and traces: where, what, how relevant."""
        page = f" p.{self.page}" if self.page else ""
        return f"[{self.node_id}] {self.breadcrumb}{page} (rel {self.relevance:.2f}): {self.snippet(limit)}"


def within_section(section: str, path: str) -> bool:
    """Is ``section`` (a passage's section path) the section ``path`` or a part inside it?"""
    return section == path or section.startswith(path + " > ")
