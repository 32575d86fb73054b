"""``finalize``: the response shape — sources (cited first), confidence, topics, thread history."""

from __future__ import annotations

import re
from typing import Any, Literal

from langgraph.runtime import Runtime

from dropqa.blocking import in_thread
from dropqa.graph.state import PastTurn, State
from dropqa.retrieval.answerability import Decision, listed_sources
from dropqa.services import Context, Services
from dropqa.store.documents import topics_named
from dropqa.store.scope import Scope


def renumber_citations(answer: str, renumber: dict[int, int]) -> str:
    """Rewrite ``[n]`` markers (1-based) in one pass, so a new number is never rewritten again."""
    def repl(m: re.Match[str]) -> str:
        old = int(m.group(1)) - 1
        return f"[{renumber[old] + 1}]" if old in renumber else m.group(0)

    return re.sub(r"\[(\d+)\]", repl, answer)


def citation_order(answer: str, cited: set[int]) -> list[int]:
    """Cited pool indexes in the order the answer first cites them."""
    seen: dict[int, None] = {}
    for n in re.findall(r"\[(\d+)\]", answer):
        if int(n) - 1 in cited:
            seen.setdefault(int(n) - 1, None)
    return [*seen, *sorted(cited - set(seen))]


def confidence_of(decision: Decision | None, answerable: bool) -> Literal["high", "medium", "low"]:
    """The answerability model's confidence, when it agrees with the outcome; else medium
    (the answer was given or withheld for another reason: a citation that did not hold, say)."""
    if decision is not None and decision.answerable == answerable:
        return decision.confidence
    return "medium"


async def finalize(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Sources and topics read from the database: in a worker thread."""
    return await in_thread(final_answer, state, runtime.context.services, runtime.context.scope())


def final_answer(state: State, svc: Services, scope: Scope) -> dict[str, Any]:
    """``scope``: the run's bases (the topics the question names are theirs)."""
    cfg = svc.settings.retrieval
    hits = state.hits
    cited = set(state.citations)
    answerable = state.answerable
    answer = state.answer
    # Cited passages first, in the order the answer cites them; then, in rank order, the uncited
    # ones the fitted source model expects to hold evidence, up to top_k in all (cited are never cut).
    order = citation_order(answer, cited)
    room = max(0, cfg.top_k - len(order))
    weights = state.quality.weights
    if answerable:
        likely = listed_sources(svc.calibration.source, hits, list(state.terms), weights, state.language)
    else:  # a non-answer shows the closest passages it names, so the reader can check for themselves
        likely = list(range(min(svc.settings.answer.closest_sources, len(hits))))
    extra = [i for i in likely if i not in cited][:room]
    keep = order + extra
    sources = [hits[i].source(cfg.snippet_chars, i in cited) for i in keep]
    renumber = {old: new for new, old in enumerate(keep)}
    if cited:
        answer = renumber_citations(answer, renumber)
    confidence = state.confidence or confidence_of(state.quality.decision, answerable)
    if answerable and state.conflicts and confidence == "high":
        confidence = "medium"  # the sources disagree: the answer reports both, with less certainty
    return {
        "answer": answer,
        "sources": sources,
        "confidence": confidence,
        "identified_topics": topics_named(svc.db, scope, state.terms),
        "mode": state.mode,
        "iterations": state.iterations,
        "degraded": state.degraded,
        "history": [PastTurn(question=state.question, query=state.search_text,
                             answer=answer[:svc.settings.answer.history_answer_chars])],
    }
