"""Do the retrieved passages answer the question? A fitted decision, not a hand-picked threshold.

A small logistic model, fitted on the golden suites by ``python -m dropqa.evals.fit`` and shipped as
data (``dropqa/models/answerability.json``, loaded once into the services by ``dropqa.models.calibration``),
reads features of the evidence pool — how well the best passages match, and what the question asks of
the documents it names (:class:`Asked`) — and gives P(the documents hold the answer). ``answerable:
false`` is said below its threshold; above ``confident`` an answer may be ``high`` (if what it quotes
holds what is asked: ``graph.nodes.finalize``).

Features are computed here, once, for the runtime and for the fitting script alike, so the
coefficients always describe what the graph sees. Refit with
``.venv/bin/python -m dropqa.evals.fit`` after a change to retrieval or to the suites.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from dropqa.models.calibration import Logistic
from dropqa.retrieval.fusion import coverage
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import ask_weights, expected_kind, held_share, holds_kind, quotes_kind
from dropqa.text.bilingual import dictionary_names_a_thing
from dropqa.text.entities import ANY_YEAR
from dropqa.text.segment import english_stopwords, has_han, holds, names_a_thing, tagged_verb

QUESTION_FEATURES = (
    "top_relevance", "top_similarity", "top_coverage", "content_coverage", "ask_coverage", "union_coverage",
    "agreement", "margin", "cross_language", "n_terms", "is_fact", "unseen", "named", "ask_in_subject", "ask_best",
    "ask_gap", "ask_absent", "subjects", "ask_nowhere", "ask_apart", "ask_unlinked",
)


class Asked(BaseModel, frozen=True):
    """What the question asks of what: the terms that name its subject, the subject's documents (those the
    question names, else the best passage's), and how much of the rest — the asked attribute — those
    documents hold anywhere, in either language (``retrieval.search.held_in``)."""

    subject: frozenset[str] = frozenset()
    documents: frozenset[str] = frozenset()
    named: bool = False
    in_subject: float = 0.0
    gap: float = 0.0  # the share of the asked attribute's mass of its heaviest term the documents lack
    missing: tuple[str, ...] = ()  # the asked terms the subject's documents hold in no form, heaviest first
    absent: float = 0.0  # the share of the asked attribute's mass that neither they nor the best passages hold
    unlinked: float = 0.0  # the same share, of what neither they nor the best passages linked to them hold
    subjects: int = 0  # how many subjects the named documents are named by (one: each by the same words)
    nowhere: float = 0.0  # the share of the asked attribute's mass no passage of the collection writes at all
    nowhere_terms: tuple[str, ...] = ()  # those terms, heaviest first
    apart: float = 0.0  # the share of the asked attribute's mass in phrases the subject's documents never write as one
    apart_terms: tuple[str, ...] = ()  # those phrases' terms, in the question's order
    translations: dict[str, list[str]] = {}

    def weights(self, weights: dict[str, float]) -> dict[str, float]:
        """The asked attribute's terms and weights (``weights`` without the subject's terms)."""
        return ask_weights(weights, self.subject)


def _content_terms(hit: Hit, terms: Sequence[str]) -> list[str]:
    low = hit.content.lower()
    return [t for t in terms if holds(low, t)]


def _similarity(hit: Hit) -> float:
    return float(hit.metadata.get("semantic") or 0.0)


def _title_terms(hit: Hit, terms: Sequence[str]) -> set[str]:
    """Terms that name the passage's document (its file name or root title): the question's subject."""
    root = hit.names()
    return {t for t in terms if t in root}


def question_features(hits: Sequence[Hit], terms: Sequence[str], weights: dict[str, float], language: str,
                      kind: str = "fact", top: int = 5, unseen: Sequence[str] = (), asked: Asked | None = None,
                      ) -> dict[str, float]:
    """Features of the evidence pool (best first) for the question-level decision. ``unseen``: the
    question's terms that no passage of the whole collection holds (in either language); ``asked``: what
    the question asks of which documents."""
    best = list(hits[:top])
    total = sum(weights.values())
    missing = sum(weights.get(t, 0.0) for t in unseen_things(unseen)) / total if total else 0.0
    asked = asked or Asked()
    ask = asked.weights(weights)
    subject_hits = [h for h in hits[:top + 3] if not asked.documents or h.document_id in asked.documents]
    ask_best = max((held_share(f"{h.breadcrumb}\n{h.content}", ask, asked.translations) for h in subject_hits),
                   default=0.0)
    extra = {"named": float(asked.named), "ask_in_subject": asked.in_subject, "ask_best": ask_best,
             "ask_gap": asked.gap, "ask_absent": asked.absent, "subjects": float(asked.subjects),
             "ask_nowhere": asked.nowhere, "ask_apart": asked.apart, "ask_unlinked": asked.unlinked}
    if not best:
        return {name: 0.0 for name in QUESTION_FEATURES} | {"is_fact": float(kind == "fact"),
                                                             "n_terms": math.log1p(len(terms)), "unseen": missing,
                                                             **extra}
    first = best[0]
    cov = [coverage(h.matched_terms, weights) for h in best] if terms else [0.0]
    content_cov = [coverage(_content_terms(h, terms), weights) for h in best] if terms else [0.0]
    subject = _title_terms(first, terms)
    ask = {t: w for t, w in weights.items() if t not in subject}
    ask_cov = [coverage(_content_terms(h, list(ask)), ask) for h in best] if ask else content_cov
    union = {t for h in best[:3] for t in h.matched_terms}
    other = next((h.relevance for h in hits[1:] if h.document_id != first.document_id), 0.0)
    both = [float({"fulltext", "semantic"} <= set(h.channels)) for h in best[:3]]
    question_han = language == "zh"
    return {
        "top_relevance": first.relevance,
        "top_similarity": max(_similarity(h) for h in best),
        "top_coverage": max(cov),
        "content_coverage": max(content_cov),
        "ask_coverage": max(ask_cov),
        "union_coverage": coverage(list(union), weights) if terms else 0.0,
        "agreement": sum(both) / len(both),
        "margin": first.relevance - other,
        # the best passage is in the other language: the share of the question it holds, translated
        "cross_language": _cross_language(first, question_han, unseen),
        "n_terms": math.log1p(len(terms)),
        "is_fact": float(kind == "fact"),
        "unseen": missing,
        **extra,
    }


def unseen_things(unseen: Sequence[str]) -> list[str]:
    """The question's unseen words that name a thing a document would write down (``names_a_thing``): what
    the ``unseen`` feature weighs. An asker's verb, adverb or count ("弄丢", "一直", "一张", "能来") is no word
    the documents lack when they word the same thing otherwise (遗失, 补办), and a single Han character the word
    index does not hold (交, 退 of "押金多久能退") is written inside the documents' words if at all. A two-letter
    Latin piece of a name ("wi", "fi" of 访客Wi-Fi) names a thing, and so does a word jieba tags a verb that
    CC-CEDICT's first sense makes a noun (访客 "visitor")."""
    return [t for t in unseen if not (len(t) == 1 and has_han(t))
            and (names_a_thing(t) or (len(t) == 2 and t.isascii() and t.isalpha() and t not in english_stopwords())
                 or (has_han(t) and tagged_verb(t) and dictionary_names_a_thing(t)))]


