"""Fan-out over documents (seed 001's sub-agents): ``read_document`` runs once per candidate
document through ``Send`` and extracts what that document says; ``synthesize`` merges them.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from dropqa.answering.compose import Composed
from dropqa.answering.extractive import Similarity, pick_sentences
from dropqa.blocking import in_thread
from dropqa.config import AgentSettings, AnswerSettings
from dropqa.graph.nodes.answer import answer, passages_block, sentence_similarity, with_last_link
from dropqa.graph.nodes.common import model_deadline, step
from dropqa.graph.prompts import fill
from dropqa.graph.state import Finding, ReaderState, State, Statement
from dropqa.models.chat import ChatUnavailable, Usage, ainvoke_chat, text_of
from dropqa.retrieval.answerability import refusal_rule
from dropqa.retrieval.fusion import idf_weights
from dropqa.retrieval.hits import Hit
from dropqa.services import Context
from dropqa.text.asked import asks_document_date
from dropqa.text.messages import render
from dropqa.text.sentences import clean_markup

_NOTHING = re.compile(r"(?i)^\s*NOTHING\s*$")
_MARK = re.compile(r"\s*\[\d+\]")


def _offline_statements(reader: ReaderState, hits: list[Hit], cfg: AnswerSettings,
                        similarity: Similarity | None = None) -> list[Statement]:
    terms = list(reader["terms"]) + [b.lower() for b in reader["bridge"]]
    weights = idf_weights({t: 1 for t in terms}, 10)
    for b in reader["bridge"]:
        weights[b.lower()] = weights.get(b.lower(), 1.0) * 2  # the bridge entity is what the reader looks for
    # of a document the question names among several, a statement says something the question asks of it, not
    # only whose it is ("Name: M. Ward"), where one does; a link of a chain may name only its subject. What
    # "A 和 B 分别…" asks of each is one statement: a second one from the same document was nearly always a
    # look-alike (another year's figure, another date), so fewer are quoted (answer.reader_statements_named)
    named = reader["named"]
    picked = pick_sentences(reader["question"], terms, weights, hits, cfg.reader_candidate_sentences,
                            max_passages=len(hits), cfg=cfg, complement=not reader["bridge"], similarity=similarity,
                            require_asked=named, subjects=reader["subjects"], kind_first=True)
    # the question asks each document for a value of a kind (whose pulse was higher, 分别被判处了什么刑期): a
    # statement without one (the admission note beside "Pulse: 90 bpm") says nothing the answer needs, and
    # pick_sentences keeps only those (kind_first) when the document has one
    if reader["bridge"]:  # a statement about this document's part in the chain names the entity
        picked = [p for p in picked if any(b in p.text or b in hits[p.hit_index].breadcrumb
                                           for b in reader["bridge"])]
    return [Statement(text=clean_markup(p.text), node_id=hits[p.hit_index].node_id,
                      where=hits[p.hit_index].where().split(" > ")[-1])
            for p in picked[:cfg.reader_statements_named if named else cfg.reader_statements]]


async def read_document(reader: ReaderState, runtime: Runtime[Context]) -> dict[str, Any]:
    svc = runtime.context.services
    hits = reader["hits"]
    statements: list[Statement] = []
    usage: Usage | None = None
    degraded = reader["degraded"]
    if svc.chat_providers and not degraded:
        prompt = fill("reader", reader["language"], question=reader["question"], document=reader["document"],
                      passages=passages_block(hits, svc.settings.answer))
        try:
            reply, usage = await ainvoke_chat(svc.chat_providers, [HumanMessage(prompt)],
                                              deadline=reader["deadline"])
            text = text_of(reply)
            if not _NOTHING.match(text):
                for line in text.splitlines():
                    nums = [int(n) - 1 for n in re.findall(r"\[(\d+)\]", line) if 0 < int(n) <= len(hits)]
                    if line.strip() and nums:
                        statements.append(Statement(text=_MARK.sub("", line).strip(" -•"),
                                                    node_id=hits[nums[0]].node_id,
                                                    where=hits[nums[0]].section.split(" > ")[-1]))
        except ChatUnavailable:
            degraded = True
    if not statements and (degraded or not svc.chat_providers):
        statements = await in_thread(_offline_statements, reader, hits, svc.settings.answer,
                                     sentence_similarity(svc, reader["question"]))
    # parallel readers write nothing to one-value keys: a reader that fell back offline says so in its finding
    finding = Finding(document=reader["document"], statements=statements, degraded=bool(degraded))
    update: dict[str, Any] = {"findings": [finding], "reasoning_trace": [{
        "step": 0, "type": "reader", "content": render(reader["language"], "reader_summary",
                                                        document=reader["document"], k=len(statements)),
        "tool": "read_document", "arguments": {"document": reader["document"]}}]}
    if usage is not None:
        update["usage"] = usage
    return update


async def synthesize(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Merge the readers' findings into one cited answer (the documents in the order the question names them,
    else in evidence order)."""
    lang = state.language
    pool = state.hits
    index = {h.node_id: i for i, h in enumerate(pool)}
    degraded = any(f.degraded for f in state.findings)
    findings = [f for f in state.findings if f.statements]
    order = {h.document_name: i for i, h in reversed(list(enumerate(pool)))}
    # the documents a question names, in the order it names them ("于某某和元某某": 159's, then 169's): not by a
    # pool ranked on one scale, where near ties turn the answer round from one run to the next
    names = {h.document_id: h.document_name for h in pool}
    asked: dict[str, int] = {}
    for p in state.intent.parts:
        if (d := p.get("document_id")) in names:
            asked.setdefault(names[d], len(asked))
    findings.sort(key=lambda f: (asked.get(f.document, len(asked)), order.get(f.document, len(pool))))
    lines, cites, quoted = [render(lang, "findings_lead")], [], []
    for finding in findings:
        for s in finding.statements:
            i = index.get(s.node_id)
            if i is None:
                continue
            cites.append(i)
            quoted.append((i, s.text))
            where = f"{finding.document} > {s.where}" if s.where else finding.document
            lines.append(render(lang, "multi_item", where=where, text=s.text, n=i + 1))
    if not cites:
        update = await answer(replace(state, degraded=state.degraded or degraded), runtime)
    else:
        composed, linked = Composed(lines, sorted(set(cites)), quoted=quoted), []
        if degraded or not runtime.context.services.chat_providers:  # offline statements: follow the chain
            composed, linked = await in_thread(with_last_link, state, runtime.context.services, composed,
                                               multi=True)
        update = {"answer": composed.text, "answerable": True, "citations": composed.citations,
                  "inferred": bool(linked), "summary_section": [],
                  "reasoning_trace": [step(state, "answer", render(lang, "synthesis_summary", n=len(findings))),
                                      *linked]}
    return {**update, "degraded": True} if degraded else update


