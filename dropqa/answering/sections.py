"""The section a summary question asks for: "summarize the present illness of G. Gonzalez" names a part of
its subject's document, and the answer is that part's own opening, not the one sentence that shares most words
with the question (an appeal notice names the defendant as often as the case statement does).

A passage's *label* is what names its part of the document: a first line wholly in bold ("**CASE STATEMENT**")
or a short first line ending in a colon above more lines ("Present Illness:", "现病史："), as exported and
form-like documents mark their sections; else the last heading of its section path. A section is labelled by
its heading too, opened at its first passage in the pool, whose passages may all be in parts of its own ("Case
Procedures" > "Arrest"). The section asked for is the label of the named documents' passages that holds most
of the question's words after the summary verb (:func:`dropqa.text.asked.summary_aspect`), the word heading
them counting double (the *evidence* of "犯罪证据"), ties going to the label nearer the question in meaning, then
to the section's first passage. A label that holds none of those words is never chosen: the caller then answers
as for any question.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from dropqa.answering.extractive import Similarity
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import held_share, summary_aspect
from dropqa.text.headings import ends_like_sentence
from dropqa.text.segment import has_han, holds

MAX_LABEL_CHARS = 40
# What a part is called that a summary question names otherwise: the facts of a case are told under its
# "(Case) Statement" ("Statement of Facts"), its process under "Procedures" / "Proceedings"
PART_NAMES: dict[str, tuple[str, ...]] = {
    "fact": ("statement",), "facts": ("statement",),
    "process": ("procedure", "proceedings"), "processes": ("procedure", "proceedings"),
}
_BOLD_FIRST_LINE = re.compile(r"^\s*(\*\*|__)(?P<label>[^*_\n]{2,40}?)\1\s*[:：]?[ \t\\]*(?:\n|$)")
_COLON_FIRST_LINE = re.compile(r"^\s*(?P<label>[^\n:：,，.。;；!?！？()（）\[\]*]{2,30}?)\s*[:：][ \t]*\n\s*\S")


def opens_part(hit: Hit) -> bool:
    """``hit`` starts with a label of its own ("**CASE STATEMENT**", "Present Illness:" above its lines)."""
    return bool(_BOLD_FIRST_LINE.match(hit.content) or _COLON_FIRST_LINE.match(hit.content))


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
    within: str = ""  # the section path the answer keeps to (the label's section, with the parts inside it)


def _labels(pool: Sequence[Hit], documents: Collection[str], max_passages: int) -> list[SectionPick]:
    """Each labelled passage of ``documents`` in the first ``max_passages`` of ``pool``, and each section of one
    or above it (a part whose passages are all in its sub-parts: "Case Procedures" > "Arrest"), opened at its
    first passage there."""
    picks: list[SectionPick] = []
    first: dict[tuple[str, str], int] = {}  # (document, section path) → pool index of its earliest passage
    for i, h in enumerate(pool[:max_passages]):
        if h.document_id not in documents:
            continue
        if label := label_of(h):
            picks.append(SectionPick(i, label, h.section))
        crumbs = h.section.split(" > ")
        for depth in range(len(crumbs)):
            key = (h.document_id, " > ".join(crumbs[:depth + 1]))
            if key not in first or h.position < pool[first[key]].position:
                first[key] = i
    for (_, path), i in first.items():
        title = path.rsplit(" > ", 1)[-1]
        if title and not title.endswith("…") and len(title) <= MAX_LABEL_CHARS:
            picks.append(SectionPick(i, title, path))
    return picks


_OF = re.compile(r"\s(?:of|for|in|about|regarding)\s")


def aspect_head(tail: str, aspect: Mapping[str, float]) -> str | None:
    """The word of ``aspect`` that heads what a summary asks for (``tail``, lower-cased): the last of the Chinese
    phrase ("唐某某的犯罪*证据*"), the last before "of" in English ("the case *process* of H. Price")."""
    head = _OF.split(tail, maxsplit=1)[0] if not has_han(tail) else tail
    ends = {t: end for t in aspect if (end := head.rfind(t)) >= 0}
    return max(ends, key=lambda t: (ends[t] + len(t), len(t))) if ends else None


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
    head = aspect_head(tail, aspect)
    if head is not None:  # 犯罪证据 asks for evidence, of a crime: the part named by the head counts double
        aspect[head] *= 2
    names = {t: [*(translations or {}).get(t, ()), *PART_NAMES.get(t, ())] for t in aspect}
    scored = [(pick, share) for pick in _labels(pool, documents, max_passages)
              if (share := held_share(pick.label, aspect, names)) > 0]
    if not scored:
        return None
    # each distinct label measured once: the same label of two passages is as near as itself, and the tie goes to
    # the section's first passage, as the docstring says (one batch can give one text two slightly different scores)
    labels = list(dict.fromkeys(pick.label for pick, _ in scored))
    nearness = dict(zip(labels, similarity(labels), strict=True)) if similarity is not None and len(labels) > 1 else {}
    near = [nearness[pick.label] for pick, _ in scored] if nearness else None
    best = max(range(len(scored)), key=lambda k: (
        scored[k][1] + similarity_weight * (near[k] if near else 0.0), -pool[scored[k][0].index].position))
    return scored[best][0]
