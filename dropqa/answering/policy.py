"""The offline planner: which tool calls to make next, from the question's intent, what the
last evaluation said, and what has been tried already (seed 001's strategy table).

| situation                               | next calls                                          |
|-----------------------------------------|-----------------------------------------------------|
| chapter / outline question              | get_document_structure (the document it names)      |
| "which page is section X on"            | get_document_structure, deep enough to find X       |
| "V2 compared with V1"                   | full-text search in each version                    |
| multi-hop, bridge entity known          | keyword search for the entity + full-text of rest   |
| multi-hop, bridge not found yet         | full-text search of the first hop                   |
| names / numbers / quoted phrases        | keyword search (exact)                              |
| several keywords                        | full-text search                                    |
| vague, nothing found, or low relevance  | semantic search (broaden), then the best hit's      |
|                                         | section (explore deeper)                            |
| contradictions among the evidence       | verify_consistency over the cited candidates        |

It returns plain tool-call dicts; ``think`` wraps them in an AIMessage so that the
same ToolNode runs them whether a model or this table chose them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from dropqa.answering.intent import Intent
from dropqa.retrieval.hits import Hit
from dropqa.text.headings import without_chapter_refs
from dropqa.text.segment import query_terms

_STRUCTURE_WORDS = re.compile(
    r"(?i)讲了|哪些|什么|内容|章节|目录|大纲|结构|一节|第几页|哪一页|"
    r"在|中|的|what|which|sections?|chapters?|does|do|have|has|the|page|on|is|outline|of|[？?“”\"。，]"
)
_NAMEISH = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{1,}|\d[\d,.]*%?")


Strategy = Literal["start", "refine", "deeper", "broaden", "bridge", "verify", "answer", "answer_now"]
"""What ``adapt`` decided: search again in one of these ways, or ``answer`` (``answer_now``: with a chat model,
the model decides when it is done and the rule is a hint)."""


@dataclass
class Planned:
    thought: str  # message key in messages.<lang>.yaml
    calls: list[dict[str, Any]]


def call_key(name: str, args: dict[str, Any]) -> str:
    return f"{name}:{json.dumps(args, ensure_ascii=False, sort_keys=True)}"


def document_hint(question: str) -> str:
    """The words of a structure question that may name its document ("年度工作报告")."""
    return _STRUCTURE_WORDS.sub(" ", without_chapter_refs(question)).strip() or question


def _distinct_terms(question: str, exclude: list[str]) -> str:
    low = [e.lower() for e in exclude]
    return " ".join(t for t in query_terms(question) if t not in low)


def plan(question: str, intent: Intent, strategy: Strategy, hits: list[Hit], bridge: list[str], tried: set[str],
         version: int | None) -> Planned:
    """The next tool calls. An empty ``calls`` list means: nothing useful is left to try."""
    calls: list[dict[str, Any]] = []

    def add(name: str, **args: Any) -> None:
        args = {k: v for k, v in args.items() if v is not None}
        if call_key(name, args) not in tried and all(c["name"] != name or c["args"] != args for c in calls):
            calls.append({"name": name, "args": args})

    if strategy == "verify":
        ids = [h.node_id for h in hits[:12]]
        if ids:
            add("verify_consistency", node_ids=ids, question=question)
        return Planned("thought_verify", calls)

    if intent.kind in ("structure", "page") and strategy in ("start", "refine"):
        add("get_document_structure", document=document_hint(question), version=version,
            max_depth=6 if intent.kind == "page" else 4)
        if intent.kind == "page":
            for phrase in intent.quoted:
                add("keyword_search", pattern=phrase, version=version, limit=5)
        if calls:
            return Planned("thought_structure", calls)

    if intent.kind == "compare_versions" and strategy in ("start", "refine"):
        query = re.sub(r"(?i)v(?:ersion)?\s*\d+(?:\.\d+)*", " ", question)
        for v in intent.versions or [1]:
            add("fulltext_search", query=query, version=v, limit=6)
        add("fulltext_search", query=query, limit=6)
        return Planned("thought_versions", calls)

    if intent.kind == "multi_hop" and strategy in ("start", "refine", "bridge"):
        if bridge:
            rest = _distinct_terms(intent.rest or question, [])
            for entity in bridge[:3]:
                add("keyword_search", pattern=entity, version=version, limit=10)
                add("fulltext_search", query=f"{entity} {rest}".strip(), version=version, limit=6)
            if calls:
                return Planned("thought_bridge", calls)
        elif intent.first_hop:
            add("fulltext_search", query=intent.first_hop, version=version, limit=8)
            return Planned("thought_first_hop", calls)

    if strategy in ("start", "refine", "bridge"):
        for phrase in intent.quoted:
            add("keyword_search", pattern=phrase, version=version, limit=8)
        for token in _NAMEISH.findall(question):
            if len(token) >= 3 and not token.isdigit():
                add("keyword_search", pattern=token, version=version, limit=8)
        add("fulltext_search", query=question, version=version, limit=8)
        if calls:
            return Planned("thought_refine", calls)

    if strategy in ("broaden", "refine", "start", "bridge"):
        add("semantic_search", query=question, version=version, limit=8)
        if calls:
            return Planned("thought_broaden", calls)

    # Explore deeper: the best passage's section — its neighbours often hold the rest of the argument.
    for h in hits[:2]:
        add("get_node_content", node_id=h.node_id)
    return Planned("thought_deeper", calls)
