"""Flatten a parsed tree into the rows the store writes (ids, depth, position, breadcrumb)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

from dropqa.ingestion.document import ImageBlob, ParsedDocument, ParsedNode


@dataclass
class NodeRow:
    id: uuid.UUID
    parent_id: uuid.UUID | None
    node_type: str
    depth: int
    title: str | None
    content: str
    position: int
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

    def embed_text(self, filename: str) -> str:
        """Contextual indexing: what the chunk is about (breadcrumb) + what it says."""
        return f"{self.breadcrumb(filename)}\n{self.content}"

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