def _cross_language(first: Hit, question_han: bool, unseen: Sequence[str]) -> float:
    """How much of the question the best passage holds when it is in the other language (its translated
    coverage): what vouches for a question whose words a small dictionary may not bridge ("主诉" for "Chief
    Complaint", 全职 → "full-time job" for "full-time"). It does not vouch when a Chinese question writes a word
    in Latin letters, as an English document would write it, that no passage holds (访客Wi-Fi of a collection
    without Wi-Fi): that word is absent, not lost in translation."""
    if question_han == has_han(first.content):
        return 0.0
    if question_han and any(t.isascii() and t.isalpha() for t in unseen):
        return 0.0
    return float(first.metadata.get("translated_coverage") or 0.0)


class Decision(BaseModel, frozen=True):
    """The question-level decision: P(the documents hold the answer), the verdict at the fitted threshold,
    and how sure it is (``high`` on either side far from the threshold)."""

    probability: float
    answerable: bool
    confidence: Literal["high", "medium", "low"]
    features: dict[str, float]
    threshold: float
    rule: str | None = None  # "attribute_absent" / "attribute_nowhere" / "attribute_apart": refused by that check

    def as_dict(self) -> dict[str, Any]:
        return {"probability": round(self.probability, 4), "answerable": self.answerable,
                "threshold": self.threshold, "rule": self.rule,
                "confidence": self.confidence, "features": {k: round(v, 4) for k, v in self.features.items()}}


def attribute_absent(asked: Asked, kind: str, absent_share: float | None) -> bool:
    """The question names one subject (its documents — a runbook and a register both named "Kestrel
    Payments Gateway" — named by the same words; "A and B" are two) and asks a single fact of it, and at least
    ``absent_share`` of what it asks (the attribute: its terms other than the subject's) is written nowhere — not in the
    subject's documents, in either language or any inflection, nor in the best passages found anywhere
    (a fact one hop away, in a document the subject's page names, is in those). "What is the favourite
    food of the chief judge?" of a judgement that records no food: the documents do not say. ``None``
    turns the check off (``answer.absent_attribute_share``, fitted by ``python -m dropqa.evals.fit absent``)."""
    return (absent_share is not None and _absent_applies(asked.named, asked.subjects, kind == "fact")
            and asked.absent >= absent_share)


