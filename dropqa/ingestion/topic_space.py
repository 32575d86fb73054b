"""How alike two documents' subjects are, whatever their languages, and the groups that follows.

A document is two vectors:

- its **concepts** (:mod:`dropqa.text.concepts`: key terms and titles, Chinese translated into English with
  CC-CEDICT), weighed across the collection with TF-IDF (sublinear counts; only concepts two or more
  documents share);
- the mean of its passages' **embeddings** (multilingual e5).

Both carry the language as well as the subject: in e5 the language is the strongest direction, and a
translated bag keeps traces of its source (words the dictionary renders oddly). So each language's
documents are centred on their own mean before comparing — what is left is what sets a document apart from
the others *in its own language*, its subject. (A language with fewer than ``center_min_documents`` documents
is centred on the mean of all.) Centring assumes both languages cover similar subjects; where they do not
(English court judgements beside Chinese company rules) it would pair unrelated documents, so the
embeddings' language gap is removed only in part (``embedding_language_shift``), fitted against such a
corpus too. The similarity of two documents is
``concept_weight × concepts + (1 − concept_weight) × embeddings`` (cosines of the centred vectors), and the
documents are grouped by average-linkage agglomerative clustering cut at ``merge_distance``. A document
also carries another group's topic when it is nearly as close to that group as to its own
(``secondary_ratio``): a handbook with a section on passwords is also about security.

Pure numpy / SciPy: the fitting script (``benchmarks/topics_fit.py``) calls the same functions on
stored inputs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dropqa.config import TopicSettings


@dataclass
class Placement:
    """Each document's group (``labels``) and its links: ``links[i]`` = ``[(group, confidence)]``, its own
    group first (the highest confidence), then the other groups it also belongs to."""

    labels: list[int]
    links: list[list[tuple[int, float]]]


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def concept_matrix(bags: Sequence[Mapping[str, float]]) -> np.ndarray:
    """TF-IDF rows (``(1 + ln count) × ln((1 + n) / (1 + df))``) over the concepts at least two documents
    share, unit length; zero rows for empty bags. A concept of one document alone cannot make it like any
    other, but it would take a share of its row's length (the most: its IDF is the highest), so a document
    of many words of its own (a short English text, a table of names) would look unlike everything."""
    df: Counter[str] = Counter(t for bag in bags for t in bag)
    df = Counter({t: k for t, k in df.items() if k >= 2})
    vocab = {t: i for i, t in enumerate(sorted(df))}
    n = len(bags)
    m = np.zeros((n, max(1, len(vocab))))
    for row, bag in enumerate(bags):
        for term, count in bag.items():
            if count > 0 and term in vocab:
                m[row, vocab[term]] = (1.0 + math.log(count)) * math.log((1 + n) / (1 + df[term]))
    return _unit(m)


def center(m: np.ndarray, languages: Sequence[str], min_documents: int, shift: float = 1.0) -> np.ndarray:
    """Rows centred on the mean of all, with ``shift`` of the gap between their language's mean and that
    mean removed too (languages with ``min_documents`` rows or more; ``shift`` 1 = each language centred on
    its own mean), unit length again."""
    overall = m.mean(axis=0)
    out = m - overall
    for lang in set(languages):
        rows = [i for i, x in enumerate(languages) if x == lang]
        if len(rows) >= min_documents and len(rows) < len(languages):
            out[rows] -= shift * (m[rows].mean(axis=0) - overall)
    return _unit(out)


def similarity(bags: Sequence[Mapping[str, float]], vectors: Sequence[np.ndarray | None], languages: Sequence[str],
               settings: TopicSettings) -> np.ndarray:
    """The documents' pairwise subject similarity (−1…1). A document without an embedding yet (still being
    embedded) is compared on its concepts alone."""
    n = len(bags)
    concepts = center(concept_matrix(bags), languages, settings.center_min_documents)
    sim = concepts @ concepts.T
    have = [i for i, v in enumerate(vectors) if v is not None]
    if len(have) >= 2 and settings.concept_weight < 1.0:
        vecs = _unit(np.array([np.asarray(vectors[i], dtype=np.float64) for i in have]))
        vecs = center(vecs, [languages[i] for i in have], settings.center_min_documents,
                      settings.embedding_language_shift)
        embedded = sim.copy()
        embedded[np.ix_(have, have)] = vecs @ vecs.T
        sim = settings.concept_weight * sim + (1.0 - settings.concept_weight) * embedded
    np.fill_diagonal(sim, 1.0)
    return sim if n else np.zeros((0, 0))


def group(sim: np.ndarray, merge_distance: float) -> list[int]:
    """Average-linkage clusters of the similarity matrix: groups join while the mean distance between them is
    below ``merge_distance`` (labels 0…k−1, numbered in the order of their first document)."""
    n = len(sim)
    if n <= 2:
        return [0] * n if n and (n == 1 or 1.0 - sim[0, 1] < merge_distance) else list(range(n))
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    distance = np.clip(1.0 - (sim + sim.T) / 2.0, 0.0, None)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    # fcluster keeps merges at or below t; "below merge_distance" is at or below the float just under it
    flat = fcluster(tree, t=float(np.nextafter(merge_distance, -np.inf)), criterion="distance")
    first: dict[int, int] = {}
    return [first.setdefault(int(x), len(first)) for x in flat]


def place(sim: np.ndarray, settings: TopicSettings) -> Placement:
    """Groups, and each document's links with a confidence: ``(1 + mean similarity to its group's other
    documents) / 2`` for its own group (1 when it is alone), that scaled by the relative closeness for a
    second group it is at least ``secondary_ratio`` as close to."""
    labels = group(sim, settings.merge_distance)
    members: dict[int, list[int]] = {}
    for i, lab in enumerate(labels):
        members.setdefault(lab, []).append(i)
    links: list[list[tuple[int, float]]] = []
    for i, own in enumerate(labels):
        mates = [j for j in members[own] if j != i]
        if not mates:
            links.append([(own, 1.0)])
            continue
        closeness = float(sim[i, mates].mean())
        confidence = float(np.clip((1.0 + closeness) / 2.0, 0.0, 1.0))
        mine = [(own, round(confidence, 4))]
        if closeness > 0:
            for other, docs in members.items():
                if other == own or len(docs) < 2:
                    continue
                near = float(sim[i, docs].mean())
                if near >= settings.secondary_ratio * closeness:
                    mine.append((other, round(confidence * min(near / closeness, 0.99), 4)))
        links.append(sorted(mine, key=lambda x: -x[1]))
    return Placement(labels=labels, links=links)
