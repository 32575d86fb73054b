"""``retrieve``: standard RAG — hybrid search over the visible version of every document.

Also starts the turn: resets per-question state (a thread's checkpoint keeps the last
turn), completes a follow-up from the thread's history, classifies the question's
intent for the planner, rewrites the query into several when a chat model exists
(seed 004 §6), and expands the window around the best passages (seed 002).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from dropqa.answering import followup
from dropqa.answering.chain import asked_of_link, describes_link, link_kinds, link_searches
from dropqa.answering.hops import linked_documents, needs_second_hop, second_hop_queries
from dropqa.answering.intent import Intent, classify
from dropqa.answering.parts import (
    Part,
    decompose,
    mentions,
    name_terms,
    named_documents,
    sibling_documents,
    subject_count,
    subject_spans,
    writes_a_name,
)
from dropqa.blocking import in_thread
from dropqa.graph.nodes.common import has_model, in_turns, merge_hits, model_deadline
from dropqa.graph.prompts import fill
from dropqa.graph.state import RESET, Quality, State, Turn
from dropqa.models.chat import ChatUnavailable, UnreadableReply, Usage, ainvoke_structured
from dropqa.retrieval.answerability import Asked
from dropqa.retrieval.fusion import rrf
from dropqa.retrieval.hits import Hit
from dropqa.retrieval.names import document_names
from dropqa.retrieval.search import (
    RetrievalResult,
    held_in,
    hybrid_search,
    score_hits,
    unwritten_names,
    written_apart,
    written_nowhere,
)
from dropqa.services import Context, Services
from dropqa.store import nodes as node_store
from dropqa.store import search as store_search
from dropqa.store.scope import Scope
from dropqa.text.asked import (
    VALUE_KINDS,
    AnswerKind,
    ask_weights,
    asked_text,
    asks_document_date,
    asks_for_summary,
    capitalised_words,
    expected_kind,
    folded,
    glossed_words,
    held_share,
    holds_kind,
    people_named,
    title_case_names,
)
from dropqa.text.entities import years_in
from dropqa.text.lang import detect_language
from dropqa.text.messages import render
from dropqa.text.segment import compound_parts, english_function_words, has_han, holds, names_a_thing, proper_words
from dropqa.text.sentences import ends_mid_sentence, split_sentences
from dropqa.text.subjects import is_stated_by_value, withheld_names


def expand_window(svc: Services, result: RetrievalResult, best: list[Hit]) -> list[Hit]:
    """Neighbours of the ``best`` passages when a passage stops mid-sentence (or on a label whose value
    follows: "Chief Complaint:") or is a table/figure (its caption or explanation sits next to it), scored
    like any other hit."""
    extra: list[Hit] = []
    seen = {h.node_id for h in [*result.hits, *best]}
    for hit in best:
        cut = ends_mid_sentence(hit.content)
        chat = bool((hit.metadata or {}).get("speaker"))  # a chat message: the replies that follow it
        if not (cut or chat or hit.node_type in ("table", "figure", "image")):
            continue
        after = 3 if chat else 2
        rows = node_store.neighbours(svc.db, result.scope, uuid.UUID(hit.document_id), hit.version, hit.position, 0,
                                     after)
        for row in rows:
            n = Hit.from_row(row, "window")
            if n.node_id in seen or n.section.split(" > ")[:1] != hit.section.split(" > ")[:1]:
                continue
            n.metadata["window_of"] = hit.node_id
            seen.add(n.node_id)
            extra.append(n)
    if extra:
        score_hits(svc, result.scope, extra, result.terms, result.weights, result.vector, result.translations)
        for n in extra:
            parent = next(h for h in best if h.node_id == n.metadata["window_of"])
            n.relevance = round(max(n.relevance, parent.relevance * svc.settings.answer.window_parent_share), 4)
    return extra


def part_heads(svc: Services, parts: list[Part], scope: Scope, result: RetrievalResult, k: int,
               per_part: int, subject_terms: dict[str, set[str]] | None = None) -> list[Hit]:
    """Search each part (inside its document when it names one) for what the question asks of it — the
    question without the words that name the part's document (``subject_terms``: document id → terms),
    which hold for every passage of it —, scored on the whole question's idf with those words counting
    little; the parts' best passages, taking turns (A1, B1, A2, B2, …)."""
    found: list[list[Hit]] = []
    share = svc.settings.answer.subject_weight
    for part in parts:
        part_scope = replace(scope, document_ids=(uuid.UUID(part.document_id),)) if part.document_id else scope
        naming = (subject_terms or {}).get(part.document_id or "", set())
        weights = {t: w * share if t in naming else w for t, w in result.weights.items()}
        query = asked_text(part.query, naming) if part.document_id else part.query
        # all the candidates the search scored (its first ``per_part`` are the same): a value of the kind asked
        # may rank below them
        found_here = hybrid_search(svc, query, part_scope, k=max(k, svc.settings.retrieval.candidate_k),
                                   weights=weights).hits
        hits = found_here[:per_part]
        if part.document_id and asks_document_date(part.query):
            hits += signing_off(svc, result, part.document_id, {h.node_id for h in hits})
        elif part.document_id and (kind := expected_kind(part.query)) in VALUE_KINDS and not any(
                holds_kind(h.content, kind, part.query) for h in hits):
            # "谈某和倪某某的判刑时间谁更长": the document's best passage giving a length of time ("判处有期徒刑四年",
            # which writes no 判刑) is read too, however the words rank it
            giving = [h for h in found_here[per_part:] if holds_kind(h.content, kind, part.query)]
            asked = [t for t in result.weights if t not in naming]
            hits += sorted(giving, key=lambda h: -gives_for(h.content, kind, part.query, asked))[:1]
        for h in hits:
            h.metadata["part"] = part.label
        found.append(hits)
    first: dict[str, Hit] = {}  # a passage two parts found leads once, as the first part's
    for h in in_turns(found):
        first.setdefault(h.node_id, h)
    heads = list(first.values())
    rescore(svc, heads, result)
    return heads


