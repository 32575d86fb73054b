"""Hybrid retrieval: full-text + semantic, fused with RRF, scored for relevance.

Recall paths of seed 004 §6.1 add candidates — rows of a sheet whose title matches
the question (title index), the table right after a text hit (neighbour), appendix
tables of the documents hit (appendix) — and each adds its weight (Settings.retrieval)
to the rank score, with a small bonus for tables; they never raise ``relevance``, so
the no-answer decision stays with what the passages themselves say.

``relevance`` (0–1) blends the calibrated cosine similarity and the share of the question's
idf-weighted terms the hit contains (for a passage in the other language, through the terms'
CC-CEDICT translations, which the full-text query carries too). Rank order blends relevance
with the fused rank, so agreement between the two channels counts. Whether the hits answer
the question is the fitted decision of ``retrieval.answerability``, which reads these numbers.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from itertools import pairwise

from dropqa.config import RetrievalSettings
from dropqa.retrieval.fusion import calibrate_similarity, coverage, idf_weights, rrf
from dropqa.retrieval.hits import Hit
from dropqa.services import Services
from dropqa.store import pending as pending_store
from dropqa.store import recall, search
from dropqa.store.scope import Scope
from dropqa.text.asked import folded, glossed_words, name_phrases, written_as_one, written_together
from dropqa.text.bilingual import dictionary_names_a_thing, dictionary_words, synonyms, translate_terms
from dropqa.text.forms import alias_forms, derived_forms, word_forms
from dropqa.text.segment import (
    coined_spans,
    compound_parts,
    covering_candidates,
    has_han,
    holds,
    is_dictionary_word,
    names_a_thing,
    noun_words,
    query_terms,
    resegment,
    single_runs,
    whole_terms,
)
from dropqa.text.subjects import is_stated_by_value


@dataclass
class RetrievalResult:
    query: str
    terms: list[str]
    weights: dict[str, float]
    scope: Scope  # what the search saw (its knowledge bases, version, topics); passages are scored in it
    hits: list[Hit] = field(default_factory=list)
    translations: dict[str, list[str]] = field(default_factory=dict)  # term → its words in the other language
    unseen: list[str] = field(default_factory=list)  # question terms no passage holds, in either language
    vector: list[float] = field(default_factory=list)  # the query's embedding (passages are scored against it)
    # the semantic search's best passages, nearest first, whatever their rank in ``hits``: a passage close to the
    # question in meaning that shares few of its words (the next hop's page) is listed among the sources
    nearest: list[Hit] = field(default_factory=list)

    @property
    def top_relevance(self) -> float:
        return self.hits[0].relevance if self.hits else 0.0


def question_terms(svc: Services, question: str, scope: Scope) -> list[str]:
    """The question's search terms, in the collection's words: a Han word jieba coined from the question's
    context that no passage holds is replaced by the indexed words over the same characters
    (:func:`dropqa.text.segment.resegment`). A word jieba's dictionary lacks and cut into single characters is
    a term when CC-CEDICT knows it (年会 of "公司今年的年会在哪里举办", which no document may write)."""
    terms = query_terms(question)
    spans = coined_spans(question, terms)
    if spans:
        low = question.lower()
        han = [t for t in terms if has_han(t)]
        present = search.present_terms(svc.db, han + covering_candidates(low, spans), scope)
        asked = terms
        terms = resegment(low, terms, present)
        terms += unwritten_coined(svc, low, spans, asked, terms, scope)
    known = [w for run in single_runs(question) for w in dictionary_words(run)]
    return terms + [w for w in dict.fromkeys(known) if w not in terms]


def unwritten_coined(svc: Services, question: str, coined: list[tuple[int, int, str]], asked: list[str],
                     kept: list[str], scope: Scope) -> list[str]:
    """The nouns jieba coined from the (lower-cased) question — ``coined``, its
    :func:`~dropqa.text.segment.coined_spans` of the ``asked`` terms (森马 of "森马服饰是哪一年…创办的", a brand its
    dictionary lacks) — that :func:`resegment` dropped (``kept``: the terms it kept) though no word of the collection
    stands over their characters, and that no passage writes even inside a longer word: a name the documents never
    write, which must count as unseen — dropped, the question reads as one about 服饰 and 温州, and 美特斯邦威's
    founding answers it. A jieba piece of the collection's words ("陌区" of 紫陌区) is written, and goes."""
    spans = [(low_at, t) for _, _, t in coined
             if t in asked and t not in kept and (low_at := question.find(t)) >= 0]
    if not spans:
        return []

    def covered(at: int, t: str) -> bool:  # a word the collection holds now stands over part of it
        return any(0 <= (k := question.find(w)) < at + len(t) and k + len(w) > at for w in kept if has_han(w))

    nouns = noun_words(question)
    candidates = [t for at, t in spans if len(t) >= 2 and t in nouns and not covered(at, t)]
    if not candidates:
        return []
    written = search.written_terms(svc.db, candidates, scope)
    return [t for t in candidates if t not in written]