def readers_for(state: State, cfg: AnswerSettings, agent: AgentSettings) -> list[ReaderState]:
    """One reader per document among the best passages (only when the question gathers documents). None when a
    check refuses the question (``retrieval.answerability.refusal_rule``): ``answer`` says what is not written,
    and no reader quotes look-alikes of it — also after the agent loop, which a refusal starts."""
    intent = state.intent
    if not intent.aggregate or refusal_rule(state.quality.asked, intent.kind, cfg.absent_attribute_share,
                                            cfg.nowhere_share, cfg.apart_share):
        return []
    hits = state.hits
    bridge = state.bridge
    part_docs = {p["document_id"] for p in intent.parts if p.get("document_id")}
    if len(part_docs) >= 2:  # the documents the question names, one reader each
        candidates = [h for h in hits if h.document_id in part_docs][:cfg.reader_passages_named]
        if asks_document_date(state.search_text):  # each judgement's date is where it signs off, however it ranks
            candidates += [h for h in hits if h.document_id in part_docs and "closing" in h.channels
                           and h not in candidates]
    elif bridge:  # multi-hop: every passage that names the bridge entity, wherever it ranks
        candidates = [h for h in hits if any(b in h.content or b in h.breadcrumb for b in bridge)
                      ][:cfg.reader_passages_bridge]
    else:
        floor = cfg.reader_relevance_share * (hits[0].relevance if hits else 0.0)
        candidates = [h for h in hits[:cfg.reader_pool] if h.relevance >= floor]
        if intent.named:  # the question names its subject: other documents' look-alikes are not read
            about = intent.about or intent.named
            candidates = [h for h in candidates if h.document_id in about]
    by_doc: dict[str, list[Hit]] = {}
    for h in candidates:
        by_doc.setdefault(h.document_name, []).append(h)
    if len(by_doc) < 2:
        return []
    readers = list(by_doc.items())[:cfg.max_readers]
    # the words naming the question's subjects (the documents it names, else the best passage's): each reader
    # finds the role the question gives them ("the defendants Q. Ruiz and M. Ward") from all of them
    subjects = sorted(state.quality.asked.subject)
    return [ReaderState(question=state.search_text, language=state.language, terms=list(state.terms),
                        bridge=list(bridge), document=doc, hits=doc_hits, degraded=state.degraded,
                        deadline=model_deadline(state.started_at, agent), subjects=subjects,
                        named=len(part_docs) >= 2)
            for doc, doc_hits in readers]
