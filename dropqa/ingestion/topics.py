"""Document topics (seed 000 §5.3), clustered into topics shared across documents.

1. Names: with a chat model, 3–5 topic tags named by the model from the document's
   summary and keywords; offline (or when the request fails) jieba TF-IDF keywords.
2. Clustering: each name is normalised (NFKC, case, spaces) and embedded. It joins
   an existing topic when that topic has the same name (or is an alias of it), or
   when their name embeddings are close (cosine ≥ ``ingestion.topic_similarity``)
   *and* the names overlap lexically (one contains the other, or they share most
   character bigrams / words). Short-name embeddings of e5 alone are too coarse:
   "备份" and "报销" score 0.93, "信息安全" and "网络安全" 0.97.
   A joining name is stored as an alias row of the cluster, so the next document
   that uses it finds the cluster by name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from dropqa.ingestion.enrich import extract_topics
from dropqa.ingestion.llm import EnrichmentModel
from dropqa.ingestion.prompts import fill
from dropqa.models.embeddings import Embedder
from dropqa.store import documents as doc_store
from dropqa.store.db import Database
from dropqa.store.records import TopicRecord
from dropqa.text.sentences import truncate

MAX_NAME_CHARS = 40
_EDGE_PUNCT = re.compile(r"^[\s\W_]+|[\s\W_]+$")
_HAN = re.compile(r"[\u3400-\u9fff]")


def normalize_topic(name: str) -> str:
    text = unicodedata.normalize("NFKC", str(name)).strip().lower()
    text = _EDGE_PUNCT.sub("", " ".join(text.split()))
    return text[:MAX_NAME_CHARS]


def related_names(a: str, b: str) -> bool:
    """Lexical overlap strong enough that two close embeddings mean the same topic."""
    if a == b or (min(len(a), len(b)) >= 2 and (a in b or b in a)):
        return True
    if _HAN.search(a) or _HAN.search(b):
        grams_a, grams_b = _bigrams(a), _bigrams(b)
    else:
        grams_a, grams_b = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    if not grams_a or not grams_b:
        return False
    return len(grams_a & grams_b) / len(grams_a | grams_b) >= 0.5


def _bigrams(s: str) -> set[str]:
    s = re.sub(r"\s+", "", s)
    return {s[i : i + 2] for i in range(len(s) - 1)} or {s}


def keyword_topics(text: str, k: int) -> list[tuple[str, float]]:
    """Offline names: jieba TF-IDF keywords, weights 0–1."""
    return _dedupe([(normalize_topic(n), w) for n, w in extract_topics(text, k)])


def model_topics(model: EnrichmentModel, filename: str, summary: str, keywords: Sequence[str],
                 language: str) -> list[tuple[str, float]]:
    """3–5 names from the chat model, first = most representative; raises when the answer is unusable."""
    prompt = fill("topics", language, document=filename, summary=truncate(summary, 800) or "-",
                  keywords="、".join(keywords) if language == "zh" else ", ".join(keywords),
                  count="3 到 5" if language == "zh" else "3 to 5")
    (answer,) = model.json_many([prompt], "topics")
    if isinstance(answer, Exception):
        raise answer
    names = [normalize_topic(n) for n in answer if isinstance(n, str)]
    names = [n for n in names if len(n) >= 2 and not n.isdigit()][:5]
    if not names:
        raise ValueError("the model named no usable topic")
    return _dedupe([(n, round(1.0 - 0.1 * i, 3)) for i, n in enumerate(names)])


def cluster_topics(db: Database, embedder: Embedder, named: list[tuple[str, float]],
                   min_similarity: float) -> list[TopicRecord]:
    """Attach each name to an existing topic cluster when it is the same topic, else a new topic."""
    if not named:
        return []
    names = [n for n, _ in named]
    vectors = [v.tolist() for v in embedder.embed_passages(names)]
    known = doc_store.topic_clusters_named(db, names)
    similar = doc_store.similar_topics(db, embedder.name, vectors, min_similarity)
    out = []
    for (name, weight), vector, candidates in zip(named, vectors, similar, strict=True):
        cluster = known.get(name)
        if cluster is None:
            cluster = next((c["id"] for c in candidates if related_names(name, normalize_topic(c["name"]))), None)
        out.append(TopicRecord(name=name, confidence=weight, vector=vector, cluster_id=cluster))
    return out


def _dedupe(named: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Drop empty names and names that merely repeat a stronger one of the same document
    ("备份" after "数据备份"): they would link the same document to the same topic twice."""
    out: list[tuple[str, float]] = []
    for name, weight in named:
        if name and not any(related_names(name, kept) for kept, _ in out):
            out.append((name, weight))
    return out
