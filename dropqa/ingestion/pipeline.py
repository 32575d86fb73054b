"""One file in, one new version out: read → sniff → parse → normalise → enrich → write → embed.

Parsing and enrichment happen before the store's single short transaction, so readers keep
seeing the previous version until the new one is complete (nodes, tree, full-text vectors),
and a crash part-way leaves nothing half-written. The new version answers by full-text from
that commit on; the embeddings of its passages are filled in afterwards, batch by batch
(:meth:`Indexer.fill`, :mod:`dropqa.store.pending`), and a crash there leaves a version that
answers and whose remaining embeddings the next run or worker completes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dropqa.config import Settings
from dropqa.ingestion.contextual import ContextStats, about_line, model_contexts, offline_contexts, rows_subjects
from dropqa.ingestion.document import ParsedDocument
from dropqa.ingestion.enrich import summarize_sections
from dropqa.ingestion.isolation import parse_isolated
from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.normalize import NormalizeLimits, normalize
from dropqa.ingestion.parsers import ParseContext, ParseError, get_parser
from dropqa.ingestion.phrases import phrases
from dropqa.ingestion.rows import NodeRow, embed_key, embedded_rows, flatten
from dropqa.ingestion.safety import check_file_size, explain_ole
from dropqa.ingestion.sniff import detect_type
from dropqa.ingestion.topic_clusters import refresh_topics
from dropqa.ingestion.vision import VisionReader
from dropqa.models.embeddings import Embedder, get_embedder
from dropqa.store import blobs
from dropqa.store import documents as doc_store
from dropqa.store import pending as pending_store
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database
from dropqa.store.jobs import JobLost
from dropqa.store.records import EmbeddingRecord, ImageRecord, NewVersion, NodeRecord, PendingRecord, TitleRecord
from dropqa.store.vectors import ensure_vector_index
from dropqa.text.concepts import concepts, title_text
from dropqa.text.lang import detect_language
from dropqa.text.segment import index_text

log = logging.getLogger(__name__)

Status = Literal["indexed", "new_version", "unchanged", "failed"]
Progress = Callable[..., None]  # progress(stage, details: dict | None = None)
ParseFn = Callable[[str, bytes, ParseContext], ParsedDocument]


def parse_in_process(file_type: str, data: bytes, ctx: ParseContext) -> ParsedDocument:
    return get_parser(file_type).parse(data, ctx)


def default_parse(settings: Settings) -> ParseFn:
    """In a child process with time and memory limits (``ingestion.parse_in_subprocess``), else in-process."""
    limits = settings.ingestion
    if not limits.parse_in_subprocess:
        return parse_in_process
    return functools.partial(parse_isolated, timeout_s=limits.parse_timeout_s, memory_mb=limits.parse_memory_limit_mb)


@dataclass
class IndexOutcome:
    path: str
    source_key: str
    status: Status
    kb_id: uuid.UUID = DEFAULT_KB  # the knowledge base the file is indexed into
    document_id: str | None = None
    version: int | None = None
    nodes: int = 0
    seconds: float = 0.0
    error: str | None = None
    file_type: str | None = None
    warnings: tuple[str, ...] = ()
    enrichment: dict[str, Any] = field(default_factory=dict)
    retryable: bool = False  # a failure the same bytes would not repeat (I/O, store); parse errors are final


@dataclass
class ParsedFile:
    """A file read and parsed, not written yet (``parsed`` None: ``outcome`` is final —
    unchanged or failed)."""

    outcome: IndexOutcome
    started: float
    parsed: ParsedDocument | None = None
    file_hash: str = ""
    size: int = 0
    read_bytes: bytes | None = None  # read from the path: stored with the version (not when they came stored)


def _no_progress(_stage: str, _details: dict[str, Any] | None = None) -> None:
    return None


@contextlib.contextmanager
def _failures(outcome: IndexOutcome) -> Iterator[None]:
    """A failure fails this file only, with a message (``JobLost`` stops the run instead)."""
    try:
        yield
    except JobLost:
        raise
    except ParseError as exc:
        outcome.error = str(exc)
    except OSError as exc:  # locked, being copied, permissions: may work next time
        outcome.error, outcome.retryable = f"cannot read the file: {exc.strerror or exc}", True
    except MemoryError:
        outcome.error = "ran out of memory while parsing; the file is too large or malformed"
    except Exception as exc:  # a parser bug or a store hiccup must fail this file only, with a message
        log.exception("indexing %s failed", outcome.path)
        outcome.error, outcome.retryable = f"unexpected {type(exc).__name__} while indexing: {exc}", True
    if outcome.error:
        outcome.status = "failed"


class Indexer:
    """Indexes files into the store. One per process; reuse it (the embedder loads once)."""

    def __init__(self, db: Database, settings: Settings, embedder: Embedder | None = None,
                 parse: ParseFn | None = None, model: EnrichmentModel | None = None,
                 vision: VisionReader | None = None):
        """``parse`` runs the format parser (default: :func:`default_parse`); ``model`` is the chat
        model for contextual enrichment and topic names, ``vision`` the model that reads images
        (default for both: the configured one, if any)."""
        self.db = db
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.models.embeddings)
        self.parse = parse or default_parse(settings)
        self.model = model if model is not None else EnrichmentModel.from_settings(settings)
        self.vision = vision if vision is not None else VisionReader.from_settings(settings)
        ensure_vector_index(db, self.embedder.name, self.embedder.dimensions)

    def index_file(self, path: Path, source_key: str, progress: Progress | None = None,
                   job: tuple[Any, str] | None = None, embed: bool = True, data: bytes | None = None,
                   kb: uuid.UUID = DEFAULT_KB) -> IndexOutcome:
        """Index one file into knowledge base ``kb`` (its key is ``source_key`` there); failures come back
        as ``status="failed"`` with a message. With ``job``
        (``(job_id, worker_id)``) the version is written only while that worker holds the job, and
        :class:`~dropqa.store.jobs.JobLost` (also raised by ``progress``) stops the run, writing nothing.
        ``data``: the file's bytes as stored in the database (a job's blob); ``path`` is then only
        its name. Bytes read from ``path`` are stored with the version they make.

        The version is visible (answerable by full-text) once written; with ``embed`` its embeddings
        are then filled in here (and those an interrupted earlier run left of an unchanged file);
        without, they stay pending for :meth:`fill` (another thread, a worker)."""
        return self.write_parsed(self.parse_file(path, source_key, progress, data, kb=kb), progress, job, embed)

    def parse_file(self, path: Path, source_key: str, progress: Progress | None = None,
                   data: bytes | None = None, kb: uuid.UUID = DEFAULT_KB) -> ParsedFile:
        """Read, check and parse one file for base ``kb`` (in the isolated child, see :func:`default_parse`).
        Safe to run for several files at once in threads; :meth:`write_parsed` finishes the file."""
        pf = ParsedFile(IndexOutcome(path=str(path), source_key=source_key, status="failed", kb_id=kb),
                        started=time.perf_counter())
        with _failures(pf.outcome):
            self._parse(path, source_key, pf, progress or _no_progress, data)
        return pf

    def write_parsed(self, pf: ParsedFile, progress: Progress | None = None, job: tuple[Any, str] | None = None,
                     embed: bool = True) -> IndexOutcome:
        """Enrich and write what :meth:`parse_file` returned (one transaction: the version appears
        whole), then, with ``embed``, fill its embeddings."""
        outcome, report = pf.outcome, progress or _no_progress
        if pf.parsed is not None:
            with _failures(outcome):
                report("enriching")
                self._read_images(pf.parsed, Path(outcome.path).name)
                nv = self.build_version(pf.parsed, outcome.source_key, Path(outcome.path), outcome.file_type or "",
                                        pf.file_hash, pf.size, report, kb=outcome.kb_id)
                if pf.read_bytes is not None:
                    nv.data = pf.read_bytes  # written with the version
                else:
                    nv.storage_path = None  # the bytes are in the database; path was another machine's
                report("writing")
                result = doc_store.write_version(self.db, nv, job=job)
                outcome.status = result.outcome  # type: ignore[assignment]
                outcome.document_id, outcome.version = str(result.document_id), result.version
                outcome.nodes = len(nv.nodes)
                outcome.warnings = tuple(nv.metadata.get("warnings") or ())
                outcome.enrichment = dict(nv.metadata.get("enrichment") or {})
            pf.parsed = pf.read_bytes = None  # the tree can be large: let it go before embedding
        if embed and outcome.status != "failed" and outcome.document_id and outcome.version:
            self._fill_version(outcome, report)
        outcome.seconds = time.perf_counter() - pf.started
        return outcome

    def _fill_version(self, outcome: IndexOutcome, progress: Progress) -> None:
        """Fill the version's embeddings; a failure here leaves the version answerable by full-text
        and the rest pending (a worker or the next run completes them)."""
        document = (outcome.document_id, outcome.version)
        try:
            if pending_store.count_for(self.db, *document):
                progress("embedding", {"embedded": 0})
                self.fill(document, progress)
        except JobLost:
            raise
        except Exception as exc:
            log.warning("embedding %s failed; its embeddings stay pending", outcome.source_key, exc_info=True)
            outcome.warnings = (*outcome.warnings, f"embedding stopped ({type(exc).__name__}: {exc}); "
                                "full-text search answers, the rest is embedded later")

    def _parse(self, path: Path, source_key: str, pf: ParsedFile, progress: Progress,
               stored: bytes | None = None) -> None:
        outcome = pf.outcome
        if stored is None:
            size = path.stat().st_size
            check_file_size(size, self.settings.ingestion.max_file_bytes)  # before reading a byte
            data = path.read_bytes()
        else:
            data = stored
            size = len(data)
            check_file_size(size, self.settings.ingestion.max_file_bytes)
        file_hash = hashlib.sha256(data).hexdigest()
        existing = doc_store.find_by_key(self.db, outcome.kb_id, source_key)
        if existing and existing["file_hash"] == file_hash and existing["deleted_at"] is None:
            if stored is None and not blobs.exists(self.db, file_hash):
                blobs.put(self.db, data, file_hash)  # indexed before file bytes were stored: store them now
            outcome.status, outcome.document_id = "unchanged", str(existing["id"])
            outcome.version, outcome.file_type = existing["current_version"], existing["file_type"]
            return
        file_type = detect_type(data, path.name)
        outcome.file_type = file_type
        if not data.strip():
            raise ParseError("the file is empty")
        if file_type == "ole":
            raise ParseError(explain_ole(data, path.name))
        progress("parsing")
        pf.parsed = self.parse(file_type, data, self.parse_context(path.name))
        pf.file_hash, pf.size = file_hash, size
        pf.read_bytes = data if stored is None else None

    def _read_images(self, parsed: ParsedDocument, filename: str) -> None:
        """With a vision model: its reading of each image replaces the OCR text (kept on failure)."""
        if self.vision is None:
            return
        try:
            stats = self.vision.read(parsed, filename)
        except Exception as exc:  # reading images must never fail the document: OCR stays
            log.warning("reading the images of %s failed", filename, exc_info=True)
            parsed.warnings.append(f"the vision model could not read the images ({type(exc).__name__}: "
                                   f"{str(exc)[:200]}); they keep their OCR text")
            return
        parsed.metadata["vision"] = {**stats.as_dict(), "model": self.vision.name}

    def parse_context(self, filename: str) -> ParseContext:
        return ParseContext.from_settings(filename, self.settings.ingestion)

    def build_version(self, parsed: ParsedDocument, source_key: str, path: Path, file_type: str,
                      file_hash: str, size: int, progress: Progress, kb: uuid.UUID = DEFAULT_KB) -> NewVersion:
        ing = self.settings.ingestion
        normalize(parsed, NormalizeLimits(ing.max_paragraph_chars, ing.paragraph_target_chars,
                                          ing.max_section_chars, ing.merge_paragraph_chars))
        filename = doc_store.file_name(source_key)
        rows = flatten(parsed, filename)
        if len(rows) <= 1:
            raise ParseError("no text could be extracted from the file" +
                             (f" ({'; '.join(parsed.warnings)})" if parsed.warnings else ""))
        summarize_sections(rows, sentences=ing.summary_sentences, max_chars=ing.summary_max_chars)
        full_text = "\n".join(r.content for r in rows if r.content)
        language = detect_language(full_text[:20_000])
        subjects = rows_subjects(rows, filename, full_text)
        warnings = list(parsed.warnings)
        content_rows = embedded_rows(rows, ing.embed_table_ranges)
        contexts, generated, stats = self._contexts(rows, content_rows, filename, language)
        if stats.fallback:
            warnings.append(f"contextual enrichment failed for {stats.fallback} of {len(content_rows)} chunks; "
                            "they use the section summary as context")
        doc_phrases = self._phrases(rows, full_text, filename)
        doc_concepts = self._concepts(rows, full_text, filename)
        part_terms: dict[str, str] = {}  # titles repeat on every descendant's path: segment each once
        about = about_line(subjects, filename, rows)
        records = [self._node_record(r, filename, generated.get(r.id), part_terms, about) for r in rows]
        embeddings, pending = self._embedding_plan(content_rows, filename, contexts, about)
        titles = self._titles(rows, filename, parsed)
        images = [
            ImageRecord(r.id, r.image.mime, r.image.data, r.image.width, r.image.height, r.content or None)
            for r in rows if r.image is not None
        ]
        enrichment = {**stats.as_dict(), "language": language}
        return NewVersion(
            kb_id=kb, source_key=source_key, filename=filename, file_type=file_type, file_hash=file_hash,
            file_size=size, storage_path=str(path.resolve()), model_name=self.embedder.name, nodes=records,
            embeddings=embeddings, pending=pending, images=images, titles=titles, topics=[],
            metadata={"warnings": warnings, "enrichment": enrichment, "phrases": doc_phrases, "subjects": subjects,
                      "concepts": doc_concepts,
                      **{k: v for k, v in parsed.metadata.items() if k != "sheets"}},
        )

    def _contexts(self, rows: list[NodeRow], targets: list[NodeRow], filename: str, language: str
                  ) -> tuple[dict[Any, str], dict[Any, str], ContextStats]:
        """Context per embedded row (model where it answered, offline otherwise), and the generated ones."""
        ing = self.settings.ingestion
        stats = ContextStats()
        contexts = offline_contexts(rows, ing.offline_context_chars)
        generated: dict[Any, str] = {}
        if self.model is not None and targets:
            try:
                generated = model_contexts(self.model, rows, targets, filename, language,
                                           batch_size=ing.context_batch_size, max_chars=ing.context_max_chars,
                                           stats=stats)
            except Exception as exc:  # enrichment must never fail the document
                log.warning("contextual enrichment of %s failed", filename, exc_info=True)
                stats.mode, stats.errors = "model", [f"{type(exc).__name__}: {exc}"]
                stats.fallback = len(targets) - stats.generated
            contexts.update(generated)
        return contexts, generated, stats

    @staticmethod
    def _title_text(rows: list[NodeRow], filename: str, times: int = 1) -> str:
        """:func:`~dropqa.text.concepts.title_text` of the sections' titles (not the document row's: that
        is the file name, extension and all)."""
        return title_text(filename, [r.title for r in rows if r.node_type == "section" and r.title], times)

    def _phrases(self, rows: list[NodeRow], full_text: str, filename: str) -> dict[str, int]:
        """Candidate topic names of the document (section titles count three times, the file name nine);
        the collection's topics are clusters of documents named from these (:meth:`refresh_topics`)."""
        titles = self._title_text(rows, filename, times=3)
        return phrases("\n".join([titles] * 3 + [full_text[:200_000]]), self.settings.ingestion.topic_phrases)

    def _concepts(self, rows: list[NodeRow], full_text: str, filename: str) -> dict[str, float]:
        """What the document is about in one vocabulary for both languages (:mod:`dropqa.text.concepts`);
        the topics cluster documents on these and their embeddings."""
        t = self.settings.topics
        return concepts(full_text[:t.concept_chars], self._title_text(rows, filename), title_weight=t.title_weight,
                        limit=t.concepts_per_document, english_gloss_share=t.english_gloss_share,
                        english_translations=t.english_translations)

    def refresh_topics(self, kb: uuid.UUID = DEFAULT_KB) -> list[dict[str, Any]]:
        """Recompute base ``kb``'s topics (after a batch of files; never fails the batch)."""
        try:
            return refresh_topics(self.db, self.settings, self.embedder.name, self.model, kb=kb)
        except Exception:
            log.exception("could not recompute the topics")
            return []

    @staticmethod
    def _node_record(r: NodeRow, filename: str, context: str | None = None,
                     part_terms: dict[str, str] | None = None, about: str = "") -> NodeRecord:
        """``context`` (a generated one) is stored in metadata and searched with the summary's weight;
        ``about`` (the document's subjects its path does not name) is searched with the title's."""
        parts = [*r.path, r.title or "", about] if not r.is_section else [filename, *r.path, about]
        memo = part_terms if part_terms is not None else {}
        for part in parts:
            if part not in memo:
                memo[part] = index_text(part)
        metadata = {**r.metadata, "context": context} if context else r.metadata
        table = r.metadata.get("table") if r.node_type == "table" else None
        content_terms = _table_terms(r.title, table, memo) if table else index_text(r.content)
        return NodeRecord(
            id=r.id, parent_id=r.parent_id, node_type=r.node_type, depth=r.depth, title=r.title,
            content=r.content, summary=r.summary, breadcrumb=r.breadcrumb(filename), position=r.position,
            metadata=metadata, content_hash=r.content_hash,
            title_terms=" ".join(memo[p] for p in parts if memo[p]), content_terms=content_terms,
            summary_terms=index_text(r.summary or context or ""),
        )

    def _embedding_plan(self, rows: list[NodeRow], filename: str, contexts: dict[Any, str], about: str = ""
                        ) -> tuple[list[EmbeddingRecord], list[PendingRecord]]:
        """The text each content row embeds: copied now when the same text — or one that differs only
        in numbers and spacing (:func:`~dropqa.ingestion.rows.embed_key`) — was embedded before (by
        any document or version), otherwise left pending, to be filled after the version is visible
        (:meth:`fill`; the rows sharing a key are embedded once)."""
        limit = self.settings.ingestion.embed_max_chars
        texts = [r.embed_text(filename, contexts.get(r.id), limit, about) for r in rows]
        hashes = [embed_key(t) for t in texts]
        cached = doc_store.cached_embeddings(self.db, self.embedder.name, sorted(set(hashes)))
        done, pending = [], []
        for r, h, t in zip(rows, hashes, texts, strict=True):
            if h in cached:
                done.append(EmbeddingRecord(r.id, h, cached[h]))
            else:
                pending.append(PendingRecord(r.id, h, t))
        return done, pending

    def fill(self, document: tuple[Any, int] | None = None, progress: Progress | None = None,
             should_stop: Callable[[], bool] | None = None) -> int:
        """Embed the pending nodes of one version (``(document_id, version)``), or of any version
        without ``document``, batch by batch until none is left or ``should_stop()``; returns how
        many were embedded. ``progress("embedding", {"embedded": n, "to_embed": total})`` is called
        after every batch (a worker stops there when its job was cancelled; what was embedded stays)."""
        batch = self.settings.ingestion.embed_fill_batch
        total = pending_store.count_for(self.db, *document) if document is not None else None
        done = 0
        while not (should_stop and should_stop()):
            n = pending_store.fill_batch(self.db, self.embedder.name, self.embedder.embed_passages, batch, document)
            if not n:
                break
            done += n
            if progress is not None:
                progress("embedding", {"embedded": done, **({"to_embed": total} if total is not None else {})})
        return done

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


def _table_terms(title: str | None, table: dict[str, Any], memo: dict[str, str]) -> str:
    """The terms of a table's text rendering, segmenting each distinct title/header/cell once: a
    big sheet repeats its header on every row and many of its values (the same tokens as
    ``index_text(content)``, without re-segmenting 100,000 copies of them)."""
    out = []
    header = [str(h) for h in table.get("header") or []]
    for cell in [title or "", *header, *(str(c) for row in table.get("rows") or [] for c in row), *header]:
        if cell not in memo:
            memo[cell] = index_text(cell)
        if memo[cell]:
            out.append(memo[cell])
    return " ".join(out)
