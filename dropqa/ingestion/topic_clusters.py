"""Topics of a knowledge base (seed 000 §5.3): groups of its documents that share a subject, across languages.

After indexing (a ``dropqa index`` / ``run`` batch, an eval corpus, a worker whose queue ran empty) and at
once after a document is deleted, :func:`refresh_topics` recomputes them from what is stored:

1. Documents are grouped on what they are about — their concepts (key terms and titles in one vocabulary
   for both languages) and their embeddings (as fitted: the concepts alone), each language centred on its
   own mean so that the language drops out, by spectral clustering of the documents' similarity graph
   (:mod:`dropqa.ingestion.topic_space`, fitted on a labelled mixed corpus). A document nearly as close to a
   second group as to its own carries that topic too, with a lower confidence.
2. A group is named by a candidate phrase (:mod:`dropqa.ingestion.phrases`, kept per document at indexing)
   cut to its subject — the kind of document dropped ("信息安全管理办法" → 信息安全, "聊天记录" and "report"
   are no subjects), English phrases that end with a verb dropped ("employees receive") — in the language
   most of its documents are written in: held by most of the group's documents in either language (a Chinese
   document holds "travel expense" through its concepts), by few outside it (a word every subject's
   documents hold — 计划, plan — names none), named in their file names, compounds preferred, specific in
   general Chinese; never a file extension, stop word, number or unit (``valid_name``). With a chat model the
   group is named by the model (a JSON object checked against a schema and the same rules); when it fails,
   the phrase name stays.
3. A group whose name is a near-duplicate of another's (``related_names``) joins that topic.
4. Each topic is described by its next phrases — its documents' subjects, in the page's language where its
   documents offer them — never by file names, so a deleted document leaves nothing behind; its links carry
   a confidence (the document's own topic highest). The links of every current version are replaced in one
   transaction, so merges and filters keep working (a merged name still reaches its target).
"""

from __future__ import annotations

import logging
import math
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from dropqa.config import Settings, TopicSettings
from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.phrases import noun_headed, phrases, subject_of, valid_name
from dropqa.ingestion.prompts import fill
from dropqa.ingestion.topic_space import place, similarity
from dropqa.ingestion.topics import normalize_topic, related_names
from dropqa.store import topics as topic_store
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database
from dropqa.text.concepts import concepts, specificity

log = logging.getLogger(__name__)
_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass
class Cluster:
    members: list[int]
    phrases: list[str] = field(default_factory=list)
    name: str = ""
    description: str = ""
    descriptions: dict[str, str] = field(default_factory=dict)  # per page language: "zh", "en"
    named_by: str = "phrases"


class ModelTopic(BaseModel):
    name: str = Field(min_length=2, max_length=40)
    description: str = Field(min_length=2, max_length=200)


class ModelTopics(BaseModel):
    """The chat model's name for a cluster of documents (the first topic is used)."""

    topics: list[ModelTopic]


@dataclass
class Holders:
    """Which documents of the collection hold each candidate name: literally (``counts``: the phrase, after
    :func:`~dropqa.ingestion.phrases.subject_of`, with its count) or, a document in the other language, through
    its concepts — every word of the phrase is in the document's bag (:func:`holds`), so a Chinese document
    holds "travel expense" and an English one 差旅费 (``concept_sets``: each document's concept terms)."""

    counts: list[dict[str, int]]
    concept_sets: list[frozenset[str]]
    languages: list[str]  # each document's: "zh" or "en"
    titles: list[str] = field(default_factory=list)  # each document's file name (its stem names its subject)
    _cache: dict[str, frozenset[int]] = field(default_factory=dict)
    _titled: dict[str, frozenset[int]] = field(default_factory=dict)
    _title_bags: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)

    def titled(self, phrase: str) -> frozenset[int]:
        """The documents whose file name holds ``phrase`` (its words, or its concepts): 差旅费报销管理办法.docx
        and travel_and_expense_policy.md both hold "差旅费"."""
        found = self._titled.get(phrase)
        if found is None:
            if not self._title_bags:
                self._title_bags = [_title_bag(t) for t in self.titles]
            words = phrase_concepts(phrase)
            found = frozenset(i for i, (names, bag) in enumerate(self._title_bags)
                              if phrase in names or holds(bag, words))
            self._titled[phrase] = found
        return found

    def of(self, phrase: str) -> frozenset[int]:
        found = self._cache.get(phrase)
        if found is None:
            words = phrase_concepts(phrase)
            chinese = bool(_HAN.search(phrase))
            found = frozenset(i for i, (counts, bag, lang) in enumerate(zip(self.counts, self.concept_sets,
                                                                            self.languages, strict=True))
                              if phrase in counts or ((lang == "zh") != chinese and holds(bag, words)))
            self._cache[phrase] = found
        return found