def gives_for(text: str, kind: AnswerKind, question: str, asked: list[str]) -> int:
    """How much of what is asked a sentence giving a value of the asked kind writes (its best such sentence):
    the asked words it holds, and in Chinese their characters — "判刑时间" is answered by "判处有期徒刑四年"
    (判, 刑), not by an appeal window "上诉期限为十天，自接到判决书的第二日起算" (判), though both give a
    length of time."""
    best = 0
    for sentence in split_sentences(text):
        if not holds_kind(sentence, kind, question):
            continue
        low = sentence.lower()
        words = sum(1 for t in asked if t in low)
        chars = len({c for t in asked if has_han(t) for c in t} & set(sentence))
        best = max(best, words + chars)
    return best


def signing_off(svc: Services, result: RetrievalResult, document_id: str, seen: set[str]) -> list[Hit]:
    """A document's closing passages and its opening ones, scored like any hit, for a question asking when a
    judgement was given: it writes that date as it signs off ("二〇二二年十月二十五日") or under its court's name as it
    opens ("Judgment Dated: 14th March 2022"), in a passage that holds no word of the question."""
    doc, count = uuid.UUID(document_id), svc.settings.answer.closing_passages
    closing, opening = node_store.ends(svc.db, result.scope, doc, count)
    rows = [*closing, *opening]
    found = list({h.node_id: h for h in (Hit.from_row(row, "closing") for row in rows)}.values())
    hits = [h for h in found if h.node_id not in seen]
    if hits:
        score_hits(svc, result.scope, hits, result.terms, result.weights, result.vector, result.translations)
    return hits


