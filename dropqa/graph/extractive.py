"""Offline answers: quote the best sentences of the best passages, each with its citation.

No language model is involved; the answer is made of the documents' own words,
chosen by how much of the question's (idf-weighted) vocabulary a sentence holds
and how relevant its passage is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dropqa.text.sentences import split_sentences
from dropqa.tools.fusion import coverage
from dropqa.tools.hits import Hit

_QUANTITY = re.compile(
    r"多少|几|how (many|much|long)|what (percentage|share)|number of|\bwhen\b|哪天|何时|什么时候|多久"
)
_DIGIT = re.compile(r"\d")


@dataclass
class Extract:
    text: str
    hit_index: int
    score: float


def sentence_units(hit: Hit) -> list[str]:
    if hit.node_type in ("table", "list"):
        return [line.strip(" -") for line in hit.content.split("\n") if line.strip(" -")]
    return split_sentences(hit.content)


def _with_continuation(units: list[str], i: int, limit: int = 240) -> str:
    """A unit ending in a colon introduces what follows ("值班安排如下：…"): keep them together."""
    text = units[i]
    j = i + 1
    while text.rstrip().endswith(("：", ":")) and j < len(units) and len(text) < limit:
        text = f"{text} {units[j]}"
        j += 1
    return text


def pick_sentences(question: str, terms: list[str], weights: dict[str, float], hits: list[Hit],
                   max_sentences: int, max_passages: int = 5) -> list[Extract]:
    wants_number = bool(_QUANTITY.search(question.lower()))
    candidates: list[Extract] = []
    for idx, hit in enumerate(hits[:max_passages]):
        units = sentence_units(hit)
        for i in range(len(units)):
            sent = _with_continuation(units, i)
            low = sent.lower()
            matched = [t for t in terms if t in low]
            cov = coverage(matched, weights) if terms else 0.0
            score = 0.65 * cov + 0.35 * hit.relevance
            if wants_number and _DIGIT.search(sent):
                score += 0.05
            if len(sent) < 4:
                score *= 0.5
            candidates.append(Extract(sent, idx, round(score, 4)))
    if not candidates:
        return []
    candidates.sort(key=lambda e: (-e.score, e.hit_index))
    best = candidates[0].score
    chosen: list[Extract] = []
    seen: set[str] = set()
    for c in candidates:
        key = re.sub(r"\s+", "", c.text)
        if key in seen or c.score < best * 0.6:
            continue
        chosen.append(c)
        seen.add(key)
        if len(chosen) >= max_sentences:
            break
    return chosen
