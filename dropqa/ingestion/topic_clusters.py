"""Topics of a knowledge base (seed 000 §5.3): clusters of its documents that share a subject.

After indexing (a ``dropqa index`` / ``run`` batch, an eval corpus, a worker whose queue ran
empty) :func:`refresh_topics` recomputes them from what is stored:

1. Each live document is the mean of its nodes' embeddings; documents are clustered with
   scikit-learn's agglomerative clustering (Ward on unit vectors, i.e. cosine), about one topic per
   ``ingestion.documents_per_topic`` documents — a handful per ten.
2. A cluster is named by its most distinctive candidate phrase (:mod:`dropqa.ingestion.phrases`,
   kept per document at indexing): present in most of the cluster's documents, rare outside it
   (class-based TF-IDF), longer phrases and section titles preferred. With a chat model the cluster
   is named by the model (a JSON object checked against a schema and the same naming rules), the
   phrases being its evidence; when it fails, the phrase names stay.
3. A cluster whose name is a near-duplicate of another's (``related_names``) joins that topic.
4. Each topic gets a one-line description (its documents and its next phrases) and links to its
   documents with the cosine to the cluster centre as confidence; the links of every current
   version are replaced in one transaction, so merges and filters keep working (a merged name still
   reaches its target).
"""

from __future__ import annotations

import logging
import math
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from dropqa.config import Settings
from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.phrases import valid_name
from dropqa.ingestion.prompts import fill
from dropqa.ingestion.topics import normalize_topic, related_names
from dropqa.store import topics as topic_store
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database

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


def cluster_labels(vectors: np.ndarray, n_clusters: int) -> np.ndarray:
    if len(vectors) <= 1 or n_clusters <= 1:
        return np.zeros(len(vectors), dtype=int)
    if n_clusters >= len(vectors):
        return np.arange(len(vectors))
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=n_clusters, linkage="ward").fit_predict(vectors)


def rank_phrases(members: list[int], doc_phrases: list[dict[str, int]], df: Counter[str], n_docs: int,
                 limit: int = 8) -> list[str]:
    """The cluster's phrases, most distinctive first: share of its documents holding the phrase ×
    rarity in the collection × how often, with longer phrases preferred."""
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
        scores[phrase] = coverage ** 2 * rarity * math.log(1 + counts[phrase]) * (1 + 0.5 * min(extra, 2))
    ranked = sorted(scores, key=lambda p: (-scores[p], p))
    out: list[str] = []
    for phrase in ranked:  # "数据平台" after "数据平台运维"? keep the stronger one only
        if not any(related_names(phrase, kept) for kept in out):
            out.append(phrase)
        if len(out) >= limit:
            break
    return out


def describe(cluster: Cluster, names: list[str], language: str) -> str:
    """One line (the count is beside it): which documents, and the cluster's next phrases."""
    shown = names[:3]
    more = len(names) - len(shown)
    about = cluster.phrases[1:4]
    if language == "zh":
        docs = "、".join(shown) + (f" 等 {len(names)} 篇" if more > 0 else "")
        return docs + (f"：涉及{'、'.join(about)}" if about else "")
    docs = ", ".join(shown) + (f" and {more} more" if more > 0 else "")
    return docs + (f": about {', '.join(about)}" if about else "")


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


def refresh_topics(db: Database, settings: Settings, embedder_name: str,
                   model: EnrichmentModel | None = None, kb: uuid.UUID = DEFAULT_KB) -> list[dict[str, Any]]:
    """Recompute base ``kb``'s topics from its documents alone and store them; returns what was stored."""
    rows = [r for r in topic_store.topic_inputs(db, kb, embedder_name) if r["vector"] is not None]
    if not rows:
        topic_store.replace_topic_links(db, kb, [])
        return []
    vectors = np.array([np.asarray(r["vector"].to_list() if hasattr(r["vector"], "to_list") else r["vector"],
                                   dtype=np.float64) for r in rows])
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    per_topic = max(1.0, settings.ingestion.documents_per_topic)
    labels = cluster_labels(vectors, max(1, math.ceil(len(rows) / per_topic)))
    doc_phrases = [{p: int(c) for p, c in (r["phrases"] or {}).items() if valid_name(p)} for r in rows]
    df: Counter[str] = Counter(p for d in doc_phrases for p in d)
    clusters = [Cluster(members=[i for i, lab in enumerate(labels) if lab == label])
                for label in sorted(set(labels.tolist()))]
    clusters.sort(key=lambda c: -len(c.members))
    for c in clusters:
        c.phrases = rank_phrases(c.members, doc_phrases, df, len(rows))
    languages = [Counter(rows[m]["language"] or "en" for m in c.members).most_common(1)[0][0] for c in clusters]
    names = [[rows[m]["filename"] for m in c.members] for c in clusters]
    if model is not None and clusters:
        try:
            by_language: dict[str, list[int]] = {}
            for i, lang in enumerate(languages):
                by_language.setdefault("zh" if lang == "zh" else "en", []).append(i)
            for lang, idx in by_language.items():
                model_names(model, [clusters[i] for i in idx], [names[i] for i in idx], lang)
        except Exception as exc:  # naming must never fail indexing
            log.warning("the chat model could not name the topics: %s", exc)
    stored: dict[str, dict[str, Any]] = {}
    for c, lang, doc_names in zip(clusters, languages, names, strict=True):
        offline = {page: describe(c, doc_names, page) for page in ("zh", "en")}
        c.descriptions = {**offline, **c.descriptions}  # the model's line in its language, ours in the other
        if not c.name:
            c.name = c.phrases[0] if c.phrases else ""
            c.description = offline["zh" if lang == "zh" else "en"]
        if not c.name:
            continue  # nothing nameable (a document of numbers): no topic rather than a bad one
        same = next((k for k in stored if related_names(c.name, k)), None)
        entry = stored.setdefault(same or c.name, {"name": same or c.name, "description": c.description,
                                                   "descriptions": c.descriptions, "documents": [],
                                                   "named_by": c.named_by})
        centre = vectors[c.members].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        for m in c.members:
            conf = round(float(np.clip(vectors[m] @ centre, 0.0, 1.0)), 4)
            entry["documents"].append((rows[m]["id"], rows[m]["version"], conf))
    result = list(stored.values())
    for entry in result:  # a merged near-duplicate: say how many documents there are now
        entry["document_count"] = len(entry["documents"])
    topic_store.replace_topic_links(db, kb, result)
    return result