def term_weights(svc: Services, terms: list[str], scope: Scope) -> dict[str, float]:
    return term_stats(svc, terms, scope)[0]


def term_stats(svc: Services, terms: list[str], scope: Scope) -> tuple[dict[str, float], set[str]]:
    """(idf weight of each term, the terms no visible passage holds)."""
    df, total = search.term_frequencies(svc.db, terms, scope)
    return idf_weights(df, max(total, 1)), {t for t, n in df.items() if n == 0}


def held_in(svc: Services, weights: dict[str, float], translations: dict[str, list[str]], scope: Scope,
            ) -> tuple[float, list[str]]:
    """Share of ``weights``' mass whose term — or one of its translations — some passage in ``scope`` holds
    (1.0 when there is nothing to hold; a Chinese short form written in full counts: 深交所 as 深圳证交所), and the
    terms none holds, heaviest first: does a document say anything of what the question asks of it?"""
    total = sum(weights.values())
    if total <= 0:
        return 1.0, []
    words = list(dict.fromkeys([*weights, *(x for t in weights for x in translations.get(t, ()))]))
    present = search.present_terms(svc.db, words, scope)
    missing = [t for t, _ in sorted(weights.items(), key=lambda x: -x[1])
               if t not in present and not any(x in present for x in translations.get(t, ()))]
    spread = search.written_spread(svc.db, [t for t in missing if has_han(t)], scope)  # 深交所 as 深圳证交所
    missing = [t for t in missing if t not in spread]
    return 1.0 - sum(weights[t] for t in missing) / total, missing


def _names_a_thing(term: str) -> bool:
    """``names_a_thing``, or a word jieba's dictionary lacks that CC-CEDICT knows as a thing (年会, whose
    characters jieba tags as a numeral and a verb)."""
    return names_a_thing(term) or (has_han(term) and not is_dictionary_word(term) and dictionary_names_a_thing(term))


def written_nowhere(svc: Services, terms: list[str], unseen: list[str], scope: Scope) -> list[str]:
    """Of ``terms`` that name a thing (``names_a_thing``: an action may be worded otherwise), those no passage
    in ``scope`` writes in any form: none holds the word or a translation (``unseen``, from the word index),
    nor writes it inside a longer word (负责 inside 负责人 is written), nor writes the words a Chinese compound
    is made of, nor writes a Chinese short form in full (年假 as 年休假: ``store.search.written_spread``). "海外" of a
    report that never mentions overseas business. A piece of a longer question term
    is not counted on its own, nor what a record states by its value alone (职业, age:
    ``text.subjects.is_stated_by_value``)."""
    candidates = [t for t in terms if t in set(unseen) and _names_a_thing(t) and not is_stated_by_value(t)]
    if not candidates:
        return []
    parts = {t: compound_parts(t) for t in candidates}
    written = search.written_terms(svc.db, sorted({*candidates, *(p for ps in parts.values() for p in ps)}), scope)
    nowhere = [t for t in candidates if t not in written and not any(p in written for p in parts[t])]
    # a Chinese short form the documents write in full (年假 as 年休假): written, in other words
    spread = search.written_spread(svc.db, [t for t in nowhere if has_han(t)], scope)
    nowhere = [t for t in nowhere if t not in spread]
    # a piece of a longer question term is no subject of its own: 公司, 司员 of 公司员工 (whose 员工 the
    # documents write), 抢走 of 抢走了 (the longer counts, once)
    return whole_terms(nowhere, terms)


