"""Enrichment: bottom-up section summaries and document topics.

Offline (no chat model) summaries are extractive — the most central sentences of a
section's own text, plus the titles of its subsections — and topics are jieba
TF-IDF keywords. With a chat model configured, the pipeline may replace both
(issue: contextual enrichment); nothing here imitates a model.
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
    own_text = [c.content for c in row.children if not c.is_section and c.content]
    subsections = [c for c in row.children if c.is_section]
    parts: list[str] = []
    if own_text:
        parts.extend(central_sentences(" ".join(own_text), n))
    if subsections:
        titles = "；".join(c.title or "" for c in subsections[:12] if c.title)
        if titles:
            parts.append(titles)
        if not own_text:
            first = next((c.summary for c in subsections if c.summary), "")
            if first:
                parts.append(first)
    return truncate(" ".join(parts), max_chars)


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