def hop_heads(svc: Services, hops: list[Part], scope: Scope, result: RetrievalResult, k: int) -> list[Hit]:
    """The best passage of each second-hop search (``answering.hops``: the question with a bridge name,
    or the question inside a document the best passage names), scored on the question's idf."""
    heads: list[Hit] = []
    for hop in hops:
        hop_scope = replace(scope, document_ids=(uuid.UUID(hop.document_id),)) if hop.document_id else scope
        hits = hybrid_search(svc, hop.query, hop_scope, k=k, weights=result.weights).hits
        best = next((h for h in hits if h.node_id not in {x.node_id for x in result.hits[:2] + heads}), None)
        if best is not None:
            best.metadata["hop"] = hop.label
            heads.append(best)
    rescore(svc, heads, result)
    return heads


def rescore(svc: Services, hits: list[Hit], result: RetrievalResult) -> None:
    """Score passages another search found against the question itself (its terms, idf, vector and
    translations), so every passage in the pool is ranked on one scale."""
    for h in hits:
        h.metadata.pop("semantic", None)
        h.metadata.pop("translated_coverage", None)
    score_hits(svc, result.scope, hits, result.terms, result.weights, result.vector, result.translations)


class Rewrites(BaseModel):
    """The model's reply to the rewrite prompt (``with_structured_output``)."""

    queries: list[str] = Field(description="up to three search queries, one of them in the other language")


async def rewritten_queries(svc: Services, question: str, language: str, deadline: float | None = None,
                            ) -> tuple[list[str], Usage | None, ChatUnavailable | None]:
    """Up to three rewritten queries, the tokens they cost, and the failure when no model answered (every
    provider failed, or the question's model time ran out: the run goes on offline); an unreadable reply is
    no such failure (the model answered; the question is searched as asked)."""
    try:
        prompt = HumanMessage(fill("rewrite", language, question=question))
        reply, usage = await ainvoke_structured(svc.chat_providers, [prompt], Rewrites, deadline=deadline)
    except UnreadableReply as exc:
        return [], exc.usage, None  # an unreadable reply still cost its tokens
    except ChatUnavailable as exc:
        return [], exc.usage, exc
    queries = [q.strip(" -•*\t0123456789.、") for q in reply.queries]
    return [q for q in queries if q and q != question][:3], usage, None


def fuse_rewrites(svc: Services, result: RetrievalResult, rewrites: list[str], scope: Scope, k: int) -> None:
    """Search each rewritten query too; the fused pool (RRF), scored against the question, each passage
    keeping the best relevance any of the searches gave it, replaces ``result.hits``."""
    extra = [hybrid_search(svc, q, scope, k=k) for q in rewrites]
    fused = rrf([result.hits, *[r.hits for r in extra]], k=svc.settings.retrieval.rrf_k)
    score_hits(svc, result.scope, fused, result.terms, result.weights, result.vector)
    best = {h.node_id: max([h.relevance] + [x.relevance for r in extra for x in r.hits
                                            if x.node_id == h.node_id]) for h in fused}
    for h in fused:
        h.relevance = best[h.node_id]
    result.hits = fused[: k]


def linked_to(hit: Hit, documents: set[str], subject: set[str], own_text: str) -> bool:
    """Where a fact one hop from the subject may be written: the subject's own documents, a passage that names
    the subject (every word of its name), or one of a document the subject's passages (``own_text``, lower-cased)
    name by its title — "Knott is a mountain in the … Lake District": the Lake District's page. Not any passage
    that ranks among the best: in a collection of many articles some other actor's page always writes "drama
    school"."""
    if hit.document_id in documents:
        return True
    low = f"{hit.breadcrumb}\n{hit.content}".lower()
    if subject and all(holds(low, t) for t in subject):
        return True
    title = hit.breadcrumb.split(" > ")[0].strip().lower()
    return len(title) >= 3 and title in own_text


