"""One file in, one new version out: read → sniff → parse → normalise → enrich → embed → write.

Everything slow (parsing, embedding) happens before the store's single short
transaction, so readers keep seeing the previous version until the new one is
complete, and a crash part-way leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from dropqa.config import Settings
from dropqa.ingestion.document import ParsedDocument
from dropqa.ingestion.enrich import extract_topics, summarize_sections
from dropqa.ingestion.normalize import NormalizeLimits, normalize
from dropqa.ingestion.parsers import ParseContext, ParseError, get_parser
from dropqa.ingestion.rows import NodeRow, flatten
from dropqa.ingestion.sniff import detect_type
from dropqa.models.embeddings import Embedder, get_embedder
from dropqa.store import documents as doc_store
from dropqa.store.db import Database
from dropqa.store.records import EmbeddingRecord, ImageRecord, NewVersion, NodeRecord, TitleRecord
from dropqa.store.vectors import ensure_vector_index
from dropqa.text.segment import index_text

log = logging.getLogger(__name__)

Status = Literal["indexed", "new_version", "unchanged", "failed"]
Progress = Callable[[str], None]
ParseFn = Callable[[str, bytes, ParseContext], ParsedDocument]


def parse_in_process(file_type: str, data: bytes, ctx: ParseContext) -> ParsedDocument:
    return get_parser(file_type).parse(data, ctx)


@dataclass
class IndexOutcome:
    path: str
    source_key: str
    status: Status
    document_id: str | None = None
    version: int | None = None
    nodes: int = 0
    seconds: float = 0.0
    error: str | None = None
    file_type: str | None = None
    warnings: tuple[str, ...] = ()


class Indexer:
    """Indexes files into the store. One per process; reuse it (the embedder loads once)."""

    def __init__(self, db: Database, settings: Settings, embedder: Embedder | None = None,
                 parse: ParseFn = parse_in_process):
        """``parse`` runs the format parser; the worker passes one that isolates it in a child process."""
        self.db = db
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.models.embeddings)
        self.parse = parse
        ensure_vector_index(db, self.embedder.name, self.embedder.dimensions)

    def index_file(self, path: Path, source_key: str, progress: Progress | None = None) -> IndexOutcome:
        started = time.perf_counter()
        outcome = IndexOutcome(path=str(path), source_key=source_key, status="failed")
        try:
            self._index(path, source_key, outcome, progress or (lambda _s: None))
        except ParseError as exc:
            outcome.error = str(exc)
        except OSError as exc:
            outcome.error = f"cannot read the file: {exc.strerror or exc}"
        except MemoryError:
            outcome.error = "ran out of memory while parsing; the file is too large or malformed"
        except Exception as exc:  # a parser bug must fail this file only, with a message
            log.exception("indexing %s failed", path)
            outcome.error = f"unexpected {type(exc).__name__} while indexing: {exc}"
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _index(self, path: Path, source_key: str, outcome: IndexOutcome, progress: Progress) -> None:
        limits = self.settings.ingestion
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            raise ParseError(f"the file is {size / 1e6:.0f} MB; the limit is {limits.max_file_bytes / 1e6:.0f} MB")
        data = path.read_bytes()
        file_hash = hashlib.sha256(data).hexdigest()
        existing = doc_store.find_by_key(self.db, source_key)
        if existing and existing["file_hash"] == file_hash and existing["deleted_at"] is None:
            outcome.status, outcome.document_id = "unchanged", str(existing["id"])
            outcome.version, outcome.file_type = existing["current_version"], existing["file_type"]
            return
        file_type = detect_type(data, path.name)
        outcome.file_type = file_type
        if not data.strip():
            raise ParseError("the file is empty")
        progress("parsing")
        parsed = self.parse(file_type, data, self.parse_context(path.name))
        progress("enriching")
        nv = self.build_version(parsed, source_key, path, file_type, file_hash, size, progress)
        progress("writing")
        result = doc_store.write_version(self.db, nv)
        outcome.status, outcome.document_id, outcome.version = result.outcome, str(result.document_id), result.version  # type: ignore[assignment]
        outcome.nodes = len(nv.nodes)
        outcome.warnings = tuple(parsed.warnings)

    def parse_context(self, filename: str) -> ParseContext:
        ing = self.settings.ingestion
        return ParseContext(
            filename=filename, max_chars=ing.max_chars, ocr_enabled=ing.ocr_enabled,
            ocr_min_text_chars=ing.ocr_min_text_chars, max_pages=ing.max_pages,
            max_image_pixels=ing.max_image_pixels, max_uncompressed_bytes=ing.max_uncompressed_bytes,
            max_compression_ratio=ing.max_compression_ratio,
        )

    def build_version(self, parsed: ParsedDocument, source_key: str, path: Path, file_type: str,
                      file_hash: str, size: int, progress: Progress) -> NewVersion:
        ing = self.settings.ingestion
        normalize(parsed, NormalizeLimits(ing.max_paragraph_chars, ing.paragraph_target_chars, ing.max_section_chars))
        filename = Path(source_key).name
        rows = flatten(parsed, filename)
        if len(rows) <= 1:
            raise ParseError("no text could be extracted from the file" +
                             (f" ({'; '.join(parsed.warnings)})" if parsed.warnings else ""))
        summarize_sections(rows, sentences=ing.summary_sentences, max_chars=ing.summary_max_chars)
        full_text = "\n".join(r.content for r in rows if r.content)
        topics = extract_topics(full_text, ing.topics_per_document)
        records = [self._node_record(r, filename) for r in rows]
        progress("embedding")
        embeddings = self._embed([r for r in rows if not r.is_section and r.content], filename)
        titles = self._titles(rows, filename, parsed)
        images = [
            ImageRecord(r.id, r.image.mime, r.image.data, r.image.width, r.image.height, r.content or None)
            for r in rows if r.image is not None
        ]
        return NewVersion(
            source_key=source_key, filename=filename, file_type=file_type, file_hash=file_hash, file_size=size,
            storage_path=str(path.resolve()), model_name=self.embedder.name, nodes=records,
            embeddings=embeddings, images=images, titles=titles, topics=topics,
            metadata={"warnings": parsed.warnings, **{k: v for k, v in parsed.metadata.items() if k != "sheets"}},
        )

    @staticmethod
    def _node_record(r: NodeRow, filename: str) -> NodeRecord:
        title_text = " ".join([*r.path, r.title or ""]) if not r.is_section else " ".join([filename, *r.path])
        return NodeRecord(
            id=r.id, parent_id=r.parent_id, node_type=r.node_type, depth=r.depth, title=r.title,
            content=r.content, summary=r.summary, breadcrumb=r.breadcrumb(filename), position=r.position,
            metadata=r.metadata, content_hash=r.content_hash,
            title_terms=index_text(title_text), content_terms=index_text(r.content),
            summary_terms=index_text(r.summary or ""),
        )

    def _embed(self, rows: list[NodeRow], filename: str) -> list[EmbeddingRecord]:
        texts = [r.embed_text(filename) for r in rows]
        hashes = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        cached = doc_store.cached_embeddings(self.db, self.embedder.name, sorted(set(hashes)))
        todo = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}.items())
        if todo:
            vectors = self.embedder.embed_passages([t for _, t in todo])
            cached.update({h: v.tolist() for (h, _), v in zip(todo, vectors, strict=True)})
        return [EmbeddingRecord(r.id, h, cached[h]) for r, h in zip(rows, hashes, strict=True)]

    def _titles(self, rows: list[NodeRow], filename: str, parsed: ParsedDocument) -> list[TitleRecord]:
        """Title index: the file name, and "file / sheet" for each spreadsheet sheet."""
        stem = Path(filename).stem
        entries: list[tuple[NodeRow | None, str]] = [(None, stem)]
        for r in rows:
            if r.is_section and r.metadata.get("sheet"):
                entries.append((r, f"{stem} / {r.metadata['sheet']}"))
        vectors = self.embedder.embed_passages([t for _, t in entries])
        return [
            TitleRecord(r.id if r else None, text, index_text(text), v.tolist())
            for (r, text), v in zip(entries, vectors, strict=True)
        ]
