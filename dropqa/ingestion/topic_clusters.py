"""Topics of a knowledge base (seed 000 §5.3): groups of its documents that share a subject, across languages.

After indexing (a ``dropqa index`` / ``run`` batch, an eval corpus, a worker whose queue ran empty) and at
once after a document is deleted, :func:`refresh_topics` recomputes them from what is stored:

1. Documents are grouped on what they are about — their concepts (key terms and titles in one vocabulary
   for both languages) and their embeddings, each language centred on its own mean so that the language
   drops out (:mod:`dropqa.ingestion.topic_space`, fitted on a labelled mixed corpus). A document nearly as
   close to a second group as to its own carries that topic too, with a lower confidence.
2. A group is named by its most distinctive candidate phrase (:mod:`dropqa.ingestion.phrases`, kept per
   document at indexing) in the language most of its documents are written in: present in most of them,
   rare outside (class-based TF-IDF), longer phrases and section titles preferred; never a file extension,
   stop word, number or unit (``valid_name``). With a chat model the group is named by the model (a JSON
   object checked against a schema and the same rules); when it fails, the phrase name stays.
3. A group whose name is a near-duplicate of another's (``related_names``) joins that topic.
4. Each topic is described by its next phrases — its documents' subjects, in the page's language where its
   documents offer them — never by file names, so a deleted document leaves nothing behind; its links carry
   a confidence (the document's own topic highest). The links of every current version are replaced in one
   transaction, so merges and filters keep working (a merged name still reaches its target).
"""

from __future__ import annotations

import logging
import math
import uuid
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from dropqa.config import Settings
from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.phrases import valid_name
from dropqa.ingestion.prompts import fill
from dropqa.ingestion.topic_space import place, similarity
from dropqa.ingestion.topics import normalize_topic, related_names
from dropqa.store import topics as topic_store
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database
from dropqa.text.concepts import concepts, specificity

log = logging.getLogger(__name__)


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


def rank_phrases(members: list[int], doc_phrases: list[dict[str, int]], df: Counter[str], n_docs: int,
                 limit: int = 8) -> list[tuple[str, float]]:
    """The phrases of ``members`` with their scores, most distinctive first: share of the group's documents
    holding the phrase × rarity in the collection × how often × how specific the phrase is in general
    Chinese (:func:`~dropqa.text.concepts.specificity`: 计划, 服务, 平台 are weak names), longer phrases
    preferred."""
    held: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for m in members:
        for phrase, count in doc_phrases[m].items():
            held[phrase] += 1
            counts[phrase] += int(count)
    scores = {}
    for phrase, n in held.items():
        coverage = n / len(members)
        rarity = math.log(1 + n_docs / df[phrase])
        # compounds name a subject better than their parts ("数据平台" over "平台", "annual leave" over "leave")
        extra = len(phrase.split()) - 1 if " " in phrase or phrase.isascii() else (len(phrase) - 2) // 2
        scores[phrase] = (coverage ** 2 * rarity * math.log(1 + counts[phrase]) * (1 + 0.5 * min(extra, 2))
                          * specificity(phrase))
    ranked = sorted(scores, key=lambda p: (-scores[p], p))
    out: list[tuple[str, float]] = []
    for phrase in ranked:  # "数据平台" after "数据平台运维"? keep the stronger one only
        if not any(related_names(phrase, kept) for kept, _ in out):
            out.append((phrase, scores[phrase]))
        if len(out) >= limit:
            break
    return out


def centroid(members: list[int], weighted: list[dict[str, float]]) -> dict[str, float]:
    """The mean of the members' unit-length TF-IDF concept vectors: what the group as a whole is about,
    in both languages' documents."""
    out: Counter[str] = Counter()
    for m in members:
        norm = math.sqrt(sum(x * x for x in weighted[m].values())) or 1.0
        for term, x in weighted[m].items():
            out[term] += x / norm / len(members)
    return dict(out)


def tfidf_bags(bags: list[dict[str, float]]) -> list[dict[str, float]]:
    df: Counter[str] = Counter(t for bag in bags for t in bag)
    n = len(bags)
    return [{t: (1.0 + math.log(c)) * math.log((1 + n) / (1 + df[t])) for t, c in bag.items() if c > 0}
            for bag in bags]


def about(phrases: list[tuple[str, float]], centre: dict[str, float]) -> list[tuple[str, float]]:
    """``phrases`` re-ranked by how well each says what the whole group is about: its score × the weight its
    concepts have in the group's concept centroid ("差旅费报销" over "伙食补助" for travel rules in two
    languages). Phrases whose concepts the dictionary does not know keep their order after the others."""
    rescored = []
    for phrase, score in phrases:
        terms = phrase_concepts(phrase)
        match = sum(centre.get(t, 0.0) for t in terms) / math.sqrt(len(terms)) if terms else 0.0
        rescored.append((phrase, score * match, score))
    rescored.sort(key=lambda x: (-x[1], -x[2], x[0]))
    return [(p, s) for p, _, s in rescored]


@lru_cache(maxsize=4096)
def phrase_concepts(phrase: str) -> tuple[str, ...]:
    return tuple(concepts(phrase, limit=6))


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


def name_cluster(cluster: Cluster, languages: list[str], doc_phrases: list[dict[str, int]], df: Counter[str],
                 n_docs: int, centre: dict[str, float]) -> tuple[str, dict[str, list[str]]]:
    """The group's naming language and its phrases per page language: each language's from the group's
    documents in that language (ranked by :func:`rank_phrases`, then by :func:`about` the group's concept
    centroid), those of the other language when it has none. The name is the first phrase in the naming
    language: the language most of the group's documents are written in, on a tie the one whose best phrase
    scores higher."""
    ranked: dict[str, list[tuple[str, float]]] = {}
    for lang in ("zh", "en"):
        mine = [m for m in cluster.members if languages[m] == lang]
        ranked[lang] = about(rank_phrases(mine, doc_phrases, df, n_docs, limit=24), centre) if mine else []
    count = Counter(languages[m] for m in cluster.members)
    own = max(("zh", "en"), key=lambda lang: (count[lang], ranked[lang][0][1] if ranked[lang] else 0.0))
    names = {lang: [p for p, _ in ranked[lang][:8]] for lang in ("zh", "en")}
    for lang, other in (("zh", "en"), ("en", "zh")):
        if not names[lang]:
            names[lang] = names[other]
    return own, names


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
    bags = [r["concepts"] or concepts(" \n".join(doc_phrases[i]), limit=settings.topics.concepts_per_document)
            for i, r in enumerate(rows)]
    languages = [_language(r["language"]) for r in rows]
    sim = similarity(bags, [_vector(r["vector"]) for r in rows], languages, settings.topics)
    placed = place(sim, settings.topics)
    df: Counter[str] = Counter(p for d in doc_phrases for p in d)
    weighted = tfidf_bags(bags)
    groups = sorted(set(placed.labels))
    clusters = {g: Cluster(members=[i for i, lab in enumerate(placed.labels) if lab == g]) for g in groups}
    per_language: dict[int, dict[str, list[str]]] = {}
    own_language: dict[int, str] = {}
    for g, c in clusters.items():
        centre = centroid(c.members, weighted)
        own_language[g], per_language[g] = name_cluster(c, languages, doc_phrases, df, len(rows), centre)
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
