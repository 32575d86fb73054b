"""``finalize``: the response shape — sources (cited first), confidence, topics, thread history."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from langgraph.runtime import Runtime

from dropqa.blocking import in_thread
from dropqa.graph.nodes.common import in_turns
from dropqa.graph.state import PastTurn, State
from dropqa.retrieval.hits import Hit, within_section
from dropqa.services import Context, Services
from dropqa.store import nodes as node_store
from dropqa.store.documents import topics_named
from dropqa.store.scope import Scope
from dropqa.text.asked import (
    asks_target,
    expected_kind,
    held_share,
    holds_kind_for,
    leaves_open,
    lists_years,
    quoted,
    says_more,
    states_target,
)
from dropqa.text.entities import years_in


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


Confidence = Literal["high", "medium", "low"]


def confidence_of(state: State, listed: Sequence[int] | None = None) -> Confidence:
    """How sure the answer is. An answer is ``high`` only when the answerability model is sure of it *and*
    one line it quotes holds what the question asks — every asked term (or its translation) and an answer
    of the asked kind given for it (a person for "who", a date for "when", a number for "how many" in a clause
    holding what is asked: ``text.asked.holds_kind_for``); a quote that holds
    less than half of it is ``low``. A refusal is ``high`` only when nothing anywhere holds what is asked
    and no passage in the other language came near; else ``medium`` (never a sure "no" beside a passage
    that might answer). A question naming a year is ``high`` only when a cited passage (its heading path or text)
    names that year. An answer telling what each of several documents says (the readers') is ``high`` only
    when each document's lines state what is asked: "the judgement dates of A and B" answered with B's date
    line and A's arrest line is not. ``listed``: the pool index of each ``[n]`` the answer cites (the sources'
    order), to tell the documents apart; without it the answer's markers are pool positions."""
    decision, quality = state.quality.decision, state.quality
    if not state.answerable:
        cross = any(h.metadata.get("cross_language") for h in state.hits[:3])
        nowhere = bool(quality.weights) and set(quality.weights) <= set(quality.unseen)
        return "high" if nowhere and not quality.asked.named and not cross else "medium"
    if state.confidence is not None:
        base: Confidence = state.confidence
    elif decision is not None and decision.answerable:
        base = decision.confidence
    else:
        base = "medium"  # answered although the model doubted it (or for another reason)
    if (state.conflicts or state.inferred) and base == "high":
        base = "medium"  # the sources disagree (the answer reports both), or it rests on a link they do not state
    ask = quality.asked.weights(quality.weights)
    quote = quoted(state.answer)
    if held_share(quote, ask, quality.asked.translations) < 0.5:
        return "low"
    if base == "high" and (not ask or not any(_states_what_is_asked(line, ask, state.question,
                                                                    quality.asked.translations)
                                              for line in quote.splitlines())):
        return "medium"  # nothing asked beyond the subject's name is no promise a line can keep
    years = set(years_in(state.question)) if expected_kind(state.question) != "date" else set()
    cited = [state.hits[i] for i in state.citations if 0 <= i < len(state.hits)]
    if base == "high" and years and not any(years & set(years_in(f"{h.breadcrumb}\n{h.content}")) for h in cited):
        return "medium"  # "公司2023年的净利润" answered from a passage that names no 2023: whose year's is it?
    if base == "high" and state.findings:
        by_document: dict[str, list[str]] = {}
        for line in state.answer.splitlines():
            marks = [int(n) - 1 for n in re.findall(r"\[(\d+)\]", line)]
            pool = [listed[k] if listed is not None and 0 <= k < len(listed) else k for k in marks]
            docs = {state.hits[i].document_id for i in pool if 0 <= i < len(state.hits)}
            for doc in docs:
                by_document.setdefault(doc, []).append(quoted(line))
        if len(by_document) > 1 and not all(
                any(_states_what_is_asked(line, ask, state.question, quality.asked.translations) for line in lines)
                for lines in by_document.values()):
            return "medium"
    return base


def _states_what_is_asked(line: str, ask: dict[str, float], question: str,
                          translations: dict[str, list[str]]) -> bool:
    """One quoted line holds every asked term (or its translation), something the question does not say, and an
    answer of the asked kind: what ``high`` promises ("the quoted sentence holds what was asked"), not several
    lines that hold it between them, nor a line that only says the question back — nor, asked when, a list of
    dates ("1903年12月28日、…1914年8月18日、…1944年1月1日" for "第1舰队是何时解散的"), which holds the date among
    others and does not say which it is; nor a line saying its value is not settled ("具体日期另行通知"), nor one
    stating an aim or a demand when the question asks what was done ("经营目标是全年组件出货量达到15GW以上",
    "要求…赔偿经济损失1.2亿元" for what the court awarded)."""
    kind = expected_kind(question)
    return (held_share(line, ask, translations) >= 0.999 and says_more(line, question) and not leaves_open(line)
            and (asks_target(question) or not states_target(line))
            and holds_kind_for(line, kind, question, list(ask), translations)
            and not (kind in ("date", "year") and lists_years(line)))