def asked_of(svc: Services, result: RetrievalResult, pool: list[Hit], named: dict[str, set[str]],
             scope: Scope, query: str = "") -> Asked:
    """What the question asks of which documents: the ones it names (by the words that name them), else the
    best passage's (by the words of its names the question uses); and how much of it they hold anywhere.
    What is asked is ``absent`` when neither the subject's documents write it nor the best passages (where a
    fact one hop away would be), and ``unlinked`` when neither they nor the best passages linked to them
    (``linked_to``) do — but for passages of documents of the subject's kind about another subject
    (``parts.sibling_documents``): another company's report writing 研发投入 does not answer for this one.
    The people a question asks about by a withheld name and role (罗某的辩护人彭某某) are its subject too, and what
    a record states by value alone (职业) is never absent for want of the word. A year the question names that
    neither the subject's documents nor the best passages write makes all of it absent. A summary asks for
    nothing that can be absent (or written nowhere) word by word, nor does a question that describes what it asks about
    (``answering.chain``): it asks that of the entity the subject's documents name."""
    if named:
        documents = set(named)
        subject = set().union(*named.values())
    elif pool:
        documents = {pool[0].document_id}
        subject = {t for t in result.terms if t in pool[0].names()}
        if result.weights and not ask_weights(result.weights, subject):
            # every word is one of the subjects its text names ("收购长沙捷运冷链物流有限公司" of a logistics report):
            # its title says which document is meant, the rest is what is asked
            title = f"{pool[0].document_name} {pool[0].breadcrumb.split(' > ')[0]}".lower()
            subject = {t for t in result.terms if t in title}
    else:
        return Asked()
    subject |= people_named(query, result.terms)  # 罗某's defender 彭某某: who is asked about, not what
    own_text = "\n".join(h.content.lower() for h in pool if h.document_id in documents)
    if named:  # "the hosting agreement with Northbeam": a name its document writes says which one, not what is asked
        subject |= {t for t in title_case_names(query) & set(result.terms) if holds(own_text, t)}
        subject |= glossed_words(query) & set(result.terms)  # "Jiamu Software (嘉沐软件)": the name, in English
    ask = ask_weights(result.weights, subject)
    own_scope = replace(scope, document_ids=tuple(uuid.UUID(d) for d in sorted(documents)))
    held, missing = held_in(svc, ask, result.translations, own_scope)
    # an English function word ("still", "isn" of "still isn't mitigated") is never what the documents lack; it
    # still weighs in the shares, as it did when they were fitted
    function = english_function_words()
    missing = [t for t in missing if t not in function]
    total = sum(ask.values()) or 1.0
    siblings = siblings_in(query, named, pool) if named else set()
    asked_in_han = sum(w for t, w in ask.items() if has_han(t)) * 2 > total
    # a passage in the other language holds what is asked only by a dictionary's guess (负债 → "liability" of a
    # contract's "8. Liability" for 恒屿冷链's 资产负债率): a fact one hop away is sought in the question's language
    best = [h for h in pool[: svc.settings.retrieval.top_k]
            if h.document_id not in siblings and has_han(h.content) == asked_in_han]
    text = "\n".join(f"{h.breadcrumb}\n{h.content}" for h in best)
    near = "\n".join(f"{h.breadcrumb}\n{h.content}" for h in best if linked_to(h, documents, subject, own_text))

    def unwritten_in(passages: str) -> list[str]:
        # a summary asks nothing word by word; a question describing what it asks about ("the country Signmark is
        # from") asks it of the entity the subject's documents name, not of the subject
        return [] if asks_for_summary(query) or describes_link(query) else [
            t for t in missing if held_share(passages, {t: 1.0}, result.translations) == 0.0
            and not any(part in passages for part in compound_parts(t)) and not is_stated_by_value(t)]

    absent = unwritten_in(text)
    unlinked = unwritten_in(near)
    # a year the subject's documents never write, nor the passages linked to them: they do not cover that time at
    # all ("丰穗农业2018年的净利润" of a report on 2021; Indianola's 2000 census of a page giving the 2010 one) —
    # whatever else of the question they hold
    asked_years = list(dict.fromkeys(years_in(query)))
    years = asked_years if named else []
    written = store_search.written_terms(svc.db, years, own_scope) if years else set()
    unwritten = tuple(y for y in years if y not in written and y not in near)
    own = [h.content for h in pool if h.document_id in documents][:5]
    kinds = link_kinds(query)  # "the city where X died": a kind of thing, which no document needs to write
    # a summary names the kinds of thing to gather ("the legal proceedings and regulatory matters"), which a
    # report tells as lawsuits and fines without those words: nothing it asks is missing for want of a word
    nowhere = [] if asks_for_summary(query) else sorted(
        (t for t in written_nowhere(svc, list(ask), result.unseen, scope) if t not in kinds), key=lambda t: -ask[t])
    # a phrase the question writes as one (研发投入) that the subject's documents write only apart: of a subject
    # the question names, asked for a figure — a number or an amount is given under its measure's name, where
    # what a thing is called or when it happened is told in other words as often ("成书时间" of "成书于…")
    apart: list[str] = []
    if own and asked_in_han != (sum(map(has_han, own)) * 2 > len(own)):
        absent = unlinked = []  # asked in one language of a document in the other: a dictionary's few words cannot tell
        nowhere = []
    elif named and expected_kind(query) in ("number", "money", "share") and not describes_link(query):
        unseen = set(result.unseen)
        phrased = {t: w for t, w in ask.items() if t not in unseen or names_a_thing(t)}  # 是从: a wording, no word
        apart = written_apart(svc, query, phrased, result.translations, own_scope)
    # a name the question gives what it asks about that no passage writes ("the annual report of Halvorsen
    # Electronics Corp." of a collection without it): the documents are not about it, however much else of the
    # question they hold — all of what it asks is written nowhere
    names = capitalised_words(query)
    unnamed = [] if named else [t for t in nowhere if t in names]
    if not named and asked_years:
        # a year no passage of the collection writes ("水务集团2022年全年供水总量" of reports on 2023 and 2024): the
        # documents do not cover that time, whatever else of the question they hold
        anywhere = store_search.written_terms(svc.db, asked_years, scope)
        unnamed += [y for y in asked_years if y not in anywhere]
    if not named and has_han(query) and pool and has_han(pool[0].content):
        # Chinese has no capitals: a name jieba tags in the question (巴尔喀什湖) that no passage writes, though some
        # write its pieces (喀什) — which keeps it out of ``nowhere`` — is a subject the documents are not about
        proper = proper_words(query)
        unnamed += [t for t in result.unseen if len(t) >= 3 and t in proper and t not in unnamed]
    elif not has_han(query) and pool and not has_han(pool[0].content):
        # a name of several words whose words the collection writes only apart ("Arctic Monkeys" of a collection
        # writing "Arctic Ocean" and "12 Monkeys"): no passage is about it — nor is a document the question names
        # by some of its words ("12 Monkeys" by "Monkeys"), unless those words are all the name's
        naming_words = [{folded(t) for t in terms} for terms in named.values()]
        unnamed += [n.lower() for n in unwritten_names(svc, query, scope) if n.lower() not in unnamed
                    and not any(set(folded(n).split()) <= words for words in naming_words)]
    subjects = subject_count(named)
    return Asked(subject=frozenset(subject), documents=frozenset(documents), named=bool(named), subjects=subjects,
                 in_subject=round(held, 4), gap=round(ask[missing[0]] / total, 4) if missing else 0.0,
                 missing=(*unwritten, *missing),
                 absent=1.0 if unwritten else round(sum(ask[t] for t in absent) / total, 4),
                 unlinked=1.0 if unwritten else round(sum(ask[t] for t in unlinked) / total, 4),
                 nowhere=1.0 if unnamed else round(sum(ask[t] for t in nowhere) / total, 4),
                 nowhere_terms=tuple(unnamed + [t for t in nowhere if t not in unnamed]),
                 apart=round(sum(ask[t] for t in apart) / total, 4), apart_terms=tuple(apart),
                 translations=result.translations)


