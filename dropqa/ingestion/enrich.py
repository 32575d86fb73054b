"""Enrichment: bottom-up section summaries and document keywords.

Summaries are extractive — the most central sentences of a section's own text, a
description of its tables (caption, columns, row span; never rows of numbers) and
the titles of its subsections. Keywords are jieba TF-IDF. Per-chunk contexts for
embedding live in ``contextual.py`` and shared topics in ``topics.py``; both use
the chat model when one is configured. Nothing here imitates a model.
"""

from __future__ import annotations

from collections import Counter

from dropqa.ingestion.rows import NodeRow
from dropqa.text.segment import initialize, query_terms
from dropqa.text.sentences import split_sentences, truncate


def summarize_sections(rows: list[NodeRow], *, sentences: int, max_chars: int) -> None:
    """Fill ``summary`` on every section and the document node, children first."""
    for row in reversed(rows):  # reversed document order = children before parents
        if row.is_section:
            row.summary = _section_summary(row, sentences, max_chars)


def _section_summary(row: NodeRow, n: int, max_chars: int) -> str:
    own_text = [c.content for c in row.children if not c.is_section and c.content and c.node_type != "table"]
    tables = [c for c in row.children if c.node_type == "table" and c.content]
    subsections = [c for c in row.children if c.is_section]
    parts: list[str] = []
    if own_text:
        parts.extend(central_sentences(" ".join(own_text), n))
    if tables:
        parts.append(describe_tables(tables))
    if subsections:
        titles = "；".join(c.title or "" for c in subsections[:12] if c.title)
        if titles:
            parts.append(titles)
        if not own_text:
            first = next((c.summary for c in subsections if c.summary), "")
            if first:
                parts.append(first)
    return truncate(" ".join(parts), max_chars)


def describe_tables(tables: list[NodeRow]) -> str:
    """What a section's tables hold, from their captions and headers (not from rows of values):
    ``库存（编号、物料、库位；第 2–100001 行）``; a sheet split into ranges is one table here."""
    seen: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for t in tables:
        header = tuple(h for h in (t.metadata.get("table") or {}).get("header") or () if h)
        key = (t.title or "", header[:8])
        span = seen.setdefault(key, [])
        span.extend(int(x) for x in (t.metadata.get("row_range") or []))
    out = []
    for (title, header), span in list(seen.items())[:4]:
        chinese = any("\u4e00" <= ch <= "\u9fff" for ch in title + "".join(header))
        cols = ("、" if chinese else ", ").join(header)
        rows = (f"第 {min(span)}–{max(span)} 行" if chinese else f"rows {min(span)}–{max(span)}") if span else ""
        inner = ("；" if chinese else "; ").join(p for p in (cols, rows) if p)
        label = title or ("表格" if chinese else "table")
        out.append(f"{label}（{inner}）" if chinese else f"{label} ({inner})")
    return "；".join(out)


def central_sentences(text: str, n: int) -> list[str]:
    """The ``n`` sentences sharing most vocabulary with the whole text, in text order."""
    sents = [s for s in split_sentences(text) if len(s) > 3][:200]
    if len(sents) <= n:
        return sents
    initialize()
    freq = Counter(t for s in sents for t in set(query_terms(s)))
    scored = []
    for i, s in enumerate(sents):
        terms = set(query_terms(s))
        score = sum(freq[t] for t in terms) / (1 + len(terms) ** 0.5)
        score *= 1.15 if i == 0 else 1.0  # leads matter
        scored.append((score, i))
    keep = sorted(i for _, i in sorted(scored, reverse=True)[:n])
    return [sents[i] for i in keep]


def extract_topics(text: str, k: int) -> list[tuple[str, float]]:
    """Keyword topics (jieba TF-IDF), weights normalised to 0–1."""
    import jieba.analyse

    initialize()
    tags = jieba.analyse.extract_tags(text[:200_000], topK=k * 2, withWeight=True)
    tags = [(t, w) for t, w in tags if len(t) > 1 and not t.isdigit()][:k]
    if not tags:
        return []
    top = tags[0][1] or 1.0
    return [(t, round(w / top, 3)) for t, w in tags]
