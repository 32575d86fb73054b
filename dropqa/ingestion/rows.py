"""Flatten a parsed tree into the rows the store writes (ids, depth, position, breadcrumb)."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from dropqa.ingestion.document import ImageBlob, ParsedDocument, ParsedNode
from dropqa.store.records import NodeFields

# A sheet's row range is embedded by its caption, header and first rows: numbers cost many tokens
# (each digit is one) and add little meaning, and full-text search finds every value anyway.
TABLE_RANGE_EMBED_CHARS = 800
_NUMBERS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def embed_key(text: str) -> str:
    """The hash under which a text's embedding is stored and reused: texts that differ only in their
    numbers and spacing ("Page 7 of the log. Reading 49." / "Page 8 … Reading 56.") share one vector.

    Such texts are near-identical to an embedding model anyway (a number is a few tokens among many
    and moves the vector little), and full-text search still tells them apart by the numbers; a
    generated or log-like file of 20,000 templated passages then costs a handful of embeddings, not
    20,000 (issue 23)."""
    near = _SPACES.sub(" ", _NUMBERS.sub("0", text)).strip()
    return hashlib.sha256(near.encode("utf-8")).hexdigest()


@dataclass
class NodeRow(NodeFields):
    """A parsed node on its way to the store (``Indexer._node_record`` makes the row it becomes)."""

    path: list[str]  # section titles from the top section down to this node's section
    metadata: dict[str, Any] = field(default_factory=dict)
    summary: str | None = None
    image: ImageBlob | None = None
    children: list[NodeRow] = field(default_factory=list)

    @property
    def is_section(self) -> bool:
        return self.node_type in ("section", "document")

    def breadcrumb(self, filename: str) -> str:
        return " > ".join([filename, *self.path])

    def embed_text(self, filename: str, context: str | None = None, max_chars: int | None = None,
                   about: str = "") -> str:
        """Contextual indexing: where the chunk is (breadcrumb), whose document it is (``about``: the names
        the document is about, when its path does not say them), what it is about (context: a generated
        sentence, or its section's summary offline) and what it says, cut at ``max_chars`` (a long table
        range costs embedding time in proportion to its length and adds little meaning)."""
        text = "\n".join(p for p in (self.breadcrumb(filename), about, context, self.content) if p)
        if self.node_type == "table" and "row_range" in self.metadata:  # a range of a sheet
            max_chars = min(max_chars or TABLE_RANGE_EMBED_CHARS, TABLE_RANGE_EMBED_CHARS)
        return text[:max_chars] if max_chars else text

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()[:32]


def flatten(doc: ParsedDocument, filename: str) -> list[NodeRow]:
    """Rows in document order; the first row is the document node (depth 0)."""
    root = NodeRow(uuid.uuid4(), None, "document", 0, filename, "", 0, [], dict(doc.metadata))
    rows = [root]
    stack: list[tuple[ParsedNode, NodeRow]] = [(child, root) for child in reversed(doc.children)]
    while stack:
        node, parent = stack.pop()
        title = (node.title or "").strip() or None
        path = [*parent.path, title] if node.is_section and title else list(parent.path)
        row = NodeRow(
            id=uuid.uuid4(),
            parent_id=parent.id,
            node_type=node.node_type,
            depth=parent.depth + 1,
            title=title,
            content=node.content.strip(),
            position=len(rows),
            path=path,
            metadata=dict(node.metadata),
            image=node.image,
        )
        parent.children.append(row)
        rows.append(row)
        stack.extend((child, row) for child in reversed(node.children))
    _inherit_pages(rows)
    return rows


def _inherit_pages(rows: list[NodeRow]) -> None:
    """A section without a page takes the page of its first child that has one."""
    for row in reversed(rows):
        if row.is_section and "page" not in row.metadata:
            for child in row.children:
                if "page" in child.metadata:
                    row.metadata["page"] = child.metadata["page"]
                    if child.metadata.get("page_estimated"):
                        row.metadata["page_estimated"] = True
                    break


def embedded_rows(rows: list[NodeRow], table_ranges: int) -> list[NodeRow]:
    """The content rows that get an embedding: all of them, except that a long table split into
    row ranges (a big sheet) embeds only its first ``table_ranges`` ranges. Later ranges share the
    header and look alike to an embedding model; full-text search finds their values, and the
    first ranges plus the title index stand for the table in semantic search. This keeps a
    100,000-row sheet from costing 500 embeddings."""
    seen: dict[tuple[Any, ...], int] = {}
    out = []
    for r in rows:
        if r.is_section or not r.content:
            continue
        if r.node_type == "table" and ("row_range" in r.metadata or "row_slice" in r.metadata):
            # one table = same sheet, caption and header (its ranges may sit in different auto-sections)
            header = tuple((r.metadata.get("table") or {}).get("header") or ())
            key = (r.metadata.get("sheet"), r.title, header)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > table_ranges:
                continue
        out.append(r)
    return out
