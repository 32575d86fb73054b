"""The section a summary question asks for: "summarize the present illness of G. Gonzalez" names a part of
its subject's document, and the answer is that part's own opening, not the one sentence that shares most words
with the question (an appeal notice names the defendant as often as the case statement does).

A passage's *label* is what names its part of the document: a first line wholly in bold ("**CASE STATEMENT**")
or a short first line ending in a colon above more lines ("Present Illness:", "现病史："), as exported and
form-like documents mark their sections; else the last heading of its section path. The section asked for is the
labelled passage of the named documents whose label holds most of the question's words after the summary verb
(:func:`dropqa.text.asked.summary_aspect`), ties going to the label nearer the question in meaning, then to the
section's first passage. A label that holds none of those words is never chosen: the caller then answers as
for any question.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from dropqa.answering.extractive import Similarity
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import held_share, summary_aspect
from dropqa.text.headings import ends_like_sentence
from dropqa.text.segment import holds

MAX_LABEL_CHARS = 40
_BOLD_FIRST_LINE = re.compile(r"^\s*(\*\*|__)(?P<label>[^*_\n]{2,40}?)\1\s*[:：]?[ \t\\]*(?:\n|$)")
_COLON_FIRST_LINE = re.compile(r"^\s*(?P<label>[^\n:：,，.。;；!?！？()（）\[\]*]{2,30}?)\s*[:：][ \t]*\n\s*\S")


def label_of(hit: Hit) -> str | None:
    """The label of ``hit``'s part of its document (see the module's docstring), or None."""
    m = _BOLD_FIRST_LINE.match(hit.content) or _COLON_FIRST_LINE.match(hit.content)
    if m:
        label = m.group("label").strip().rstrip(":：").strip()
        if label and len(label.split()) <= 5 and not ends_like_sentence(label) and ": " not in label:
            return label
    crumbs = [c for c in hit.section.split(" > ") if c]
    title = crumbs[-1].rstrip("…") if crumbs else ""
    return title if 0 < len(title) <= MAX_LABEL_CHARS and not hit.section.endswith("…") else None


@dataclass(frozen=True)
class SectionPick:
    index: int  # pool index of the section's passage
    label: str


def asked_section(question: str, asked: Mapping[str, float], pool: Sequence[Hit], documents: Collection[str],
                  similarity: Similarity | None, *, translations: Mapping[str, list[str]] | None = None,
                  similarity_weight: float = 0.5, max_passages: int = 20) -> SectionPick | None:
    """The passage opening the section ``question`` asks to summarise, among the passages of ``documents``
    (the documents it names) in the first ``max_passages`` of ``pool``; ``asked``: the question's asked terms
    and weights (its subject's words left out)."""
    tail = summary_aspect(question).lower()
    aspect = {t: w for t, w in asked.items() if holds(tail, t)}
    if not aspect or not documents:
        return None
    labelled = [(i, label) for i, h in enumerate(pool[:max_passages])
                if h.document_id in documents and (label := label_of(h))]
    scored = [(i, label, held_share(label, aspect, translations)) for i, label in labelled]
    scored = [s for s in scored if s[2] > 0]
    if not scored:
        return None
    near = similarity([label for _, label, _ in scored]) if similarity is not None and len(scored) > 1 else None
    best = max(range(len(scored)), key=lambda k: (
        scored[k][2] + similarity_weight * (near[k] if near else 0.0), -pool[scored[k][0]].position))
    i, label, _ = scored[best]
    return SectionPick(i, label)