def widen(svc: Services, query: str, intent: Intent, scope: Scope, result: RetrievalResult, k: int,
          ) -> tuple[list[Hit], list[Part], list[Part], Asked]:
    """The evidence pool: the search's passages, each named part's (or each second hop's) best ones
    leading, taking turns, and the window around the best. Returns ``(pool, parts, hops)``."""
    titles = document_names(svc, scope)
    knobs = svc.settings.answer
    named = named_documents(query, titles, knobs.part_name_share, result.terms)
    intent.named = [str(row["document_id"]) for row, _ in named]
    naming = {str(row["document_id"]): name_terms(query, row, result.terms) for row, _ in named}
    parts = decompose(query, titles, knobs.part_name_share, knobs.max_parts, result.terms)
    heads: list[Hit] = []
    hops: list[Part] = []
    hop_ask = asked_of_link(query, result.weights)  # what a hop must find: not the description's own words
    if parts:
        intent.parts = [p.as_dict() for p in parts]
        intent.aggregate = True
        heads = part_heads(svc, parts, scope, result, k, knobs.part_heads, subject_terms=naming)
    elif len(named) == 1:  # one subject: what the question asks of it, searched inside its document
        row = named[0][0]
        subject = Part(label=PurePath(str(row["filename"])).stem, query=query, document_id=str(row["document_id"]))
        heads = part_heads(svc, [subject], scope, result, k, knobs.subject_heads, subject_terms=naming)
        if heads and needs_second_hop(heads[0], hop_ask, knobs.second_hop_coverage):
            # the subject's document does not say what is asked, but names a document that may ("the district
            # Knott is part of" → the Lake District's page): that document is searched, and may be quoted
            hops = linked_documents(query, heads[0], titles, knobs.part_name_share, knobs.hop_documents)
            heads += hop_heads(svc, hops, scope, result, k)
    elif result.hits and needs_second_hop(result.hits[0], hop_ask, knobs.second_hop_coverage):
        hops = [Part(label=q, query=q) for q in second_hop_queries(query, result.hits[0], hop_ask,
                                                                   knobs.second_hop_coverage, knobs.hop_names)]
        hops += linked_documents(query, result.hits[0], titles, knobs.part_name_share, knobs.hop_documents)
        heads = result.hits[:2] + hop_heads(svc, hops, scope, result, k)
    if not parts:  # "the country Signmark is from": the entity Signmark's passage names, searched for what is asked
        links = [Part(label=q, query=q) for q in link_searches(query, heads or result.hits[:2], result.weights,
                                                               knobs.second_hop_coverage, knobs.hop_names)]
        if links:
            heads = (heads or result.hits[:2]) + hop_heads(svc, links, scope, result, k)
            hops = hops + links
    best = list({h.node_id: h for h in [*heads[:3], *result.hits[:3]]}.values())
    pool, _ = merge_hits(result.hits + heads, expand_window(svc, result, best))
    if heads:  # each part's (or hop's) best passages lead the pool, taking turns, so each is read and cited
        by_id = {h.node_id: h for h in pool}
        lead = list({h.node_id: by_id[h.node_id] for h in heads}.values())
        pool = lead + [h for h in pool if h not in lead]
    intent.linked = [h.document_id for h in hops if intent.named and h.document_id]
    intent.about = list(intent.named)
    for doc, words in mentioning(query, naming, pool).items():  # other documents that write the subject out
        intent.about.append(doc)
        naming[doc] = words
    return pool, parts, hops, asked_of(svc, result, pool, naming, scope, query)


