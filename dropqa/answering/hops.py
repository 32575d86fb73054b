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
from difflib import SequenceMatcher
from typing import Any

from dropqa.answering.parts import Part, named_documents
from dropqa.retrieval.fusion import coverage
from dropqa.retrieval.hits import Hit
from dropqa.text.entities import chinese_names
from dropqa.text.segment import has_han, holds, query_terms
from dropqa.text.sentences import split_sentences
from dropqa.text.subjects import TIMES

_CAPITALISED = re.compile(r"\b[A-Z][\w'’\-.]*(?:\s+(?:of|the|de|la|von|van|and|for|[A-Z][\w'’\-.]*))*\b")
_COMMON = frozenset({
    "The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "This", "That", "These", "Those", "His", "Her",
    "Its", "Their", "As", "By", "For", "From", "With", "After", "Before", "During", "When", "While", "Since", "But",
    "And", "Or", "If", "However", "Also", "There", "Here", "One", "Two", "Some", "Many", "Most", "All", "Both",
})


# A question about a place reached through the subject ("the state where X is located", "X's birthplace",
# "the country that released Y"), or about a person or body ("the director of Y", "Y's performer").
_PLACE_Q = re.compile(r"(?i)\b(?:country|state|city|county|town|village|district|region|province|continent|nation|"
                      r"island|birthplace|birth place|place of birth|hometown|capital|born|located|where)\b")
_AGENT_Q = re.compile(r"(?i)\b(?:performer|director|producer|author|writer|composer|singer|actor|actress|artist|"
                      r"creator|founder|owner|publisher|developer|manufacturer|band|company|organi[sz]ation|"
                      r"association|network|label|studio|team|spouse|wife|husband|father|mother)\b")
# Where a passage puts a place ("located in X", "born in X") or an agent ("directed by X").
_BEFORE_PLACE = re.compile(r"(?i)\b(?:in|at|near|from|of|to|into|within)\s+(?:the\s+)?$")
_BEFORE_AGENT = re.compile(r"(?i)\bby\s+(?:the\s+)?$")
# A place an address puts another in: "Hinds County, Mississippi" — the state after the county's comma.
_ADDRESS_TAIL = re.compile(r"(?i:\b(?:in|at|near|from|of|to|into|within)\s+(?:the\s+)?)"
                           r"[A-Z][\w'’\-.]*(?:\s+[A-Z][\w'’\-.]*)*,\s+$")
# Kinds of place a name may say it is ("Hinds County", "City of London"); a question reaching a place through
# one kind ("the state where …") does not follow a name of another kind first.
_PLACE_KINDS = frozenset((
    "country", "state", "city", "county", "town", "village", "district", "region", "province", "continent",
    "nation", "island", "township", "parish", "borough", "municipality", "prefecture", "river", "lake",
    "mountain", "valley", "park"))
_ASKED_KIND = re.compile(r"(?i)\b(?:the\s+(\w+)\s+(?:where|in which|that|which|containing|of|whose|in)\b|"
                         r"['’]s\s+(\w+)\b)")


def _wanted(question: str) -> re.Pattern[str] | None:
    """What the text just before a bridge name says when the name is the kind of thing the question links
    through: a place ("in X") for a question about a place, an agent ("by X") for one about a person or body."""
    if _AGENT_Q.search(question):
        return _BEFORE_AGENT
    if _PLACE_Q.search(question):
        return _BEFORE_PLACE
    return None


def _asked_kind(question: str) -> str | None:
    """The kind of place the question reaches through its description: "state" of "the state where X is
    located", "county" of "What state is the county containing X in?", "city" of "X's city of birth"."""
    for m in _ASKED_KIND.finditer(question):
        word = (m.group(1) or m.group(2)).lower()
        if word in _PLACE_KINDS:
            return word
    return None


def _kind_of(name: str) -> str | None:
    """The kind of place a name says it is: "county" of "Hinds County" and of "County Cork"."""
    words = name.lower().split()
    for word in (words[-1], words[0]):
        if word in _PLACE_KINDS:
            return word
    return None


