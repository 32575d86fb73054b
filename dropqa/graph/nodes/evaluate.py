"""``evaluate``: what did the last tool calls bring? (seed 000 §6.3.2)

Reads the ToolMessages' artifacts (hits, outlines, conflicts — never parsed text),
rescores new passages against the question so the evidence pool is ranked on one
scale, finds the bridge entity of a multi-hop question, and judges the state of
the evidence: empty, low relevance, good, or contradictory, with an information-
density estimate (the share of the question's idf-weighted terms that the best
passages cover together).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from dropqa.answering.bridge import bridge_entities
from dropqa.answering.consistency import ConflictNote, claims_in, subject_conflicts, subject_of
from dropqa.answering.outline import Outline
from dropqa.blocking import in_thread
from dropqa.graph.nodes.common import decide_answerable, merge_hits
from dropqa.graph.state import Evaluation, State
from dropqa.retrieval.fusion import coverage
from dropqa.retrieval.hits import Hit
from dropqa.retrieval.search import score_hits, term_weights
from dropqa.services import Context, Services
from dropqa.store.scope import Scope
from dropqa.text.messages import render
from dropqa.text.segment import query_terms
from dropqa.tools.agent_tools import load_hits


def _turn_tool_messages(state: State) -> list[ToolMessage]:
    out: list[ToolMessage] = []
    for message in reversed(state.messages):
        if not isinstance(message, ToolMessage):
            break
        out.append(message)
    return list(reversed(out))


def _outline_hits(svc: Services, scope: Scope, outline: Outline) -> list[Hit]:
    ids = [t.node_id for t in outline.tree if t.depth > 0][:svc.settings.agent.max_nodes]
    return load_hits(svc, scope, ids)


def density(hits: list[Hit], terms: list[str], weights: dict[str, float], top: int) -> float:
    matched = {t for h in hits[:top] for t in h.matched_terms}
    return round(coverage(list(matched), weights), 3) if terms else 0.0


async def evaluate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Database, embedding and scoring work: in a worker thread."""
    return await in_thread(judge, state, runtime.context.services, runtime.context.scope(state.version))


def judge(state: State, svc: Services, scope: Scope) -> dict[str, Any]:
    """``scope``: the run's bases at the question's version (the passages' idf is theirs)."""
    lang = state.language
    intent = state.intent
    query = state.search_text
    bridge = list(state.bridge)
    terms = list(state.terms or query_terms(query))
    scoring_terms = terms + [t for b in bridge for t in query_terms(b) if t not in terms]
    weights = term_weights(svc, scoring_terms, scope)
    qvec = svc.embedder.embed_query(" ".join([query, *bridge])).tolist()
    update: dict[str, Any] = {}
    steps = []
    new_hits: list[Hit] = []
    messages = _turn_tool_messages(state)
    for message in messages:
        artifact = message.artifact if isinstance(message.artifact, dict) else {}
        hits = [Hit.model_validate(h) for h in artifact.get("hits") or []]
        data = artifact.get("data") or {}
        if message.name == "get_document_structure" and data.get("tree"):
            outline = Outline.model_validate(data)
            update["outline"] = outline
            hits = _outline_hits(svc, scope, outline)
            for h in hits:
                h.relevance = 0.0  # ranked by the answer step against the chapter asked for
        if message.name == "verify_consistency":
            update["conflicts"] = [ConflictNote.model_validate(c) for c in data.get("conflicts") or []]
        if message.name != "get_document_structure":
            for h in hits:
                h.metadata.pop("semantic", None)  # similarity to the tool's query, not to the question
                h.metadata.pop("translated_coverage", None)
            score_hits(svc, scope, hits, scoring_terms, weights, qvec, state.quality.translations)
        new_hits += hits
        status = str(message.content).split("\n", 1)[0][:300]
        steps.append({"step": state.iterations + 1, "type": "observation", "content": status,
                      "tool": message.name or "", "result_summary": status})
    pool, added = merge_hits(state.hits, new_hits)
    cfg = svc.settings.answer
    if intent.kind == "multi_hop" and not bridge:
        found = bridge_entities(intent.first_hop or query, pool, passages=cfg.bridge_passages,
                                limit=cfg.bridge_names, share=cfg.bridge_vote_share)
        if found:
            update["bridge"] = found
    top = pool[0].relevance if pool else 0.0
    decision = decide_answerable(state, pool, svc, weights=weights)
    threshold = decision.threshold
    dens = density(pool, scoring_terms, weights, cfg.density_passages)
    named, subject = state.intent.named, state.quality.asked.subject
    claims = [(subject_of(h, named, subject), c) for h in pool[:cfg.contradiction_passages]
              for c in claims_in(h, [t for t in terms if not t.isdigit()], naming=subject, question=state.search_text)]
    contradictions = subject_conflicts(claims, named)
    if not new_hits and not update.get("outline"):
        verdict = "empty"
    elif contradictions and not state.conflicts and "conflicts" not in update:
        verdict = "contradiction"
    elif not decision.answerable:
        verdict = "low"
    else:
        verdict = "good"
    tools = ", ".join(sorted({m.name or "" for m in messages})) or "—"
    steps.append({"step": state.iterations + 1, "type": "evaluation",
                  "content": render(lang, "evaluation", tool=tools, new=added, top=f"{top:.2f}",
                                    density=f"{dens:.2f}", verdict=render(lang, f"verdict_{verdict}"))})
    update.update({
        "hits": pool,
        "evaluation": Evaluation(verdict=verdict, new=added, top=top, density=dens,
                                 contradictions=len(contradictions), threshold=threshold,
                                 probability=decision.probability),
        "reasoning_trace": steps,
    })
    return update