def attribute_absent_in(features: Mapping[str, float], absent_share: float | None) -> bool:
    """:func:`attribute_absent` read off a decision's recorded features (``named``, ``subjects``, ``is_fact``,
    ``ask_absent``): the fitting script replays the check on eval reports with another share."""
    return (absent_share is not None
            and _absent_applies(features.get("named", 0.0) >= 1.0, features.get("subjects", 0.0),
                                features.get("is_fact", 0.0) >= 1.0)
            and features.get("ask_absent", 0.0) >= absent_share)


def _absent_applies(named: bool, subjects: float, is_fact: bool) -> bool:
    """The check's question: it names exactly one subject and asks one fact of it."""
    return named and subjects == 1 and is_fact


def attribute_nowhere(asked: Asked, kind: str, nowhere_share: float | None) -> bool:
    """The question asks one fact, and at least ``nowhere_share`` of what it asks (its terms other than its
    subject's) no passage of the collection writes at all — not the word, not inside a longer word, not a
    translation, not the words a Chinese compound is made of: "星河科技的海外业务收入" of documents that never
    mention 海外, "the phone number of the staff cafeteria" of documents without one. Whether or not the question
    names a document, but not of two ("A and B": a comparison). Not judged across languages (``Asked.nowhere``
    is 0 when the question and its documents differ). ``None`` turns the check off (``answer.nowhere_share``,
    fitted by ``python -m dropqa.evals.fit nowhere``)."""
    return _nowhere_applies(kind == "fact", asked.subjects, asked.nowhere, nowhere_share)


def attribute_nowhere_in(features: Mapping[str, float], nowhere_share: float | None) -> bool:
    """:func:`attribute_nowhere` read off a decision's recorded features (``is_fact``, ``subjects``,
    ``ask_nowhere``)."""
    return _nowhere_applies(features.get("is_fact", 0.0) >= 1.0, features.get("subjects", 0.0),
                            features.get("ask_nowhere", 0.0), nowhere_share)


def _nowhere_applies(is_fact: bool, subjects: float, nowhere: float, nowhere_share: float | None) -> bool:
    """The check's question and verdict: one fact of at most one subject, and something asked is written
    nowhere, at least ``nowhere_share`` of it."""
    return nowhere_share is not None and is_fact and subjects <= 1 and nowhere > 0 and nowhere >= nowhere_share


def attribute_apart(asked: Asked, kind: str, apart_share: float | None) -> bool:
    """The question names one subject and asks one figure of it (a number or an amount: ``Asked.apart`` is 0 for
    any other question), and at least ``apart_share`` of what it asks is a phrase the question writes as one
    (研发投入, 线上渠道销售额) whose words the subject's documents write only apart, never in one statement or heading
    (``retrieval.search.written_apart``): 禾润农业's report writes
    研发 and 投入 but no 研发投入, so it gives none. ``None`` turns the check off (``answer.apart_share``, fitted by
    ``python -m dropqa.evals.fit apart``)."""
    return _apart_applies(asked.named, asked.subjects, kind == "fact", asked.apart, apart_share)


def attribute_apart_in(features: Mapping[str, float], apart_share: float | None) -> bool:
    """:func:`attribute_apart` read off a decision's recorded features (``named``, ``subjects``, ``is_fact``,
    ``ask_apart``)."""
    return _apart_applies(features.get("named", 0.0) >= 1.0, features.get("subjects", 0.0),
                          features.get("is_fact", 0.0) >= 1.0, features.get("ask_apart", 0.0), apart_share)


def _apart_applies(named: bool, subjects: float, is_fact: bool, apart: float, apart_share: float | None) -> bool:
    """The check's question (as the absent-attribute check's) and verdict: something is apart, at least
    ``apart_share`` of what is asked."""
    return apart_share is not None and _absent_applies(named, subjects, is_fact) and 0 < apart >= apart_share


def quote_holds(quote: str, question: str, asked: Asked, weights: dict[str, float]) -> float:
    """The share of what is asked (``Asked.weights``) that an answer's quoted lines hold between them, the pieces
    of a withheld name aside (jieba's 某犯 of "柳某某犯了什么罪"); all of it when the question asks a count or a
    time and a line gives one, which says what is counted or dated in its own words ("育有3名子女" for
    "有几个孩子": ``text.asked.quotes_kind``; "dates back to 1410" for "When was the clock built?")."""
    ask = {t: w for t, w in asked.weights(weights).items() if "某" not in t}
    held = held_share(quote, ask, asked.translations)
    if held > 0.0:
        return held
    kind = expected_kind(question)
    if kind == "number" and quotes_kind(quote.splitlines(), "number", question, list(ask), asked.translations):
        return 1.0
    if kind == "date" and (ANY_YEAR.search(quote) or holds_kind(quote, "date")):
        return 1.0
    return held


