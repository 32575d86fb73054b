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
``concept_weight × concepts + (1 − concept_weight) × embeddings`` (cosines of the centred vectors). As
fitted, the concepts alone (``concept_weight`` 1): every passage's embedded text repeats its document's file
name and the people and company it names, so one company's documents look alike in the embeddings whatever
they are about.

The documents are grouped by spectral clustering of that similarity seen as a graph: each document is linked
to its ``neighbours`` most similar documents (0 = to all), a link weighing the similarity (negative ones none),
and the number of groups is where the eigenvalues of the graph's normalised Laplacian jump most (the eigengap:
k groups that are each well connected inside and weakly to the rest give k eigenvalues near 0, then a jump;
only the gaps after eigenvalues below 1 count).
Unlike a cut of an average-linkage tree at one distance, this weighs how a document is connected to a group
against how the groups hang together — several weak links to one group (the business results of one company
to its planning documents, through the projects and people they all name) no longer join it when the groups
are better separated otherwise. The groups are cut from the leading eigenvectors by a QR decomposition with
column pivoting (``cluster_qr``: deterministic, no random restarts). Spectral clustering puts every document in
some group; one no closer to the other documents of its group than to an average document of the collection
(its mean centred similarity to them at most ``alone_below``: a table of names and scores beside policies) is
a group of its own instead. A document also carries another group's topic when it is nearly as close to that
group as to its own (``secondary_ratio``): a handbook with a section on passwords is also about security.

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


def affinity(sim: np.ndarray, neighbours: int) -> np.ndarray:
    """The similarity graph: positive similarities only, no self-links; with ``neighbours`` > 0 only the links
    of each document to its ``neighbours`` most similar documents (kept when either end chose it)."""
    n = len(sim)
    a = np.clip((sim + sim.T) / 2.0, 0.0, None)
    np.fill_diagonal(a, 0.0)
    if 0 < neighbours < n - 1:
        nearest = np.argsort(-a, axis=1, kind="stable")[:, :neighbours]
        chosen = np.zeros((n, n), dtype=bool)
        chosen[np.repeat(np.arange(n), neighbours), nearest.ravel()] = True
        a = np.where(chosen | chosen.T, a, 0.0)
    return a


def _cluster_qr(vectors: np.ndarray) -> np.ndarray:
    """Rows of the spectral embedding to k groups (Damle, Minden and Ying 2019; as scikit-learn's
    ``assign_labels="cluster_qr"``): the k most independent rows by QR with column pivoting, each row to the
    one it is most aligned with."""
    from scipy.linalg import qr, svd

    k = vectors.shape[1]
    _, _, pivots = qr(vectors.T, pivoting=True)
    u, _, vt = svd(vectors[pivots[:k], :].T)
    return np.abs(vectors @ (u @ vt)).argmax(axis=1)


def group(sim: np.ndarray, neighbours: int, alone_below: float = 0.0) -> list[int]:
    """Spectral clusters of the similarity matrix (see the module's docstring): the graph of
    :func:`affinity`, as many groups as the largest gap between the eigenvalues of its normalised Laplacian
    says, a document without any link or no closer to its group's other documents than ``alone_below`` a
    group of its own (labels 0…k−1, numbered in the order of their first document)."""
    n = len(sim)
    a = affinity(sim, neighbours)
    degree = a.sum(axis=1)
    labels = np.full(n, -1)
    linked = np.flatnonzero(degree > 0)
    if len(linked) >= 2:
        root = np.sqrt(degree[linked])
        laplacian = np.eye(len(linked)) - a[np.ix_(linked, linked)] / np.outer(root, root)
        values, vectors = np.linalg.eigh(laplacian)
        # the largest gap after an eigenvalue below 1: one above says nothing of groups (a group's conductance,
        # the share of its links that leave it, is below 1), and its gaps would split the collection into
        # nearly one group per document
        clustered = max(1, int((values < 1.0).sum()))
        k = int(np.argmax(np.diff(values)[:clustered])) + 1
        labels[linked] = _cluster_qr(vectors[:, :k] / root[:, None]) if k > 1 else 0
    alone = [i for i in range(n) if labels[i] < 0 or not _close_to_group(sim, labels, i, alone_below)]
    for extra, i in enumerate(alone):
        labels[i] = n + extra
    first: dict[int, int] = {}
    return [first.setdefault(int(x), len(first)) for x in labels]


def _close_to_group(sim: np.ndarray, labels: np.ndarray, i: int, alone_below: float) -> bool:
    mates = [j for j in range(len(labels)) if j != i and labels[j] == labels[i]]
    return not mates or float(sim[i, mates].mean()) > alone_below


def place(sim: np.ndarray, settings: TopicSettings) -> Placement:
    """Groups, and each document's links with a confidence: ``(1 + mean similarity to its group's other
    documents) / 2`` for its own group (1 when it is alone), that scaled by the relative closeness for a
    second group it is at least ``secondary_ratio`` as close to."""
    labels = group(sim, settings.neighbours, settings.alone_below)
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
