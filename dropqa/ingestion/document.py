"""The parsed-document tree every parser produces and the pipeline consumes.

A parser turns bytes into a :class:`ParsedDocument`: a list of top-level
:class:`ParsedNode` objects forming an adaptive-depth tree. Sections carry a
``title`` and ``children``; content nodes (paragraph, list, code, table, image)
carry ``content``. Depth is not stored here: the pipeline derives it from the
nesting when it builds the store rows, so parsers only describe structure.

``metadata`` keys understood downstream (all optional):

- ``page`` (int, 1-based page / slide number), ``page_estimated`` (bool)
- ``segment_type``: ``text`` | ``table`` | ``chart`` | ``figure`` | ``photo`` | ``ocr``
- ``ocr_confidence`` (float 0-1), ``appendix_flag`` (bool)
- ``sheet`` (str), ``slide`` (int), ``row_range`` ([first, last])
- ``table``: ``{"header": [...], "rows": [[...], ...]}`` for table nodes
- ``speaker`` / ``timestamp`` for chat-log messages
- ``auto_title`` (bool): the section title was generated, not written by the author
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

NodeType = Literal["section", "paragraph", "list", "code", "table", "image"]
CONTENT_TYPES: frozenset[str] = frozenset({"paragraph", "list", "code", "table", "image"})


@dataclass
class ImageBlob:
    """Raw bytes of an image found in a document (kept so answers can show it)."""

    data: bytes
    mime: str
    width: int | None = None
    height: int | None = None


@dataclass
class ParsedNode:
    node_type: NodeType
    title: str | None = None
    content: str = ""
    children: list[ParsedNode] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    image: ImageBlob | None = None

    def walk(self) -> Iterator[ParsedNode]:
        yield self
        for child in self.children:
            yield from child.walk()

    @property
    def is_section(self) -> bool:
        return self.node_type == "section"


@dataclass
class ParsedDocument:
    """What a parser returns. ``title`` defaults to the file name without extension."""

    title: str
    file_type: str
    children: list[ParsedNode] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[ParsedNode]:
        for child in self.children:
            yield from child.walk()

    def text_length(self) -> int:
        return sum(len(n.content) for n in self.walk())


def section(title: str, children: list[ParsedNode] | None = None, **metadata: Any) -> ParsedNode:
    return ParsedNode("section", title=title, children=children or [], metadata=metadata)


def paragraph(text: str, **metadata: Any) -> ParsedNode:
    return ParsedNode("paragraph", content=text, metadata=metadata)


def table_node(header: list[str], rows: list[list[str]], *, title: str | None = None, **metadata: Any) -> ParsedNode:
    """A table node: structured rows in metadata, a searchable text rendering in content."""
    from dropqa.ingestion.tables import render_table

    meta = {"segment_type": "table", **metadata, "table": {"header": header, "rows": rows}}
    return ParsedNode("table", title=title, content=render_table(header, rows, title=title), metadata=meta)