def written_apart(svc: Services, question: str, ask: dict[str, float], translations: dict[str, list[str]],
                  scope: Scope) -> list[str]:
    """Of the asked terms (``ask``), the words of a phrase the question writes as one
    (``text.asked.written_together``: 研发投入, GPU服务器) that no passage in ``scope`` — the subject's documents —
    writes in one statement (or heading) with a word next to it in that phrase: 禾润农业's report writes 研发
    ("从事…的研发、生产") and 投入 ("投入使用") but never together, so neither is its 研发投入. A word the documents do
    join to a neighbour (or a word it is made of: "寻衅滋事行为" joins 寻衅滋事 and 犯罪行为) is written, whatever else
    the question adds to the phrase (初步诊断 of "初步诊断结果", which a record heads "初步诊断："). A jieba piece of a
    word (服务 of 服务器) goes with that word. In the question's order."""
    out: list[str] = []
    for group in written_together(question, list(ask)):
        words = whole_terms(group)  # in the question's order
        joined: set[str] = set()
        # a word stands for itself, its translations and the words it is made of: 寻衅滋事 joined to 犯罪行为 by
        # "寻衅滋事行为" — one thing named in other words
        forms = {w: [*translations.get(w, ()), *compound_parts(w)] for w in words}
        for a, b in pairwise(words):
            rarer = max((a, b), key=lambda t: ask.get(t, 0.0))
            texts = search.passages_writing(svc.db, [rarer, *forms[rarer]], scope,
                                            svc.settings.answer.apart_passages)
            if any(written_as_one(t.lower(), [a, b], forms) for t in texts):
                joined |= {a, b}
        apart = {w for w in words if w not in joined}
        out.extend(t for t in group if t not in out and any(t in w for w in apart)
                   and not any(t in w for w in joined))
    return out


def unwritten_names(svc: Services, question: str, scope: Scope) -> list[str]:
    """The names of several words ``question`` gives (``text.asked.name_phrases``: "Arctic Monkeys") whose words the
    collection in ``scope`` writes, each somewhere ("Arctic Ocean", "12 Monkeys"), but never as that name
    (compared :func:`~dropqa.text.asked.folded`, so "Akinoshū" is "Akinoshu"): a subject the documents are not about,
    however well its words match. A name one of whose words no passage writes is left to the word checks, and a
    name whose longest word (taken for its rarest; no document frequency is asked) more than
    ``answer.apart_passages`` passages write is taken as written."""
    limit = svc.settings.answer.apart_passages
    out = []
    for name in name_phrases(question):
        plain = folded(name)
        words = [w for w in plain.split() if len(w) > 1]
        distinct = len(set(words))
        if distinct < 2 or len(search.written_terms(svc.db, words, scope)) < distinct:
            continue
        texts = search.passages_writing(svc.db, [max(words, key=len)], scope, limit)  # every passage of the name
        if len(texts) < limit and not any(f" {plain} " in f" {folded(t)} " for t in texts):
            out.append(name)
    return out


def translations_of(terms: list[str]) -> dict[str, list[str]]:
    """The question's terms in the other language (CC-CEDICT, offline), so a Chinese question
    finds English text by full-text search too, and the reverse."""
    if not terms:
        return {}
    # Each term into the other language: a question mixes them ("薄雾市人民法院 murder judgment").
    # A one-character Chinese word (点, 年) or a two-letter English one is in nearly every passage.
    found = {**translate_terms([t for t in terms if not has_han(t)], "zh", per_term=3),
             **translate_terms([t for t in terms if has_han(t)], "en", per_term=3)}
    return {t: kept for t, words in found.items()
            if (kept := [w for w in words if len(w) >= (2 if has_han(w) else 3)])}


def with_forms(svc: Services, terms: list[str], translations: dict[str, list[str]], scope: Scope,
               ) -> dict[str, list[str]]:
    """``translations`` with each English term's other inflections that the collection holds added to its
    alternative words ("occupations" finds "Occupation:", "sentencing" finds "sentenced"), and so are those of a
    Chinese term's English translations (账号's "account" finds "Accounts"), and the noun of a verb
    or the verb of a noun ("admitted" finds "Admission Time:", "diagnosed" finds "Diagnosis:"); and a Chinese word
    for "another name of" the others (称之为 finds 又名: ``text.forms.alias_forms``), and a Chinese word's synonyms
    (``retrieval.synonyms``: 营收 finds 营业收入, 补贴 津贴, 年底 年末 — ``text.bilingual.synonyms``)."""
    others = svc.settings.retrieval.synonyms
    forms = {t: [f for f in dict.fromkeys([*word_forms(t), *derived_forms(t), *alias_forms(t),
                                           *(synonyms(t) if others else ())]) if f not in terms]
             for t in terms}
    # a Chinese term's English words inflect as the question's own do: CC-CEDICT's "disable" and "account" find
    # "Accounts of leavers are disabled" only through "accounts" and "disabled"
    for t, words in translations.items():
        forms[t] = list(dict.fromkeys([*forms.get(t, []), *(f for w in words if " " not in w
                                                              for f in word_forms(w) if f not in words)]))
    present = search.present_terms(svc.db, sorted({f for fs in forms.values() for f in fs}), scope)
    out = {t: list(words) for t, words in translations.items()}
    for t, fs in forms.items():
        held = [f for f in fs if f in present]
        if held:
            out[t] = list(dict.fromkeys([*out.get(t, []), *held]))
    return out


