"""A second hop without a chat model: follow the entity the first passage names.

"What currency predated the Euro in the country Signmark is from?" — the best passage is about
Signmark ("… competing in Finland's national qualifications …") and says nothing of a
currency: the answer is one hop further, in a passage about Finland. When the best passage
holds little of what the question asks beyond its own subject, the names it mentions that the
question does not (capitalised phrases in English; place, person, organisation and other proper
nouns by jieba's part-of-speech tags in Chinese) become bridge entities, and the question is
searched again with each of them in place of the first subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from dropqa.answering.parts import Part, named_documents
from dropqa.retrieval.fusion import coverage
from dropqa.retrieval.hits import Hit
from dropqa.text.entities import chinese_names
from dropqa.text.segment import has_han, holds, query_terms
from dropqa.text.sentences import split_sentences

_CAPITALISED = re.compile(r"\b[A-Z][\w'’\-.]*(?:\s+(?:of|the|de|la|von|van|and|for|[A-Z][\w'’\-.]*))*\b")
_COMMON = frozenset({
    "The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "This", "That", "These", "Those", "His", "Her",
    "Its", "Their", "As", "By", "For", "From", "With", "After", "Before", "During", "When", "While", "Since", "But",
    "And", "Or", "If", "However", "Also", "There", "Here", "One", "Two", "Some", "Many", "Most", "All", "Both",
})


def _subject_free(weights: dict[str, float], hit: Hit) -> dict[str, float]:
    root = hit.names()
    return {t: w for t, w in weights.items() if t not in root} or weights


def needs_second_hop(hit: Hit, weights: dict[str, float], covered_enough: float) -> bool:
    """The best passage says little of what the question asks beyond naming its own subject: it holds
    less than ``covered_enough`` of it (``Settings.answer.second_hop_coverage``)."""
    ask = _subject_free(weights, hit)
    low = hit.content.lower()
    return coverage([t for t in ask if holds(low, t)], ask) < covered_enough


def english_entities(text: str) -> list[str]:
    out = []
    for m in _CAPITALISED.finditer(text):
        phrase = re.sub(r"['’]s$", "", m.group(0).strip(" .'’"))  # Finland's → Finland
        phrase = re.sub(r"\s+(?:of|the|de|la|von|van|and|for)$", "", phrase)
        words = phrase.split()
        while words and words[0] in _COMMON:
            words = words[1:]
        phrase = " ".join(words)
        if len(phrase) >= 3:
            out.append(phrase)
    return out


def bridge_candidates(question: str, hit: Hit, limit: int) -> list[str]:
    """Names in ``hit`` that the question does not use, from its sentences nearest the question's
    words first."""
    asked = question.lower()
    title = f"{hit.document_name} {hit.breadcrumb}".lower()
    terms = query_terms(question)
    sentences = split_sentences(hit.content)
    sentences.sort(key=lambda s: -sum(1 for t in terms if t in s.lower()))
    found: list[str] = []
    for sentence in sentences:
        names = chinese_names(sentence) if has_han(sentence) else english_entities(sentence)
        for name in names:
            low = name.lower()
            if low in asked or low in title or any(low in f.lower() or f.lower() in low for f in found):
                continue
            found.append(name)
            if len(found) >= limit:
                return found
    return found


def second_hop_queries(question: str, hit: Hit, weights: dict[str, float], covered_enough: float,
                       limit: int) -> list[str]:
    """Searches for the second hop: the question with each bridge entity added ([] when the best
    passage already answers what is asked)."""
    if not needs_second_hop(hit, weights, covered_enough):
        return []
    return [f"{question} {name}" for name in bridge_candidates(question, hit, limit)]


def linked_documents(question: str, hit: Hit, titles: Sequence[dict[str, Any]], min_share: float,
                     limit: int) -> list[Part]:
    """Documents the best passage names (by their titles, as a question would) other than its own
    and those the question names itself: the question is searched again inside each."""
    asked = {str(row["document_id"]) for row, _ in named_documents(question, titles, min_share)}
    out = []
    for row, _ in named_documents(hit.content, titles, min_share):
        doc = str(row["document_id"])
        if doc != hit.document_id and doc not in asked:
            out.append(Part(label=str(row["filename"]), query=question, document_id=doc))
        if len(out) >= limit:
            break
    return out
