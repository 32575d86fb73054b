"""Summaries of a document or a topic, composed from the section summaries stored at indexing time.

Works offline: no model is called. Every line of the summary cites the section it
comes from (``[n]`` → ``sources[n-1]``), exactly like answers do, so the web page and
API clients show both the same way.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, Field

from dropqa.retrieval.hits import Source
from dropqa.services import Services
from dropqa.store import documents as doc_store
from dropqa.store import nodes as node_store
from dropqa.store import topics as topic_store
from dropqa.store.scope import Scope
from dropqa.text.lang import detect_language
from dropqa.text.sentences import truncate

_TEXT = {
    "zh": {"doc": "《{name}》（第 {version} 版）", "sections": "共 {n} 个部分：",
           "topic": "话题“{name}”出现在 {n} 个文档中：", "empty": "没有可用的摘要。"},
    "en": {"doc": "{name} (version {version})", "sections": "{n} parts:",
           "topic": "The topic \"{name}\" appears in {n} document(s):", "empty": "No summary is available."},
}


class Summary(BaseModel):
    scope: Literal["document", "topic"]
    id: str
    title: str
    summary: str = Field(description="composed from stored section summaries; [n] cites sources[n-1]")
    sources: list[Source]
    mode: Literal["extractive"] = "extractive"


class NotFound(LookupError):
    """No such document or topic (or the document is deleted)."""


def _paths(outline: list[dict[str, Any]]) -> dict[str, str]:
    """node id → section path below the file name, from the outline's parent links."""
    by_id = {str(r["node_id"]): r for r in outline}
    paths: dict[str, str] = {}
    for nid, row in by_id.items():
        titles: list[str] = []
        cur: dict[str, Any] | None = row
        for _ in range(64):  # depth is bounded; this guards a damaged tree
            if cur is None or cur["node_type"] == "document":
                break
            titles.append(cur["title"] or "")
            cur = by_id.get(str(cur["parent_id"])) if cur["parent_id"] else None
        paths[nid] = " > ".join(reversed(titles))
    return paths


def _level(sections: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The first depth with at least two sections (a lone top-level title is skipped), in order."""
    depths = sorted({r["depth"] for r in sections})
    for d in depths:
        at = [r for r in sections if r["depth"] == d]
        if len(at) >= 2 or d == depths[-1]:
            return at[:limit]
    return []


def _source(doc: dict[str, Any], version: int, row: dict[str, Any], section: str, snippet: str) -> Source:
    meta = row.get("metadata") or {}
    return Source(document_id=str(doc["id"]), document_name=doc["filename"], section=section,
                  node_id=str(row["node_id"]), snippet=snippet, relevance=1.0, page=meta.get("page"),
                  page_estimated=bool(meta.get("page_estimated", False)), version=version, cited=True)


def summarize_document(svc: Services, scope: Scope, document_id: uuid.UUID, *, version: int | None = None,
                       max_sections: int = 12) -> Summary:
    """A document of the scope's bases, summed up; :class:`NotFound` for any other."""
    doc = doc_store.get_document(svc.db, scope, document_id)
    if doc is None or doc["deleted_at"] is not None or doc["current_version"] < 1:
        raise NotFound(f"no document {document_id}")
    v = min(version or doc["current_version"], doc["current_version"])
    outline = node_store.outline(svc.db, scope, document_id, v)
    root = next((r for r in outline if r["node_type"] == "document"), None)
    sections = [r for r in outline if r["node_type"] == "section" and (r["summary"] or r["preview"])]
    picked = _level(sections, max_sections)
    paths = _paths(outline)
    lang = detect_language(" ".join((r["summary"] or "") for r in picked[:5]) or doc["filename"])
    text = _TEXT[lang]
    lines = [text["doc"].format(name=doc["filename"], version=v)]
    sources: list[Source] = []
    limit = svc.settings.retrieval.snippet_chars
    if root is not None and root["summary"]:
        lines[0] += (": " if lang == "en" else "：") + truncate(root["summary"], limit * 2)
    if picked:
        lines.append(text["sections"].format(n=len(picked)))
    for row in picked:
        summary = truncate(row["summary"] or row["preview"] or "", limit)
        sources.append(_source(doc, v, row, paths[str(row["node_id"])], summary))
        lines.append(f"- {row['title'] or paths[str(row['node_id'])]}: {summary} [{len(sources)}]")
    if not sources and not (root is not None and root["summary"]):
        lines.append(text["empty"])
    return Summary(scope="document", id=str(document_id), title=doc["filename"], summary="\n".join(lines),
                   sources=sources)


def _topic_section(svc: Services, scope: Scope, doc: dict[str, Any], topic: str) -> tuple[dict[str, Any], str] | None:
    """The section of the document that speaks about the topic (its title or summary names it),
    else the document's own summary."""
    outline = node_store.outline(svc.db, scope, doc["id"], doc["current_version"])
    paths = _paths(outline)
    needle = topic.lower()
    for row in outline:
        if row["node_type"] == "section" and needle in f"{row['title'] or ''} {row['summary'] or ''}".lower():
            return row, paths[str(row["node_id"])]
    root = next((r for r in outline if r["node_type"] == "document"), None)
    return (root, "") if root is not None else None


def summarize_topic(svc: Services, scope: Scope, topic_id: uuid.UUID, *, max_documents: int = 8) -> Summary:
    """A topic of the scope's bases, summed up; :class:`NotFound` for any other."""
    topic = topic_store.get_topic(svc.db, scope, topic_id)
    if topic is None:
        raise NotFound(f"no topic {topic_id}")
    docs = topic_store.topic_documents(svc.db, scope, topic["id"], limit=max_documents)
    lang = detect_language(topic["name"])
    text = _TEXT[lang]
    lines = [text["topic"].format(name=topic["name"], n=topic["document_count"])]
    sources: list[Source] = []
    limit = svc.settings.retrieval.snippet_chars
    for doc in docs:
        found = _topic_section(svc, scope, doc, topic["name"])
        if found is None:
            continue
        row, path = found
        summary = truncate(row["summary"] or row["preview"] or "", limit)
        sources.append(_source(doc, doc["current_version"], row, path, summary))
        where = f"{doc['filename']} > {path}" if path else doc["filename"]
        lines.append(f"- {where}: {summary} [{len(sources)}]")
    if not sources:
        lines.append(text["empty"])
    return Summary(scope="topic", id=str(topic["id"]), title=topic["name"], summary="\n".join(lines),
                   sources=sources)