def siblings_in(query: str, named: dict[str, set[str]], pool: list[Hit]) -> set[str]:
    """Documents of ``pool`` of the same kind as a named subject's, about another subject
    (``parts.sibling_documents``)."""
    names: dict[str, set[str]] = {}
    for h in pool:
        names.setdefault(h.document_id, set()).update(
            [PurePath(h.document_name).stem, h.breadcrumb.split(" > ")[0], *h.subjects])
    # a document whose own name the question writes ("… of Quillstone Data Systems Inc. and Fenwick Cloud Software
    # Corp.", where only Fenwick's report was told apart from an analyst brief) is asked about, not a sibling
    others = {doc: ns for doc, ns in names.items() if doc not in named and not writes_a_name(query, ns)}
    out: set[str] = set()
    for doc, words in named.items():
        out |= sibling_documents(subject_spans(query, words), names.get(doc, set()), others)
    return out


def mentioning(query: str, naming: dict[str, set[str]], pool: list[Hit]) -> dict[str, set[str]]:
    """Documents of ``pool`` not named by the question whose passages write one of its subjects out as the
    question does (the minutes' "云栖数据平台3.0的发布日期定为…" for a question about 云栖数据平台3.0, named
    by the platform's manual): they are about it too, and the answer may come from them. Another project's
    passage ("Falcon-04") does not write "Project Falcon-03" and stays out, nor does another hospital's record
    at "流水街" write "流水市人民医院". Nor does a record of the same hospital about another patient: when the
    question names people by a withheld name (苏某某), a document whose heading names others (俞某某) but none of
    them is another person's."""
    out: dict[str, set[str]] = {}
    people = withheld_names(query)
    for words in naming.values():
        spans = subject_spans(query, words, whole=True)
        for h in pool:
            if h.document_id in naming or not mentions(f"{h.breadcrumb} {h.content}", spans, query):
                continue
            theirs = withheld_names(f"{h.breadcrumb} {h.names()}") if people else set()
            if theirs and not theirs & people:
                continue
            out.setdefault(h.document_id, set()).update(words)
    return out


