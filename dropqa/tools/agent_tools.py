"""Agent tools beyond search and browse (all read-only): related documents, consistency,
summaries of findings, and ``final_answer`` — the call with which the agent says it is done.

``final_answer`` is only a schema the model is offered (:data:`FINAL_ANSWER`): no tool runs it. The
graph sees the call, stops the loop and sends the proposed answer through ``verify``.
``search_web`` does not exist: DropQA answers from the user's documents only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from dropqa.answering.consistency import claims_in, find_conflicts
from dropqa.answering.extractive import pick_sentences
from dropqa.retrieval.hits import Hit
from dropqa.retrieval.search import term_weights
from dropqa.services import Services
from dropqa.store import nodes as node_store
from dropqa.store import related as related_store
from dropqa.store.scope import Scope
from dropqa.text.segment import query_terms
from dropqa.tools.documents import find_document, parse_ids
from dropqa.tools.results import ToolResult, failed
from dropqa.tools.spec import ToolSpec

NODES_CAP = 200  # the argument schemas' hard limit; Settings.agent.max_nodes is the one that applies


def load_hits(svc: Services, scope: Scope, node_ids: list[str]) -> list[Hit]:
    """The passages of the scope's bases with these ids, in that order; more ids than ``agent.max_nodes`` is
    an error."""
    limit = svc.settings.agent.max_nodes
    if len(node_ids) > limit:
        raise ValueError(f"at most {limit} node ids per call, got {len(node_ids)}")
    rows = node_store.get_nodes(svc.db, scope, parse_ids(node_ids))
    order = {nid: i for i, nid in enumerate(node_ids)}
    hits = [Hit.from_row(r, "browse") for r in rows]
    return sorted(hits, key=lambda h: order.get(h.node_id, len(order)))


class RelatedArgs(BaseModel):
    document: str = Field(description="document id, or (part of) its file name")
    limit: int = Field(8, ge=1, le=30)


def get_related_documents_impl(svc: Services, scope: Scope, args: RelatedArgs) -> ToolResult:
    doc = find_document(svc, scope, args.document)
    if doc is None:
        return failed("get_related_documents", f"no document matches {args.document!r}")
    stem = str(doc["filename"]).rsplit(".", 1)[0]
    related: dict[str, dict] = {}
    for row in related_store.by_shared_topics(svc.db, scope, doc["id"], args.limit):
        related[str(row["document_id"])] = {"document_id": str(row["document_id"]), "filename": row["filename"],
                                            "shared_topics": list(row["topics"] or [])[:5], "mentions": 0}
    for row in related_store.mentioning(svc.db, scope, stem, doc["id"], args.limit):
        entry = related.setdefault(str(row["document_id"]), {"document_id": str(row["document_id"]),
                                                             "filename": row["filename"], "shared_topics": []})
        entry["mentions"] = int(row["mentions"])
    items = sorted(related.values(), key=lambda r: (-len(r["shared_topics"]) - 2 * r.get("mentions", 0),
                                                    r["filename"]))[: args.limit]
    return ToolResult(tool="get_related_documents", status=f"{len(items)} related document(s) to {doc['filename']}",
                      data={"document": doc["filename"], "related": items})



def _related_text(res: ToolResult) -> str:
    lines = [res.render(limit=0)]
    for r in res.data.get("related", []):
        why = ", ".join(r["shared_topics"]) or "—"
        lines.append(f"[{r['document_id']}] {r['filename']} (topics: {why}; mentions: {r.get('mentions', 0)})")
    return "\n".join(lines)


GET_RELATED_DOCUMENTS = ToolSpec(
    name="get_related_documents", args=RelatedArgs, text=_related_text,
    description="Documents related to one document: shared topics, and documents that mention it by name.",
    run=lambda svc, args, scope: get_related_documents_impl(svc, scope, args))


class FindingsArgs(BaseModel):
    node_ids: list[str] = Field(min_length=1, max_length=NODES_CAP,
                               description="node ids of gathered passages")
    question: str = Field(min_length=1, max_length=1000, description="the question the statements bear on")


def verify_consistency_impl(svc: Services, scope: Scope, args: FindingsArgs) -> ToolResult:
    hits = load_hits(svc, scope, args.node_ids)
    if not hits:
        return failed("verify_consistency", "none of the node ids exist")
    terms = [t for t in query_terms(args.question) if not t.isdigit()]
    claims = [c for h in hits for c in claims_in(h, terms)]
    conflicts = find_conflicts(claims)
    status = (f"{len(conflicts)} disagreement(s) among {len(hits)} passages" if conflicts
              else f"{len(hits)} passages agree ({len(claims)} quantities compared)")
    return ToolResult(tool="verify_consistency", status=status, hits=hits, data={
        "claims": len(claims),
        "conflicts": [{"attribute": c.attribute, "unit": c.unit, "description": c.describe(),
                       "claims": [{"value": x.value, "unit": x.unit, "document": x.document, "version": x.version,
                                   "section": x.section, "node_id": x.node_id, "text": x.text} for x in c.claims]}
                      for c in conflicts],
    })



VERIFY_CONSISTENCY = ToolSpec(
    name="verify_consistency", args=FindingsArgs,
    text=lambda res: "\n".join([res.render(limit=0)]
                               + [f"- {c['description']}" for c in res.data.get("conflicts", [])]),
    description="Check whether gathered passages agree on the numbers the question asks about; names which "
                "document (and which version) says what when they do not.",
    run=lambda svc, args, scope: verify_consistency_impl(svc, scope, args))


def summarize_findings_impl(svc: Services, scope: Scope, args: FindingsArgs, max_sentences: int = 5) -> ToolResult:
    hits = load_hits(svc, scope, args.node_ids)
    if not hits:
        return failed("summarize_findings", "none of the node ids exist")
    terms = query_terms(args.question)
    weights = term_weights(svc, terms, Scope(kbs=scope.kbs))  # the terms' idf over the bases' current versions
    picked = pick_sentences(args.question, terms, weights, hits, max_sentences, max_passages=len(hits),
                            cfg=svc.settings.answer)
    lines = [{"text": p.text, "node_id": hits[p.hit_index].node_id, "where": hits[p.hit_index].breadcrumb}
             for p in picked]
    return ToolResult(tool="summarize_findings", status=f"{len(lines)} key statement(s) from {len(hits)} passages",
                      hits=hits, data={"statements": lines})



SUMMARIZE_FINDINGS = ToolSpec(
    name="summarize_findings", args=FindingsArgs,
    text=lambda res: "\n".join([res.render(limit=0)]
                               + [f"- {s['text']} [{s['node_id']}]" for s in res.data.get("statements", [])]),
    description="The key statements of the gathered passages for the question, each with the node it comes from.",
    run=lambda svc, args, scope: summarize_findings_impl(svc, scope, args))


class FinalAnswer(BaseModel):
    """Finish: give the answer (or say the documents do not answer it) and its confidence. Cite the passages
    it relies on in the answer as [node_id]; the answer is checked against them before the user sees it."""

    answer: str = Field(description="the answer in the question's language; cite passages as [node_id]")
    answerable: bool = Field(True, description="false when the documents do not hold the answer")
    confidence: Literal["high", "medium", "low"] = "medium"


FINAL_ANSWER: dict[str, Any] = {"type": "function", "function": {
    "name": "final_answer", "description": " ".join((FinalAnswer.__doc__ or "").split()),
    "parameters": FinalAnswer.model_json_schema()}}
"""The ``final_answer`` call as the model is offered it (OpenAI tool format; ``bind_tools`` takes it as is)."""