def _translated_coverage(text: str, weights: dict[str, float], translations: dict[str, list[str]]) -> float:
    """Share of the question's idf mass the (other-language) passage holds, as written (a name)
    or translated; 0 when no term could be translated."""
    total = sum(weights.values())
    if not total or not translations:
        return 0.0
    held = sum(w for t, w in weights.items() if holds(text, t) or any(holds(text, x) for x in translations.get(t, ())))
    return held / total


def score_hits(svc: Services, scope: Scope, hits: list[Hit], terms: list[str], weights: dict[str, float],
               qvec: list[float] | None, translations: dict[str, list[str]] | None = None) -> None:
    """Fill ``relevance`` on each hit (similarity + term coverage) in place. A passage in the other
    language than the question is covered through the terms' translations.

    A passage of a version still being embedded has no similarity yet (``semantic_pending``): its
    relevance rests on its term coverage alone, as if the similarity agreed with it, so a version
    answers by full-text before its embeddings exist and ranks no lower for their absence."""
    cfg = svc.settings.retrieval
    missing = [h.node_id for h in hits if h.metadata.get("semantic") is None]
    if missing and qvec is not None:
        sims = search.similarities(svc.db, scope, missing, qvec, svc.embedder.name, svc.embedder.dimensions)
        for h in hits:
            if h.node_id in sims:
                h.metadata["semantic"] = sims[h.node_id]
    unknown = [h.node_id for h in hits if h.metadata.get("semantic") is None]
    for node_id in pending_store.pending_among(svc.db, scope, unknown):
        next(h for h in hits if h.node_id == node_id).metadata["semantic_pending"] = True
    query_han = any(has_han(t) for t in terms)
    for h in hits:
        text = f"{h.breadcrumb}\n{h.content}".lower()
        h.matched_terms = [t for t in terms if holds(text, t)]
        if terms and query_han != has_han(h.content):
            # The passage is in the other language: its words are matched through the terms'
            # translations; without any, the multilingual embedding's similarity is the evidence.
            h.metadata["cross_language"] = True
            translated = [t for t in terms if any(holds(text, x) for x in (translations or {}).get(t, ()))]
            h.matched_terms = sorted({*translated, *(t for t in terms if holds(text, t))})
            cov = _translated_coverage(text, weights, translations or {})
            h.metadata["translated_coverage"] = round(cov, 4)
            sim = _similarity(h, cov, cfg)
            h.relevance = round(cfg.weight_similarity * sim + cfg.weight_coverage * cov if cov else sim, 4)
            continue
        cov = coverage(h.matched_terms, weights) if terms else 0.0
        sim = _similarity(h, cov, cfg)
        h.relevance = round(cfg.weight_similarity * sim + cfg.weight_coverage * cov, 4)


def _similarity(hit: Hit, cov: float, cfg: RetrievalSettings) -> float:
    """The hit's calibrated similarity; for a passage still waiting for its embedding, its coverage
    (and the raw similarity that calibrates to it, for the features that read it)."""
    if hit.metadata.get("semantic_pending"):
        span = cfg.similarity_ceiling - cfg.similarity_floor
        hit.metadata["semantic"] = round(cfg.similarity_floor + cov * span, 4)
        return cov
    return calibrate_similarity(float(hit.metadata.get("semantic") or 0.0), cfg.similarity_floor,
                                cfg.similarity_ceiling)


