"""Passage vectors kept on disk by embedding model and text, shared by every store and process that points at
the same folder (``models.embeddings.cache_dir``): indexing a corpus a second time — into a fresh store for
``dropqa eval``, a benchmark, a test — reads its vectors instead of computing them again.

One SQLite file per folder (the standard library's ``sqlite3``, write-ahead log, so processes read while one
writes). A row is keyed by a SHA-256 of the model's name and the text; the vector is its float32 bytes, so a
hit is bit-for-bit the vector the model gave. A cache that cannot be opened or written is skipped with a
warning: the model computes, as without one."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)
_FILE = "passage-vectors.sqlite3"
_CHUNK = 500  # keys per SELECT (SQLite's parameter limit is far above)


class VectorCache:
    """``get``/``put`` of passage vectors of one model (``name``, ``dimensions``)."""

    def __init__(self, folder: Path, name: str, dimensions: int):
        self.name = name
        self.dimensions = dimensions
        self._lock = threading.Lock()
        folder.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(folder / _FILE, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")

    def _key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self.name}\0{text}".encode()).digest()

    def get(self, texts: list[str]) -> dict[int, np.ndarray]:
        """The cached vectors of ``texts``, by position."""
        keys = [self._key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), _CHUNK):
                part = keys[i : i + _CHUNK]
                rows = self._conn.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                          part).fetchall()
                for key, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape == (self.dimensions,):
                        found[key] = vector.copy()
        return {i: found[k] for i, k in enumerate(keys) if k in found}

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        rows = [(self._key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in zip(texts, vectors, strict=True)]
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.executemany("INSERT OR IGNORE INTO vectors (key, vector) VALUES (?, ?)", rows)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise


class CachedEmbedder:
    """An embedder whose passage vectors go through a :class:`VectorCache`; questions are embedded as before.
    Everything else (name, dimensions, the local model's lock) is the wrapped embedder's."""

    def __init__(self, inner: Any, cache: VectorCache):
        self._inner = inner
        self._cache = cache

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)

    def embed_query(self, text: str) -> np.ndarray:
        return self._inner.embed_query(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return self._inner.embed_passages(texts)
        try:
            cached = self._cache.get(texts)
        except sqlite3.Error as exc:
            log.warning("passage vector cache unreadable (%s): computing", exc)
            return self._inner.embed_passages(texts)
        missing = [i for i in range(len(texts)) if i not in cached]
        if missing:
            computed = self._inner.embed_passages([texts[i] for i in missing])
            try:
                self._cache.put([texts[i] for i in missing], computed)
            except sqlite3.Error as exc:
                log.warning("passage vector cache not written (%s)", exc)
            cached.update(zip(missing, computed, strict=True))
        return np.vstack([cached[i] for i in range(len(texts))]).astype(np.float32, copy=False)


def cached(inner: Any, folder: Path | None) -> Any:
    """``inner`` with its passage vectors cached in ``folder`` (None: as it is)."""
    if folder is None:
        return inner
    try:
        return CachedEmbedder(inner, VectorCache(Path(folder), inner.name, inner.dimensions))
    except (OSError, sqlite3.Error) as exc:
        log.warning("passage vector cache %s not usable (%s): vectors are computed every time", folder, exc)
        return inner