async def finalize(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Sources and topics read from the database: in a worker thread."""
    return await in_thread(final_answer, state, runtime.context.services, runtime.context.scope())


def taking_turns(hits: Sequence[Hit], rest: list[int], documents: list[str]) -> list[int]:
    """The uncited passages (pool indexes, best first) in the order they are listed: for a question naming
    several documents ("A 和 B 分别犯了什么罪"), each of those documents' passages taking turns (A1, B1, A2, B2, …),
    then the others'. Each document's own search's best passages come first: the agent loop's pool is ranked
    on one scale, where one document's passages can fill every place left and the other's evidence is not
    listed."""
    documents = list(dict.fromkeys(documents))
    if len(documents) < 2:
        return rest
    # each document's own search's best passages first (``retrieve.part_heads`` marks them), then the rest of it
    queues = [sorted((i for i in rest if hits[i].document_id == d), key=lambda i: ("part" not in hits[i].metadata, i))
              for d in documents]
    return in_turns(queues) + [i for i in rest if hits[i].document_id not in documents]


def section_rest(svc: Services, scope: Scope, hits: Sequence[Hit], section: Sequence[str], limit: int) -> list[Hit]:
    """Up to ``limit`` passages of the section a summary answer quotes (``section``: document id and path) that
    the pool ``hits`` lacks, in document order — the rest of what it sums up, listed after what it quotes."""
    document, path = section
    inside = [h for h in hits if h.document_id == document and within_section(h.section, path)]
    if not inside:
        return []
    first = min(h.position for h in inside)
    rows = node_store.neighbours(svc.db, scope, uuid.UUID(document), inside[0].version, first, 0,
                                 svc.settings.answer.summary_section_nodes)
    known = {h.node_id for h in hits}
    rest = [Hit.from_row(row, "section") for row in rows]
    return [h for h in rest if h.node_id not in known and within_section(h.section, path)][:limit]


def section_first(hits: Sequence[Hit], rest: list[int], section: Sequence[str]) -> list[int]:
    """The uncited passages in the order they are listed: those of the section a summary answer quotes
    (``section``: its document id and path) first, in document order — the rest of what it sums up —, then the
    others as ranked."""
    if len(section) != 2:
        return rest
    document, path = section
    inside = sorted((i for i in rest if hits[i].document_id == document
                     and within_section(hits[i].section, path)), key=lambda i: hits[i].position)
    return inside + [i for i in rest if i not in inside]


def with_nearest(hits: Sequence[Hit], order: list[int], ranked: list[int], nearest: Sequence[Hit], top_k: int,
                 slots: int) -> tuple[list[int], list[Hit]]:
    """The uncited passages listed (pool indexes: the longest head of ``ranked`` that leaves room) and, after them,
    up to ``slots`` of the ``nearest`` passages (nearest first) of documents that neither the cited ``order`` nor
    that head lists — another hop's page, not one more passage of a document already listed: ``top_k`` in all. A
    nearest passage the pool holds is listed by its pool index."""
    pool = {h.node_id: i for i, h in enumerate(hits)}
    for length in range(max(0, top_k - len(order)), -1, -1):
        documents = {hits[i].document_id for i in [*order, *ranked[:length]]}
        extra = [h for h in nearest if h.document_id not in documents][:slots]
        if len(order) + length + len(extra) <= top_k or length == 0:
            room = max(0, top_k - len(order))
            head = (ranked[:length] + [pool[h.node_id] for h in extra if h.node_id in pool])[:room]
            return head, [h for h in extra if h.node_id not in pool][: room - len(head)]
    return [], []


def final_answer(state: State, svc: Services, scope: Scope) -> dict[str, Any]:
    """``scope``: the run's bases (the topics the question names are theirs)."""
    cfg = svc.settings.retrieval
    hits = state.hits
    if len(state.summary_section) == 2:  # the rest of the section a summary quotes, where the pool lacks it
        hits = [*hits, *section_rest(svc, scope, hits, state.summary_section, cfg.top_k)]
    cited = set(state.citations)
    answer = state.answer
    # Cited passages first, in the order the answer cites them; then the rest of the evidence pool in rank
    # order, up to top_k in all (cited are never cut): what the answer rests on, then where else to look —
    # also under a "not in the documents", so the reader can check for themselves.
    order = citation_order(answer, cited)
    parts = [str(p.get("document_id")) for p in state.intent.parts if p.get("document_id")]
    ranked = section_first(hits, taking_turns(hits, [i for i in range(len(hits)) if i not in cited], parts),
                           state.summary_section)
    # the last places go to the passages nearest the question in meaning that the ranking leaves out: another
    # hop's page ("In Indiana, alcohol may be sold …" for the state a school is in), worded unlike the question
    head, nearest = with_nearest(hits, order, ranked, state.nearest, cfg.top_k,
                                 0 if state.summary_section else cfg.nearest_slots)
    keep = order + head
    sources = [hits[i].source(cfg.snippet_chars, i in cited) for i in keep]
    sources += [h.source(cfg.snippet_chars, False) for h in nearest]
    renumber = {old: new for new, old in enumerate(keep)}
    if cited:
        answer = renumber_citations(answer, renumber)
    confidence = confidence_of(replace(state, answer=answer, hits=hits), keep)
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