def candidate_names(doc_phrases: list[dict[str, int]], verb_ratio: float) -> list[dict[str, int]]:
    """Each document's candidate names as subjects: the kind of document cut off ("信息安全管理办法" →
    信息安全, "聊天记录" dropped) and counts of what is then one name summed; English names that end with a
    verb ("employees receive") dropped."""
    out = []
    for d in doc_phrases:
        counts: Counter[str] = Counter()
        for phrase, count in d.items():
            subject = _subject(phrase)
            if subject and noun_headed(subject, verb_ratio):
                counts[subject] += count
        out.append(dict(counts))
    return out


@lru_cache(maxsize=8192)
def _subject(phrase: str) -> str:
    return subject_of(phrase)


def _title_bag(filename: str) -> tuple[frozenset[str], frozenset[str]]:
    """A file name's stem as candidate names (after :func:`subject_of`) and as concepts."""
    stem = Path(filename).stem.replace("_", " ").replace("-", " ")
    return (frozenset(filter(None, (_subject(p) for p in phrases(stem)))),
            frozenset(concepts(stem.lower() if stem.isascii() else stem)))


def rank_phrases(members: list[int], pool: list[int], holders: Holders, settings: TopicSettings,
                 limit: int = 8) -> list[tuple[str, float]]:
    """The candidate names of documents ``pool`` (the group's, or those in one language) for the group of
    ``members``, with their scores, best first: the share of the group's documents holding the phrase (in
    either language, :class:`Holders`) to the power ``name_coverage_power`` × the share of the phrase's
    holders in the whole collection that are in the group (a word documents of every subject hold — 计划,
    记录, plan — names none of them) × how often the group's documents use it × how specific the phrase is
    in general Chinese (:func:`~dropqa.text.concepts.specificity`: 计划, 服务, 平台 are weak names), compounds
    preferred (``name_compound_bonus``)."""
    group = set(members)
    counts: Counter[str] = Counter()
    for m in pool:
        counts.update(holders.counts[m])
    scores = {}
    for phrase, count in counts.items():
        held = holders.of(phrase)
        inside = len(held & group)
        if not inside:
            continue
        coverage = inside / len(group)
        precision = inside / len(held)
        titled = len(holders.titled(phrase) & group) / len(group) if holders.titles else 0.0
        # compounds name a subject better than their parts ("数据平台" over "平台", "annual leave" over "leave")
        extra = len(phrase.split()) - 1 if " " in phrase or phrase.isascii() else (len(phrase) - 2) // 2
        scores[phrase] = (coverage ** settings.name_coverage_power * precision * math.log(1 + count)
                          * (1 + settings.name_compound_bonus * min(extra, 2)) * specificity(phrase)
                          * (1 + settings.name_title_weight * titled))
    ranked = sorted(scores, key=lambda p: (-scores[p], p))
    out: list[tuple[str, float]] = []
    for phrase in ranked:  # "数据平台" after "数据平台运维"? keep the stronger one only
        if not any(related_names(phrase, kept) for kept, _ in out):
            out.append((phrase, scores[phrase]))
        if len(out) >= limit:
            break
    return out


@lru_cache(maxsize=4096)
def phrase_concepts(phrase: str) -> tuple[tuple[frozenset[str], ...], ...]:
    """Each word of ``phrase`` as the ways it may appear in a document's concept bag
    (:mod:`dropqa.text.concepts`, one vocabulary for both languages), each way a set of concepts all present:
    a Chinese word's first three glosses (信息安全 → {information, security}), an English word itself and the
    first gloss of each of its first two Chinese translations ("security" → 安全 → {safe}). ``()`` when a
    word has none (平台可用性: 可用性): the phrase is then held literally only, not as its known parts."""
    import jieba

    from dropqa.text.bilingual import translate_terms

    def ways(glosses: list[str]) -> list[frozenset[str]]:
        return [frozenset(found) for g in glosses if (found := concepts(g, limit=20))]

    words = [w for w in jieba.lcut(phrase) if w.strip()] if _HAN.search(phrase) else phrase.split()
    out = []
    for word in words:
        if _HAN.search(word):
            found = ways(translate_terms([word], "en", per_term=3).get(word, []))
        else:
            back = translate_terms([word], "zh", per_term=2).get(word, [])
            firsts = [g[0] for g in translate_terms(back, "en", per_term=1).values() if g]
            found = ways([word, *firsts])
        if not found:
            return ()
        out.append(tuple(found))
    return tuple(out)