async def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    started_at = time.time()
    svc = await in_thread(lambda: runtime.context.services)  # Studio's context opens them on first use
    question = state.question.strip()
    language = svc.settings.language if svc.settings.language != "auto" else detect_language(question)
    query = followup.complete(question, state.history)
    # A follow-up's kind comes from its own wording ("那它的预算呢？" is a fact question even when
    # the question it continues asked for a person); its search text carries the previous subject.
    intent = classify(question if query != question else query, state.version)
    scope = runtime.context.scope(intent.version, state.topic_filter)
    k = runtime.context.top_k or svc.settings.retrieval.pool_k
    # The database and embedding work runs in a worker thread; the chat model is awaited.
    result = await in_thread(hybrid_search, svc, query, scope, k=k, nearest=True)
    usage: Usage | None = None
    rewrites: list[str] = []
    failed: ChatUnavailable | None = None
    if has_model(svc, False):  # a new question: the last one's failure does not carry over
        rewrites, usage, failed = await rewritten_queries(svc, query, language,
                                                          model_deadline(started_at, svc.settings.agent))
        if rewrites:
            await in_thread(fuse_rewrites, svc, result, rewrites, scope, k)
    pool, parts, hops, asked = await in_thread(widen, svc, query, intent, scope, result, k)
    key = "assessment_agent" if intent.needs_loop else "assessment_direct"
    summary = render(language, "retrieval_summary", n=len(result.hits), top=f"{result.top_relevance:.2f}",
                     terms=", ".join(result.terms) or "—")
    if parts:
        summary += " " + render(language, "retrieval_parts", n=len(parts), parts="; ".join(p.label for p in parts))
    elif hops:
        summary += " " + render(language, "retrieval_hops", hops="; ".join(h.label for h in hops))
    return {
        **Turn.reset(),  # a new question: nothing of the thread's last one carries over
        "language": language,
        "query": query,
        "intent": intent,
        "version": intent.version,
        "terms": result.terms,
        "hits": pool,
        "nearest": result.nearest,
        "started_at": started_at,
        "degraded": failed is not None,
        "usage": (usage or Usage()).model_copy(update={"replace": True}),
        "quality": Quality(weights=result.weights, unseen=result.unseen, translations=result.translations,
                           asked=asked),
        "reasoning_trace": [
            RESET,
            {"step": 0, "type": "initial_assessment", "content": render(language, key, kind=intent.kind)},
            {"step": 1, "type": "retrieval", "content": summary, "tool": "hybrid_search",
             "arguments": {"query": query, "version": intent.version, "rewrites": rewrites,
                           "parts": [p.label for p in parts], "hops": [h.label for h in hops]},
             "result_summary": summary},
            *([{"step": 1, "type": "thought", "content": render(language, "degraded", error=str(failed)[:300])}]
              if failed is not None else []),
        ],
    }