def attribute_unlinked(asked: Asked, kind: str, unlinked_share: float | None, quote_held: float) -> bool:
    """The question names one subject and asks one fact of it; at least ``unlinked_share`` of what it asks is
    written neither in the subject's documents nor in a passage linked to them (one naming the subject, or a
    document their text names: ``graph.nodes.retrieve.linked_to``); and the answer composed for it quotes
    nothing of what it asks (``quote_held`` 0: :func:`quote_holds`). "Which drama school did Naomie Harris train
    at?" answered with "Naomie Melanie Harris … is an English actress": her page writes no school and no training,
    and that some other actor's page among the best passages writes "drama school" does not answer for her —
    in a collection of many articles it always will, which :func:`attribute_absent` counts. Judged on the
    composed answer, so a line that states the fact in other words and holds an asked word still answers.
    ``None`` turns the check off (``answer.unlinked_share``, fitted by ``python -m dropqa.evals.fit unlinked``
    on reports run with the check off)."""
    return _unlinked_applies(asked.named, asked.subjects, kind == "fact", asked.unlinked, unlinked_share,
                             quote_held)


def attribute_unlinked_in(features: Mapping[str, float], unlinked_share: float | None) -> bool:
    """:func:`attribute_unlinked` read off a decision's recorded features (``named``, ``subjects``, ``is_fact``,
    ``ask_unlinked``, and ``quoted_held``: the fitting script's copy of what the report's answer quoted)."""
    return _unlinked_applies(features.get("named", 0.0) >= 1.0, features.get("subjects", 0.0),
                             features.get("is_fact", 0.0) >= 1.0, features.get("ask_unlinked", 0.0), unlinked_share,
                             features.get("quoted_held", 1.0))


def _unlinked_applies(named: bool, subjects: float, is_fact: bool, unlinked: float, unlinked_share: float | None,
                      quote_held: float) -> bool:
    return (unlinked_share is not None and _absent_applies(named, subjects, is_fact) and unlinked > 0
            and unlinked >= unlinked_share and quote_held <= 0.0)


RULES: dict[str, Callable[[Mapping[str, float], float | None], bool]] = {
    "attribute_absent": attribute_absent_in, "attribute_nowhere": attribute_nowhere_in,
    "attribute_apart": attribute_apart_in, "attribute_unlinked": attribute_unlinked_in}
"""The checks that refuse whatever the fitted model says, by the rule name a decision records, replayed on
recorded features (the fitting script)."""


def refusal_rule(asked: Asked, kind: str, absent_share: float | None, nowhere_share: float | None,
                 apart_share: float | None) -> str | None:
    """Which check refuses the question before any answer is composed or asked of a model, if one does."""
    if attribute_absent(asked, kind, absent_share):
        return "attribute_absent"
    if attribute_nowhere(asked, kind, nowhere_share):
        return "attribute_nowhere"
    if attribute_apart(asked, kind, apart_share):
        return "attribute_apart"
    return None


def decide(model: Logistic, hits: Sequence[Hit], terms: Sequence[str], weights: dict[str, float], language: str,
           kind: str = "fact", unseen: Sequence[str] = (), asked: Asked | None = None,
           absent_share: float | None = None, nowhere_share: float | None = None,
           apart_share: float | None = None) -> Decision:
    """Is the question answerable from ``hits`` (best first), and how sure is that? ``model``: the fitted
    question model (``services.calibration.question``); a question whose asked attribute is written nowhere
    (:func:`attribute_absent`, :func:`attribute_nowhere`, :func:`attribute_apart`) is not, whatever the model says
    (``medium``)."""
    x = question_features(hits, terms, weights, language, kind, unseen=unseen, asked=asked)
    p = model.probability(x) if hits else 0.0
    rule = refusal_rule(asked or Asked(), kind, absent_share, nowhere_share, apart_share)
    if rule is not None:
        return Decision(probability=p, answerable=False, confidence="medium", features=x,
                        threshold=model.threshold, rule=rule)
    answerable = p >= model.threshold
    if not answerable:
        confidence = "high" if p < model.threshold / 2 else "medium"
    else:
        confidence = "high" if p >= model.confident else "medium" if p >= (model.threshold + model.confident) / 2 \
            else "low"
    return Decision(probability=p, answerable=answerable, confidence=confidence, features=x,
                    threshold=model.threshold)