def _own_title(hit: Hit) -> str:
    """The name a passage's document is about, by its heading ("Baure" of "Baure, Nigeria", "Privilege" of
    "Privilege (Ivor Cutler album)"), and the sections the passage sits in; the file's name when it has no
    heading (a file's name writes its qualifiers too: "baure-nigeria.md")."""
    crumbs = hit.breadcrumb.split(" > ") if hit.breadcrumb else []
    if crumbs and crumbs[0] == hit.document_name:  # a breadcrumb opens with the file's name
        crumbs = crumbs[1:]
    if not crumbs or not crumbs[0].strip():
        return re.sub(r"\([^)]*\)", " ", hit.document_name)
    head = re.sub(r"\([^)]*\)", " ", crumbs[0]).split(",")[0]
    return " ".join([head, *crumbs[1:]])


def _within(name: str, other: str) -> bool:
    """``name`` is ``other`` or some of its words ("Hinds County" of "Hinds County Court"; not "Mississippi" of
    "Plaquemine Mississippian")."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", other) is not None


def _spelled_like(name: str, words: Sequence[str]) -> bool:
    """``name`` is another spelling of one of ``words``, the question's words of five letters or more
    ("Damerdjog" of "Damerjog")."""
    low = name.lower()
    return any(SequenceMatcher(None, low, w).ratio() >= 0.85 for w in words)


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


def _english_bridges(sentence: str, content: str) -> list[str]:
    """The names of an English ``sentence`` that may lead on: not a month or weekday, and not a lone capitalised
    word opening the sentence ("Meanwhile", "Due", "Groups") unless ``content`` also writes it capitalised
    elsewhere."""
    out = []
    for name in english_entities(sentence):
        if name.lower() in TIMES:  # a time, not a thing a second hop could be about
            continue
        lone_opening = " " not in name and sentence.lstrip(" \"'“(").startswith(name)
        if lone_opening and not re.search(rf"[^.!?\s]\s+{re.escape(name)}\b", content):
            continue
        out.append(name)
    return out


def bridge_candidates(question: str, hit: Hit, limit: int) -> list[str]:
    """Names in ``hit`` that the question does not use (nor spells otherwise), from its sentences nearest the
    question's words first; for a question that links through a place or an agent ("the state where X is",
    "the director of Y"), the names a sentence writes as one ("in Nevada", "in Hinds County, Mississippi",
    "directed by Daniel Alfredson") come before its other names, and of those, a name of another kind of place
    than the question reaches through ("Hinds County" for "the state where …") after the rest."""
    asked = question.lower()
    words = re.findall(r"[a-z]{5,}", asked)
    # the title's own name, not what it adds in brackets or after a comma: "Privilege (Ivor Cutler album)" names
    # its performer, "Baure, Nigeria" the country Baure is in
    title = _own_title(hit).lower()
    terms = query_terms(question)
    sentences = split_sentences(hit.content)
    sentences.sort(key=lambda s: -sum(1 for t in terms if t in s.lower()))
    wanted = _wanted(question)
    kind = _asked_kind(question) if wanted is _BEFORE_PLACE else None
    found: list[tuple[int, bool, bool, str]] = []
    for rank, sentence in enumerate(sentences):
        names = chinese_names(sentence) if has_han(sentence) else _english_bridges(sentence, hit.content)
        for name in names:
            low = name.lower()
            if low in asked or low in title or any(_within(low, f.lower()) or _within(f.lower(), low)
                                                   for *_, f in found):
                continue
            if _spelled_like(name, words):
                continue
            before = [sentence[:m.start()] for m in re.finditer(re.escape(name), sentence)]
            fits = wanted is None or any(wanted.search(b) or (wanted is _BEFORE_PLACE and _ADDRESS_TAIL.search(b))
                                         for b in before)
            other_kind = kind is not None and _kind_of(name) not in (None, kind)
            found.append((rank, not fits, other_kind, name))
    return [name for *_, name in sorted(found, key=lambda f: f[:3])][:limit]


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
