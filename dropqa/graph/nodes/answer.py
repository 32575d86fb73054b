"""``answer``: write the answer from the evidence pool — with the chat model when one answers,
else offline by kind of question (answering.compose). ``abstain`` when the documents do not hold it.

The model's answer cites passages as ``[n]`` (the numbered passages it was shown) or
``[node_id]`` (from ``final_answer``); both are mapped onto the evidence pool so
``verify`` can check every citation against the passage it points at.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from dropqa.answering import compose
from dropqa.answering.chain import describes_link, last_link, subject_lines
from dropqa.answering.extractive import Similarity
from dropqa.answering.parts import subject_spans
from dropqa.answering.sections import asked_section
from dropqa.answering.subject import describes_by_clause, off_subject
from dropqa.blocking import in_thread
from dropqa.config import AnswerSettings
from dropqa.graph.nodes.common import decide_answerable, has_model, last_ai, model_deadline, step
from dropqa.graph.prompts import fill
from dropqa.graph.state import State, TraceStep
from dropqa.models.chat import ChatUnavailable, Usage, ainvoke_chat, text_of
from dropqa.retrieval.answerability import Asked, Decision, attribute_unlinked, quote_holds, refusal_rule
from dropqa.retrieval.fusion import calibrate_similarity
from dropqa.retrieval.hits import Hit
from dropqa.services import Context, Services
from dropqa.text.asked import (
    as_written,
    asks_for_summary,
    gate_terms,
    lacks_required_kind,
    missing_terms,
    only_repeats,
    open_day,
    quoted,
    subject_naming,
    title_case_names,
)
from dropqa.text.messages import render
from dropqa.text.segment import english_function_words, names_a_thing
from dropqa.text.sentences import clean_markup

_NODE_REF = re.compile(r"\[([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\]")
_NUM_REF = re.compile(r"\[(\d+)\]")


def passages_block(hits: list[Hit], cfg: AnswerSettings) -> str:
    """The numbered passages a prompt shows the model (``answer.model_passages``, each cut at
    ``answer.model_passage_chars``)."""
    limit, chars = cfg.model_passages, cfg.model_passage_chars
    return "\n\n".join(f"[{i + 1}] {h.breadcrumb}{f' (p.{h.page})' if h.page else ''}\n{h.content[:chars]}"
                       for i, h in enumerate(hits[:limit]))


def cited_indexes(text: str, pool: list[Hit]) -> tuple[str, list[int]]:
    """Map ``[node_id]`` markers to ``[n]`` and collect the pool indexes cited."""
    def node_ref(m: re.Match[str]) -> str:
        i = next((k for k, h in enumerate(pool) if h.node_id == m.group(1)), None)
        return f"[{i + 1}]" if i is not None else ""

    text = _NODE_REF.sub(node_ref, text)
    cites = sorted({int(n) - 1 for n in _NUM_REF.findall(text) if 0 < int(n) <= len(pool)})
    return text, cites


def _place(hit: Hit, lang: str) -> str:
    where = f"{hit.document_name} > {hit.where()}"
    return f"「{where}」" if lang == "zh" else f"'{where}'"


def abstain(state: State, decision: Decision | None = None, numbered: list[str] | None = None) -> dict[str, Any]:
    """The "not in the documents" answer, naming the closest passages — and, when the question names its
    subject and the subject's documents say nothing of what it asks, saying so ("the documents describe
    Kestrel Payments Gateway but do not give RPO"); ``decision`` is the answerability decision that withheld
    the answer (default: quality_check's). A question whose asked words no passage writes at all is told which
    ("the documents do not mention “overseas”"), and one whose numbered name (``numbered``: "621号") the
    passages answering it never write, that they are about another of the series."""
    lang = state.language
    asked = state.quality.asked
    hits = [h for h in state.hits if not asked.named or h.document_id in asked.documents] or state.hits
    closest = ("、" if lang == "zh" else ", ").join(_place(h, lang) for h in hits[:2])
    unseen = set(state.quality.unseen)  # a fragment of the question's wording no passage has ("是从") is no word
    naming = subject_naming(state.search_text, asked.subject)  # "NBA球员" of "NBA球员埃里克·戈登": not what is asked
    missing = [t for t in missing_terms(" ".join(f"{h.breadcrumb} {h.content}" for h in hits[:8]),
                                        asked.weights(state.quality.weights), asked.translations)
               if (t not in unseen or names_a_thing(t)) and t not in naming and t not in english_function_words()]
    missing = [*(t for t in asked.missing if t.isdigit()), *missing][:3]  # a year they never write comes first
    decision = state.quality.decision if decision is None else decision
    if decision is not None and decision.rule == "attribute_apart":  # its words written apart only: the phrase
        missing = [*asked.apart_terms]  # (研发投入, as the question writes it) is what they lack
    quote = "「{}」" if lang == "zh" else "“{}”"
    sep = "、" if lang == "zh" else ", "
    if hits and numbered:
        text = render(lang, "no_answer_numbered", closest=closest,
                      missing=sep.join(quote.format(w) for w in numbered))
    elif hits and asked.named and missing:
        text = render(lang, "no_answer_attribute", subject=subject_label(hits[0], asked.subject, lang),
                      missing=sep.join(quote.format(w) for w in as_written(state.question, missing)), closest=closest)
    elif hits and asked.nowhere_terms:  # no passage of the collection writes what is asked: say that
        text = render(lang, "no_answer_nowhere", closest=closest,
                      missing=sep.join(quote.format(w) for w in as_written(state.question, asked.nowhere_terms[:3])))
    elif hits:
        text = render(lang, "no_answer", closest=closest)
    else:
        text = render(lang, "no_answer_empty")
    p = decision.probability if decision is not None else 0.0
    return {"answer": text, "answerable": False, "citations": [], "summary_section": [],
            "reasoning_trace": [step(state, "answer", render(lang, "insufficient", relevance=f"{p:.2f}"))]}


async def _model_answer(svc: Any, state: State, pool: list[Hit]) -> dict[str, Any] | None:
    """The model's answer (from its final_answer call, else from the answer prompt); None offline."""
    lang = state.language
    message = last_ai(state)
    proposed = next((c for c in (message.tool_calls if message else []) if c["name"] == "final_answer"), None)
    usage: Usage | None = None
    if proposed:
        args = proposed["args"]
        if not args.get("answerable", True):
            return {**abstain(state), "confidence": args.get("confidence") or "medium"}  # type: ignore[arg-type]
        text = str(args.get("answer") or "")
    else:
        prompt = fill("answer", lang, question=state.question, passages=passages_block(pool, svc.settings.answer))
        reply, usage = await ainvoke_chat(svc.chat_providers, [HumanMessage(prompt)],
                                          deadline=model_deadline(state.started_at, svc.settings.agent))
        text = text_of(reply)
    text, cites = cited_indexes(text, pool)
    if not text.strip():
        return {**abstain(state), "usage": usage} if usage is not None else abstain(state)
    # A reply that cites nothing is not dropped here: verify attributes each of its sentences to a passage
    # that supports it, drops the rest, and answers offline when nothing is left.
    update = {"answer": text, "answerable": True, "citations": cites, "model_wrote": True, "summary_section": [],
              "reasoning_trace": [step(state, "answer", render(lang, "answer_summary", n=len(pool), k=len(cites)))]}
    if usage is not None:
        update["usage"] = usage
    return update


async def answer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """The model's answer (awaited), or the offline one composed from the passages (in a worker thread)."""
    svc = runtime.context.services
    lang = state.language
    pool = state.hits
    knobs = svc.settings.answer
    if refusal_rule(state.quality.asked, state.intent.kind, knobs.absent_attribute_share, knobs.nowhere_share,
                    knobs.apart_share):
        return abstain(state)  # what is asked is written nowhere: no model may answer it from look-alikes
    if has_model(svc, state.degraded) and pool:
        try:
            result = await _model_answer(svc, state, pool)
            if result is not None:
                return result
        except ChatUnavailable as exc:
            degraded = {"degraded": True,
                        "reasoning_trace": [step(state, "thought", render(lang, "degraded", error=str(exc)[:300]))]}
            offline = await in_thread(compose_offline, replace(state, degraded=True), svc)
            return {**offline, **degraded, "reasoning_trace": degraded["reasoning_trace"] + offline["reasoning_trace"]}
    return await in_thread(compose_offline, state, svc)


def sentence_similarity(svc: Services, question: str, asked: str | None = None) -> Similarity:
    """How close sentences are in meaning to ``question``: the embedder's cosine, calibrated like a passage's
    (``retrieval.similarity_floor`` … ``similarity_ceiling``). ``asked``: the question without its subject's name
    (:func:`without_name`); a sentence's similarity is then the mean of its cosines to both."""
    cfg = svc.settings.retrieval
    queries = [question] if not asked or asked == question else [question, asked]

    def score(texts: list[str]) -> list[float]:  # called in a worker thread, when the sentences are known
        vectors = svc.embedder.embed_passages(texts)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        cosines = np.zeros(len(texts))
        for q in queries:
            query = svc.embedder.embed_query(q)
            cosines += (vectors @ (query / (np.linalg.norm(query) or 1.0))) / norms
        return [calibrate_similarity(float(s), cfg.similarity_floor, cfg.similarity_ceiling)
                for s in cosines / len(queries)]

    return score


def without_name(question: str, subject: frozenset[str]) -> str:
    """``question`` without the name of its subject as it writes it — a run of two or more subject words
    ("Richmond General Hospital", "Trenton, Vandalia, Court") or a Chinese name of four characters or more
    (丰穗农业科技股份有限公司) — for measuring how close a line of the subject's document is to what is asked of it.
    A subject word written alone stays ("general health condition"), and so do short Chinese ones, often the
    words of what is asked too (出差, 报销)."""
    latin = sorted((w for w in subject if w.isascii() and w.isalnum()), key=len, reverse=True)
    names: list[str] = []
    if latin:
        word = "(?:" + "|".join(re.escape(w) for w in latin) + ")"
        names += [m.group(0) for m in re.finditer(rf"(?i)\b{word}(?:[\s,.-]+{word}\b)+", question)]
    names += [span for span in subject_spans(question, [w for w in subject if not w.isascii()], whole=True)
              if len(span) >= 4]
    out = question
    for name in sorted(names, key=len, reverse=True):
        out = re.sub(re.escape(name), " ", out, flags=re.IGNORECASE)
    out = re.sub(r"\s+", " ", out).strip(" ,，、")
    return out or question


def named_subjects(question: str, asked: Asked) -> set[str]:
    """The question's subject words it writes as names ("Northbeam" of "the hosting agreement with Northbeam",
    ``text.asked.title_case_names``): a line holding only them does not answer. Not the withheld names of a
    Chinese record (喻某某), whose roles ("patient") would then count as naming words too: a record's lines
    all hold them."""
    return set(asked.subject) & title_case_names(question)


def compose_offline(state: State, svc: Services) -> dict[str, Any]:
    """The answer without a model: composed from the passages for the question's kind, or an abstention."""
    cfg = svc.settings.retrieval
    lang = state.language
    pool = state.hits
    intent = state.intent
    question = state.search_text
    terms = list(state.terms)
    weights = state.quality.weights
    composed = None
    summary_section: list[str] = []
    if intent.kind == "structure":
        composed = compose.structure(lang, intent, state.outline, pool, svc.settings.answer.outline_items)
    elif intent.kind == "page":
        composed = compose.page(lang, intent, question, state.outline, pool)
    elif intent.kind == "compare_versions":
        composed = compose.versions(lang, intent, question, terms, weights, pool, svc.settings.answer)
    elif intent.kind == "multi_hop":
        composed = compose.multi_hop(lang, intent, question, list(state.bridge), pool,
                                     svc.settings.answer.multi_hop_items)
    if composed is None:
        decision = decide_answerable(state, pool, svc)
        if not decision.answerable:
            return abstain(state, decision)
        translations = state.quality.translations
        named = set(intent.about or intent.named) or None  # a question naming its subject is answered from it
        # a question naming its subject is answered from the subject's lines, which all share its name: how close a
        # line is in meaning is also measured against what is asked of it ("who was the defendant?"), so a line
        # writing the name out does not come nearer for the name alone — not for a chain, whose description
        # ("the location where the Siege of Cassel took place") is its first link
        plain = named and not describes_link(question)
        similarity = sentence_similarity(svc, question,
                                         without_name(question, state.quality.asked.subject) if plain else None)
        pick = asked_section(question, state.quality.asked.weights(weights), pool, named, similarity,
                             translations=translations,
                             similarity_weight=svc.settings.answer.summary_label_similarity_weight,
                             ) if named and asks_for_summary(question) else None
        if pick is not None:  # a section that says nothing (no citation) is answered as any question is
            composed = compose.section_summary(lang, pick, pool, svc.settings.answer.summary_sentences)
            composed = composed if composed.citations else None
            summary_section = [pool[pick.index].document_id, pick.within] if composed is not None else []
        if composed is None and intent.kind == "locate":
            composed = compose.locate(lang, question, terms, weights, pool, translations, cfg=svc.settings.answer,
                                      documents=named, similarity=similarity)
        elif composed is None:
            composed = compose.extractive(lang, question, terms, weights, pool, cfg.answer_sentences, translations,
                                          cfg=svc.settings.answer, documents=named, similarity=similarity,
                                          linked=set(intent.linked),
                                          subjects=named_subjects(question, state.quality.asked) if named else ())
        if composed is not None and lacks_required_kind(composed.lines[1:], question,
                                                        required_kinds(svc.settings.answer, question),
                                                        gate_terms(question, state.quality.asked.weights(weights),
                                                                   state.quality.asked.subject,
                                                                   svc.settings.answer.salient_term_share),
                                                        state.quality.asked.translations):
            # "企业版多少钱" answered with lines that name no price: the documents do not say it
            return abstain(state, decision)
        if composed is not None and attribute_unlinked(state.quality.asked, intent.kind,
                                                       svc.settings.answer.unlinked_share,
                                                       quote_holds(quoted(composed.text), question,
                                                                   state.quality.asked, weights)):
            # "Which drama school did Naomie Harris train at?" answered with her page's opening line: what it asks
            # is written neither there nor in a page linked to her, and the line holds none of it
            return abstain(state, decision)
        if composed is not None and named is None and not describes_link(question) \
                and not describes_by_clause(question) and off_subject(terms, pool, composed.citations):
            # "怀疑燃气表计量不准…要交多少校验费" answered by the water company's 检定费: 燃气 names the gas company's
            # guide alone, and the answer neither cites it nor writes 燃气 — another subject's fact
            return abstain(state, decision)
        if composed is not None and open_day(composed.lines[1:], question):
            # "下一次开会定在几月几号？" answered by "计划于6月中旬召开，具体时间另行通知": the day is not given
            return abstain(state, decision)
        if composed is not None and only_repeats(composed.lines[1:], question):
            # "how many pets does the chief judge own?" answered by the signature line "Chief Judge": lines
            # holding only the question's own words answer nothing
            return abstain(state, decision)
    if composed is None:
        return abstain(state)
    composed, linked = with_last_link(state, svc, composed, multi=intent.kind == "multi_hop")
    update: dict[str, Any] = {
        "answer": composed.text, "answerable": True, "citations": composed.citations, "inferred": bool(linked),
        "summary_section": summary_section,
        "reasoning_trace": [step(state, "answer", render(lang, "answer_summary", n=len(pool),
                                                         k=len(composed.citations))), *linked],
    }
    if composed.relevance:  # new Hit objects: the state's own are not changed in place
        pool = [h.model_copy(update={"relevance": max(h.relevance, composed.relevance[i])})
                if i in composed.relevance else h for i, h in enumerate(pool)]
        update["hits"] = pool
    return update


def required_kinds(cfg: AnswerSettings, question: str) -> list[str]:
    """The kinds an offline answer to ``question`` must quote: a question describing its subject by a link has its
    own list (``answer.chain_required_kinds``)."""
    return list(cfg.chain_required_kinds if describes_link(question) else cfg.required_kinds)


def subject_first(state: State, composed: compose.Composed) -> compose.Composed:
    """A chain question's lines about the description's subject first (``answering.chain.subject_lines``): the
    chain starts there — "What time does the state where Greenfield-Central High is stop selling booze?" quoted
    the page on *time* (its title is a word of the question) before the school's."""
    lines, quoted = composed.lines, composed.quoted
    if not describes_link(state.search_text) or len(lines) != len(quoted) + 1:
        return composed
    first = subject_lines(state.search_text, state.quality.weights, state.hits, quoted)
    order = first + [k for k in range(len(quoted)) if k not in first]
    return replace(composed, lines=[lines[0], *(lines[k + 1] for k in order)], quoted=[quoted[k] for k in order])


def with_last_link(state: State, svc: Services, composed: compose.Composed, *, multi: bool,
                   ) -> tuple[compose.Composed, list[TraceStep]]:
    """``composed`` with the last link of a chain question quoted after its lines (``answering.chain``), and
    the trace step that says so (none when no link was quoted): "the country Signmark is from" — Signmark's
    sentence names Finland, the markka's says what the question asks of it. With a link, only the chain's lines
    stay: the euro's list of member states, quoted for holding "currency" and "euro", is a look-alike."""
    pool, cfg = state.hits, svc.settings.answer
    composed = subject_first(state, composed)
    link = last_link(state.search_text, state.quality.weights, pool, composed.quoted,
                     enough=cfg.second_hop_coverage, passages=svc.settings.retrieval.top_k,
                     similarity=sentence_similarity(svc, state.search_text), about_weight=cfg.link_about_weight,
                     similarity_weight=cfg.link_similarity_weight, within=state.intent.named)
    if link is None:
        return composed, []
    hit, n = pool[link.hit_index], link.hit_index + 1
    line = (render(state.language, "multi_item", where=f"{hit.document_name} > {hit.where()}",
                   text=clean_markup(link.text), n=n)
            if multi else render(state.language, "answer_item", text=clean_markup(link.text), n=n))
    said = step(state, "answer", render(state.language, "chain_link", entity=link.entity, document=hit.document_name))
    lines, quoted = composed.lines, composed.quoted
    if len(lines) == len(quoted) + 1:  # a lead, then one line per quote: the chain's lines are kept, no look-alikes
        kept = [k for k, (i, _) in enumerate(quoted) if pool[i].document_id in link.chain]
        lines, quoted = [lines[0], *(lines[k + 1] for k in kept)], [quoted[k] for k in kept]
    cites = {int(n) - 1 for line in lines for n in _NUM_REF.findall(line)} | {link.hit_index}
    return replace(composed, lines=[*lines, line], citations=sorted(c for c in cites if 0 <= c < len(pool)),
                   quoted=[*quoted, (link.hit_index, link.text)]), [said]


def subject_label(hit: Hit, naming: frozenset[str], lang: str) -> str:
    """How an answer names the subject of ``hit``'s document: the subject name the question used, else the
    file name."""
    used = [s for s in hit.subjects if any(t in s.lower() for t in naming)]
    name = max(used, key=lambda s: sum(t in s.lower() for t in naming)) if used else hit.document_name
    return f"「{name}」" if lang == "zh" else name