def holds(bag: frozenset[str], words: tuple[tuple[frozenset[str], ...], ...]) -> bool:
    """The bag holds every word of a phrase in one of its ways (:func:`phrase_concepts`)."""
    return bool(words) and all(any(way <= bag for way in ways) for ways in words)


def model_names(model: EnrichmentModel, clusters: list[Cluster], names: list[list[str]], language: str) -> None:
    """Name each cluster with the chat model; a reply that breaks the schema or the naming rules
    leaves the phrase name."""
    prompts = [fill("cluster_topic", language, documents="\n".join(f"- {n}" for n in doc_names[:12]),
                    phrases=", ".join(c.phrases[:8]) or "-")
               for c, doc_names in zip(clusters, names, strict=True)]
    for cluster, answer in zip(clusters, model.ask_many(prompts, ModelTopics), strict=True):
        if isinstance(answer, Exception) or not answer.topics:
            continue
        topic = answer.topics[0]
        name = normalize_topic(topic.name)
        if valid_name(name):
            cluster.name, cluster.description, cluster.named_by = name, topic.description.strip(), "model"
            cluster.descriptions = {language: cluster.description}


def _language(lang: str | None) -> str:
    return "zh" if lang == "zh" else "en"


def _vector(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    return np.asarray(value.to_list() if hasattr(value, "to_list") else value, dtype=np.float64)


def name_cluster(cluster: Cluster, languages: list[str], holders: Holders, settings: TopicSettings
                 ) -> tuple[str, dict[str, list[str]]]:
    """The group's naming language and its phrases per page language: each language's from the group's
    documents in that language, ranked by :func:`rank_phrases` over the whole group (both languages), those of
    the other language when it has none. The name is the first phrase in the naming language: the language
    most of the group's documents are written in, on a tie the one whose best phrase scores higher."""
    ranked: dict[str, list[tuple[str, float]]] = {}
    for lang in ("zh", "en"):
        mine = [m for m in cluster.members if languages[m] == lang]
        ranked[lang] = rank_phrases(cluster.members, mine, holders, settings, limit=8) if mine else []
    count = Counter(languages[m] for m in cluster.members)
    own = max(("zh", "en"), key=lambda lang: (count[lang], ranked[lang][0][1] if ranked[lang] else 0.0))
    names = {lang: [p for p, _ in ranked[lang]] for lang in ("zh", "en")}
    for lang, other in (("zh", "en"), ("en", "zh")):
        if not names[lang]:
            names[lang] = names[other]
    if names[own]:
        pool = [m for m in cluster.members if languages[m] == own]
        names[own] = [pair_name(names[own], set(cluster.members), pool, holders, own, settings), *names[own][1:]]
    return own, names


def pair_name(ranked: list[str], group: set[int], pool: list[int], holders: Holders, language: str,
              settings: TopicSettings) -> str:
    """The best phrase, or "A与B" / "A and B" when A is held by less than ``name_pair_coverage`` of the group's
    documents: B is the best name (:func:`rank_phrases`, from the phrases of ``pool``, the group's documents in
    ``language``, some of which A misses) of the documents A misses, held by most of them (a group of price lists
    and support pages: "support and price")."""
    first = ranked[0]
    held = holders.of(first) & group
    missed = sorted(group - held)
    if len(held) >= settings.name_pair_coverage * len(group) or not set(missed) & set(pool):
        return first  # held widely enough, or what it misses is in the other language only
    for other, _ in rank_phrases(missed, pool, holders, settings):
        if not related_names(first, other) and len(holders.of(other) & set(missed)) * 2 > len(missed):
            name = f"{first}与{other}" if language == "zh" else f"{first} and {other}"
            return name if valid_name(name) else first
    return first


def describe(phrases: list[str], name: str, language: str) -> str:
    """One line of the topic's subjects: its next phrases after the name (the count and the documents are
    shown live beside it, so nothing here goes stale when a document goes)."""
    about = [p for p in phrases if not related_names(p, name)][:4]
    if not about:
        return ""
    return ("涉及：" + "、".join(about)) if language == "zh" else ("About " + ", ".join(about))


def refresh_topics(db: Database, settings: Settings, embedder_name: str,
                   model: EnrichmentModel | None = None, kb: uuid.UUID = DEFAULT_KB) -> list[dict[str, Any]]:
    """Recompute base ``kb``'s topics from its documents alone and store them; returns what was stored."""
    rows = topic_store.topic_inputs(db, kb, embedder_name)
    if not rows:
        topic_store.replace_topic_links(db, kb, [])
        return []
    doc_phrases = [{p: int(c) for p, c in (r["phrases"] or {}).items() if valid_name(p)} for r in rows]
    # a version indexed before concepts were kept: its phrases stand in for them
    t = settings.topics
    bags = [r["concepts"] or concepts(" \n".join(doc_phrases[i]), limit=t.concepts_per_document,
                                      english_gloss_share=t.english_gloss_share,
                                      english_translations=t.english_translations)
            for i, r in enumerate(rows)]
    languages = [_language(r["language"]) for r in rows]
    sim = similarity(bags, [_vector(r["vector"]) for r in rows], languages, settings.topics)
    placed = place(sim, settings.topics)
    holders = Holders(candidate_names(doc_phrases, settings.topics.name_verb_ratio),
                      [frozenset(b) for b in bags], languages,
                      [r["filename"] for r in rows])
    groups = sorted(set(placed.labels))
    clusters = {g: Cluster(members=[i for i, lab in enumerate(placed.labels) if lab == g]) for g in groups}
    per_language: dict[int, dict[str, list[str]]] = {}
    own_language: dict[int, str] = {}
    for g, c in clusters.items():
        own_language[g], per_language[g] = name_cluster(c, languages, holders, settings.topics)
        c.phrases = per_language[g][own_language[g]]
    names = {g: [rows[m]["filename"] for m in c.members] for g, c in clusters.items()}
    if model is not None and clusters:
        try:
            for lang in ("zh", "en"):
                idx = [g for g in groups if own_language[g] == lang]
                model_names(model, [clusters[g] for g in idx], [names[g] for g in idx], lang)
        except Exception as exc:  # naming must never fail indexing
            log.warning("the chat model could not name the topics: %s", exc)
    stored: dict[str, dict[str, Any]] = {}
    topic_of: dict[int, str] = {}
    for g in sorted(groups, key=lambda g: -len(clusters[g].members)):
        c = clusters[g]
        if not c.name:
            c.name = c.phrases[0] if c.phrases else ""
        if not c.name:
            continue  # nothing nameable (a document of numbers): no topic rather than a bad one
        offline = {lang: describe(per_language[g][lang], c.name, lang) for lang in ("zh", "en")}
        c.descriptions = {**offline, **c.descriptions}  # the model's line in its language, ours in the other
        c.description = c.description or c.descriptions[own_language[g]]
        same = next((k for k in stored if related_names(c.name, k)), None)
        topic_of[g] = same or c.name
        stored.setdefault(same or c.name, {"name": same or c.name, "description": c.description,
                                           "descriptions": c.descriptions, "documents": {}, "named_by": c.named_by})
    for i, links in enumerate(placed.links):
        for g, confidence in links:
            if g in topic_of:
                docs = stored[topic_of[g]]["documents"]
                key = (rows[i]["id"], rows[i]["version"])
                docs[key] = max(confidence, docs.get(key, 0.0))
    result = list(stored.values())
    for entry in result:
        entry["documents"] = [(doc, version, conf) for (doc, version), conf in entry["documents"].items()]
        entry["document_count"] = len(entry["documents"])
    topic_store.replace_topic_links(db, kb, result)
    return result


def recompute_topics(db: Database, settings: Settings, embedder_name: str, kb: uuid.UUID) -> bool:
    """:func:`refresh_topics` for a front end that changed base ``kb`` (a document deleted): the configured
    chat model names them as the workers' would; never raises (False: they stay as they were, the next
    indexing recomputes them)."""
    try:
        refresh_topics(db, settings, embedder_name, EnrichmentModel.from_settings(settings), kb=kb)
    except Exception:
        log.exception("could not recompute the topics of base %s", kb)
        return False
    return True
