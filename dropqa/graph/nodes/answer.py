"""``answer`` (extractive, offline) and ``abstain`` (the documents do not hold the answer)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from dropqa.graph.context import Context
from dropqa.graph.extractive import pick_sentences
from dropqa.graph.nodes.common import hits_of, step
from dropqa.graph.prompts import render
from dropqa.graph.state import State


def answer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    cfg = runtime.context.svc().settings.retrieval
    lang = state.get("language", "en")
    hits = hits_of(state)
    weights = (state.get("quality") or {}).get("weights") or {}
    picked = pick_sentences(state["question"], state.get("terms") or [], weights, hits, cfg.answer_sentences)
    if not picked:
        return abstain(state, runtime)
    lines = [render(lang, "answer_lead")]
    lines += [render(lang, "answer_item", text=p.text, n=p.hit_index + 1) for p in picked]
    cited = sorted({p.hit_index for p in picked})
    return {
        "answer": "\n".join(lines),
        "answerable": True,
        "citations": cited,
        "reasoning_trace": [step(state, "answer", render(lang, "answer_summary", n=len(hits), k=len(picked)))],
    }


def abstain(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    lang = state.get("language", "en")
    hits = hits_of(state)
    if hits:
        closest = "、".join(f"「{h.document_name} > {h.section}」" for h in hits[:2]) if lang == "zh" else \
            ", ".join(f"'{h.document_name} > {h.section}'" for h in hits[:2])
        text = render(lang, "no_answer", closest=closest)
    else:
        text = render(lang, "no_answer_empty")
    top = hits[0].relevance if hits else 0.0
    return {
        "answer": text,
        "answerable": False,
        "citations": [],
        "reasoning_trace": [step(state, "answer", render(lang, "insufficient", relevance=f"{top:.2f}"))],
    }