def _recalled(svc: Services, query_vec: list[float], terms: list[str], scope: Scope,
              fused: list[Hit]) -> list[Hit]:
    """Seed 004 §6.1's extra paths: the rows of a sheet whose title matches (title index), the
    table right after a text hit (neighbour), appendix tables of the documents hit (appendix)."""
    cfg = svc.settings.retrieval
    seen = {h.node_id for h in fused}
    extra: list[Hit] = []

    def add(row: dict, flag: str) -> None:
        node_id = str(row["node_id"])
        if node_id in seen:
            next(h for h in fused if h.node_id == node_id).metadata[flag] = True
            return
        hit = Hit.from_row(row, flag.removesuffix("_hit").removesuffix("_boost"))
        hit.metadata[flag] = True
        seen.add(node_id)
        extra.append(hit)

    floor = cfg.similarity_floor
    for row in search.title_index(svc.db, query_vec, terms, svc.embedder.name, svc.embedder.dimensions, scope,
                                  cfg.title_top_k):
        if row["node_id"] is None or (float(row["score"]) < floor and float(row["term_score"]) <= 0):
            continue
        for node in recall.content_under(svc.db, scope, row["node_id"], limit=2):
            add(node, "title_hit")
    top = fused[: cfg.boost_top_n]
    for h in top:
        if h.node_type in ("paragraph", "list", "text"):
            row = recall.next_table(svc.db, scope, uuid.UUID(h.document_id), h.version, h.position,
                                    cfg.neighbour_window)
            if row is not None:
                add(row, "neighbour_boost")
    docs = list(dict.fromkeys(uuid.UUID(h.document_id) for h in top))
    for row in recall.appendix_tables(svc.db, scope, docs, cfg.appendix_top):
        add(row, "appendix_boost")
    return extra


def boost_of(svc: Services, hit: Hit) -> float:
    cfg = svc.settings.retrieval
    meta = hit.metadata
    return (cfg.weight_title * bool(meta.get("title_hit")) + cfg.weight_neighbour * bool(meta.get("neighbour_boost"))
            + cfg.weight_appendix * bool(meta.get("appendix_boost")) + cfg.class_bonus.get(hit.node_type, 0.0))


def hybrid_search(svc: Services, query: str, scope: Scope, k: int | None = None,
                  weights: dict[str, float] | None = None, *, nearest: bool = False) -> RetrievalResult:
    """``weights``: the terms' idf from a wider scope (a search inside one document scores its
    passages on the same scale as a search over all of them). ``nearest``: keep the semantic search's best
    passages, scored, in ``RetrievalResult.nearest`` (the question's first search: the sources list them)."""
    cfg = svc.settings.retrieval
    k = k or cfg.top_k
    terms = question_terms(svc, query, scope)
    translations = with_forms(svc, terms, translations_of(terms), scope)
    foreign = list(dict.fromkeys(w for words in translations.values() for w in words if w not in terms))
    known, absent = term_stats(svc, terms + foreign, scope)
    weights = {**known, **(weights or {})}
    glossed = glossed_words(query)  # "Jiamu Software (嘉沐软件)": the Chinese name is searched, the gloss is no word
    unseen = [t for t in terms if t in absent and all(x in absent for x in translations.get(t, ()))
              and t not in glossed]
    if unseen:  # a word only a file name writes names that document: it is not unseen
        named = search.filename_terms(svc.db, unseen, scope)
        unseen = [t for t in unseen if t not in named]
    qvec = svc.embedder.embed_query(query).tolist()
    ft_rows = search.fulltext(svc.db, terms + foreign, scope, cfg.candidate_k, weights)
    sem_rows = search.semantic(svc.db, qvec, svc.embedder.name, svc.embedder.dimensions, scope, cfg.candidate_k)
    ft = [Hit.from_row(r, "fulltext") for r in ft_rows]
    sem = []
    for r in sem_rows:
        h = Hit.from_row(r, "semantic")
        h.metadata["semantic"] = float(r["score"])
        sem.append(h)
    fused = rrf([ft, sem], k=cfg.rrf_k)[: cfg.candidate_k]
    fused += _recalled(svc, qvec, terms, scope, fused)
    question_weights = {t: weights[t] for t in terms if t in weights}
    score_hits(svc, scope, fused, terms, question_weights, qvec, translations)
    top_fused = max((h.score for h in fused), default=1.0) or 1.0
    for h in fused:
        h.metadata["rank_score"] = round(
            (1 - cfg.weight_fusion) * h.relevance + cfg.weight_fusion * h.score / top_fused + boost_of(svc, h), 4
        )
    fused.sort(key=lambda h: (-h.metadata["rank_score"], h.node_id))  # ties in one order, whatever the database's
    by_id = {h.node_id: h for h in fused}
    near = [by_id.get(h.node_id, h) for h in sem[: cfg.top_k]] if nearest and cfg.nearest_slots else []
    if unscored := [h for h in near if h.node_id not in by_id]:
        score_hits(svc, scope, unscored, terms, question_weights, qvec, translations)
    return RetrievalResult(query=query, terms=terms, weights=question_weights, scope=scope, hits=fused[:k],
                           translations=translations, unseen=unseen, vector=qvec, nearest=near)
