"""Contextual enrichment (seed 002 §3.2 B): what each chunk is about, said before it is embedded.

An isolated chunk ("it reached 98.5% on the test set") embeds poorly. Each chunk
is embedded as ``breadcrumb + about + context + content``. ``about`` names what the whole document is
about when its path does not (:func:`about_line`: ``112_judgement.md`` is Trenton, Vandalia, Court's
judgment of G. Torres); the context is

- with a chat model: one generated sentence that situates the chunk in its
  document ("this part of the 2024 report's R&D chapter describes …"), asked in
  batches of chunks of one section, the document's and section's summaries given;
- offline (or when a request fails): the start of its section's extractive summary.

A failed or unusable model answer never fails the document: its chunks take the
offline context and are counted in :class:`ContextStats`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.prompts import fill
from dropqa.ingestion.rows import NodeRow
from dropqa.text.sentences import truncate
from dropqa.text.subjects import OPENING_CHARS, document_subjects, file_stem_name

CHUNK_PREVIEW_CHARS = 700  # of each chunk in the prompt: enough to know what it says


class ChunkContexts(BaseModel):
    """The chat model's reply: one situating sentence per chunk, in the order given."""

    contexts: list[str] = Field(description="one short context sentence per chunk, same order")


@dataclass
class ContextStats:
    mode: str = "offline"  # offline | model
    generated: int = 0
    fallback: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "contexts_generated": self.generated, "contexts_fallback": self.fallback,
                "errors": self.errors[:5]}


def offline_contexts(rows: list[NodeRow], max_chars: int) -> dict[uuid.UUID, str]:
    """The section summary's start for each content row (skipped when the chunk already says it)."""
    by_id = {r.id: r for r in rows}
    out: dict[uuid.UUID, str] = {}
    for r in rows:
        if r.is_section or not r.content or r.parent_id is None:
            continue
        summary = (by_id[r.parent_id].summary or "").strip()
        if not summary or max_chars <= 0:
            continue
        head = truncate(summary, max_chars)
        if head.rstrip("…")[:40] in r.content:  # a one-paragraph section: its summary is this chunk
            continue
        out[r.id] = head
    return out


def model_contexts(model: EnrichmentModel, rows: list[NodeRow], targets: list[NodeRow], filename: str,
                   language: str, *, batch_size: int, max_chars: int, stats: ContextStats) -> dict[uuid.UUID, str]:
    """One generated sentence per row of ``targets`` (content rows of ``rows``, the whole document);
    rows whose request failed are left out and counted in ``stats``."""
    by_id = {r.id: r for r in rows}
    document = rows[0]
    groups: dict[uuid.UUID, list[NodeRow]] = {}
    for r in targets:
        if r.parent_id is not None:
            groups.setdefault(r.parent_id, []).append(r)
    batches = [members[i : i + max(1, batch_size)] for members in groups.values()
               for i in range(0, len(members), max(1, batch_size))]
    prompts = [_prompt(batch, by_id[batch[0].parent_id], document, filename, language)  # type: ignore[index]
               for batch in batches]
    stats.mode = "model"
    out: dict[uuid.UUID, str] = {}
    for batch, reply in zip(batches, model.ask_many(prompts, ChunkContexts), strict=True):
        answer = reply if isinstance(reply, Exception) else reply.contexts
        if isinstance(answer, Exception) or len(answer) != len(batch) or not all(a.strip() for a in answer):
            stats.fallback += len(batch)
            stats.errors.append(_describe(answer, len(batch)))
            continue
        for r, text in zip(batch, answer, strict=True):
            out[r.id] = truncate(text.strip(), max_chars)
        stats.generated += len(batch)
    return out


def _prompt(batch: list[NodeRow], parent: NodeRow, document: NodeRow, filename: str, language: str) -> str:
    section = " > ".join(parent.path) or filename
    chunks = "\n\n".join(f"[{i}] {truncate(r.content, CHUNK_PREVIEW_CHARS)}" for i, r in enumerate(batch, 1))
    none = "（无）" if language == "zh" else "(none)"
    return fill("context", language, document=filename, document_summary=document.summary or none,
                section=section, section_summary=(parent.summary if parent is not document else "") or none,
                chunks=chunks, count=len(batch))


def _describe(answer: object, expected: int) -> str:
    if isinstance(answer, Exception):
        return f"{type(answer).__name__}: {str(answer)[:160]}"
    if isinstance(answer, list) and len(answer) != expected:
        return f"expected {expected} contexts, got {len(answer)}"
    return "empty or non-text context in the reply"


ABOUT_SUBJECTS = 3  # names a chunk's contextual text carries


def rows_subjects(rows: list[NodeRow], filename: str, full_text: str) -> list[str]:
    """The names the document is about (:func:`dropqa.text.subjects.document_subjects`), read from its file
    name, first headings and opening text."""
    # the file name and the first heading: later headings are the document's structure, not its subject
    headings = [file_stem_name(filename), *(r.title for r in rows[1:] if r.is_section and r.title)][:2]
    opening: list[str] = []
    size = 0
    for r in rows[1:]:
        piece = r.title if r.is_section else r.content
        if piece:
            opening.append(piece)
            size += len(piece)
        if size >= OPENING_CHARS:
            break
    return document_subjects(headings, "\n".join(opening), full_text[:200_000])


def about_line(subjects: list[str], filename: str, rows: list[NodeRow]) -> str:
    """The document's main subjects that its file name and top heading do not already say — the words every
    chunk's contextual text (embedding and title terms) carries, so a passage that never names its court,
    patient or company is still found by a question that does."""
    first = next((r.title for r in rows[1:] if r.is_section and r.title), "")
    said = f"{filename} {first}".lower()
    kept = [s for s in subjects if s.lower() not in said][:ABOUT_SUBJECTS]
    return " · ".join(kept)
