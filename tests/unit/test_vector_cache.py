"""The passage-vector cache (``models.embeddings.cache_dir``): a hit is bit-for-bit the model's vector, a
second store reads what the first computed, and a broken cache file never stops indexing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from dropqa.config import EmbeddingSettings
from dropqa.models.embeddings import LocalE5Embedder
from dropqa.models.vector_cache import CachedEmbedder, VectorCache, cached

TEXTS = ["核心数据库的恢复时间目标为 45 分钟。", "Full-time employees get 27 days of annual leave.", "短"]


@pytest.fixture(scope="module")
def model() -> LocalE5Embedder:
    return LocalE5Embedder(EmbeddingSettings(num_threads=1))


class Counting:
    """The real model, counting the passages it is asked to embed."""

    def __init__(self, inner: LocalE5Embedder):
        self.inner, self.name, self.dimensions, self.embedded = inner, inner.name, inner.dimensions, 0

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return self.inner.embed_passages(texts)


def test_a_cached_vector_is_the_models_and_is_computed_once(model: LocalE5Embedder, tmp_path: Path) -> None:
    plain = model.embed_passages(TEXTS)
    first, second = Counting(model), Counting(model)
    a = cached(first, tmp_path)
    assert isinstance(a, CachedEmbedder) and a.name == model.name and a.dimensions == model.dimensions
    assert np.array_equal(a.embed_passages(TEXTS), plain) and first.embedded == 3
    b = cached(second, tmp_path)  # another process's store, the same folder
    again = b.embed_passages([TEXTS[1], "A passage nobody embedded before.", TEXTS[0]])
    assert second.embedded == 1  # only the new passage reaches the model
    assert np.array_equal(again[0], plain[1]) and np.array_equal(again[2], plain[0])
    assert again.dtype == np.float32 and again.shape == (3, model.dimensions)
    assert np.array_equal(b.embed_query("恢复时间"), model.embed_query("恢复时间"))  # questions: not cached


def test_vectors_of_another_model_are_not_read(model: LocalE5Embedder, tmp_path: Path) -> None:
    cached(Counting(model), tmp_path).embed_passages(TEXTS)
    assert VectorCache(tmp_path, "other-model:384", 384).get(TEXTS) == {}
    assert VectorCache(tmp_path, model.name, 8).get(TEXTS) == {}  # a vector of the wrong length is a miss


def test_a_broken_cache_file_is_skipped_and_the_model_computes(model: LocalE5Embedder, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "passage-vectors.sqlite3").write_bytes(b"this is not a database" * 100)
    counting = Counting(model)
    embedder = cached(counting, tmp_path)
    assert np.array_equal(embedder.embed_passages(TEXTS), model.embed_passages(TEXTS)) and counting.embedded == 3
    assert "cache" in caplog.text
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(tmp_path / "passage-vectors.sqlite3").execute("SELECT 1 FROM vectors").fetchall()


def test_no_folder_no_cache(model: LocalE5Embedder) -> None:
    assert cached(model, None) is model
