"""The OpenAI-compatible embedding provider against the scripted server: batches go out
concurrently and the vectors come back in the texts' order."""

from __future__ import annotations

import numpy as np

from dropqa.config import EmbeddingSettings
from dropqa.models.embeddings import OpenAIEmbedder
from tests.support.scripted_openai import ScriptedOpenAI, scripted_vector


def embedder(llm: ScriptedOpenAI, **kw) -> OpenAIEmbedder:
    return OpenAIEmbedder(EmbeddingSettings(provider="openai", model="scripted-embed", dimensions=8,
                                            base_url=llm.base_url, api_key="test-key", **kw))


def test_batches_are_sent_concurrently_and_kept_in_order():
    texts = [f"passage number {i} 第{i}段" for i in range(20)]
    with ScriptedOpenAI([], embedding_delay=0.3) as llm:
        vectors = embedder(llm, batch_size=3, concurrency=4).embed_passages(texts)
    assert vectors.shape == (20, 8)
    assert np.allclose(vectors, np.asarray([scripted_vector(t, 8) for t in texts]), atol=1e-5)
    assert sorted(len(r) for r in llm.embedding_requests) == [2, 3, 3, 3, 3, 3, 3]
    assert llm.max_embeddings_in_flight > 1


def test_concurrency_one_sends_one_request_at_a_time():
    texts = [f"text {i}" for i in range(7)]
    with ScriptedOpenAI([], embedding_delay=0.05) as llm:
        vectors = embedder(llm, batch_size=2, concurrency=1).embed_passages(texts)
    assert np.allclose(vectors, np.asarray([scripted_vector(t, 8) for t in texts]), atol=1e-5)
    assert len(llm.embedding_requests) == 4 and llm.max_embeddings_in_flight == 1
