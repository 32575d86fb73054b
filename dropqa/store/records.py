"""Plain records passed into and out of the store (no SQL, no psycopg)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass
class NodeFields:
    """What every node is, from the parse to the row: its place in the tree and its text."""

    id: uuid.UUID
    parent_id: uuid.UUID | None
    node_type: str
    depth: int
    title: str | None
    content: str
    position: int


@dataclass
class NodeRecord(NodeFields):
    """A node as the store writes it: with its breadcrumb, summary and segmented search text."""

    summary: str | None
    breadcrumb: str
    metadata: dict[str, Any]
    content_hash: str
    title_terms: str  # jieba-segmented breadcrumb/title (weight A)
    content_terms: str  # segmented content (weight B)
    summary_terms: str  # segmented summary (weight C)


@dataclass
class EmbeddingRecord:
    node_id: uuid.UUID
    text_hash: str
    vector: list[float]


@dataclass
class PendingRecord:
    """A content node whose embedding is filled in after the version is visible."""

    node_id: uuid.UUID
    text_hash: str
    text: str


@dataclass
class ImageRecord:
    node_id: uuid.UUID
    mime: str
    data: bytes
    width: int | None
    height: int | None
    ocr_text: str | None


@dataclass
class TitleRecord:
    node_id: uuid.UUID | None
    title_text: str
    title_terms: str
    vector: list[float]


@dataclass
class TopicRecord:
    """One topic of a document. ``cluster_id`` set: the name joins that existing topic (it is
    stored as an alias row pointing there); unset: the name is a topic of its own."""

    name: str
    confidence: float
    vector: list[float] | None = None
    cluster_id: uuid.UUID | None = None


@dataclass
class NewVersion:
    """Everything one version of one file writes, in one transaction (into knowledge base ``kb_id``)."""

    kb_id: uuid.UUID
    source_key: str
    filename: str
    file_type: str
    file_hash: str
    file_size: int
    storage_path: str | None
    model_name: str
    nodes: list[NodeRecord]
    embeddings: list[EmbeddingRecord]  # texts embedded before (copied from the cache)
    pending: list[PendingRecord] = field(default_factory=list)  # to embed after the version is visible
    images: list[ImageRecord] = field(default_factory=list)
    titles: list[TitleRecord] = field(default_factory=list)
    topics: list[TopicRecord] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    data: bytes | None = None  # the file's bytes, stored with the version (None: already stored, e.g. uploads)


@dataclass
class WriteResult:
    document_id: uuid.UUID
    version: int
    outcome: str  # indexed | new_version | unchanged
