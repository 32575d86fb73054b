"""Conversations: the one compiled graph, bound to a PostgreSQL checkpointer (langgraph-checkpoint-postgres).

A run with a ``thread_id`` keeps its state between questions, so a follow-up ("and in
2023?") is completed from the thread's last question. The checkpointer uses its own
small autocommit pool (what PostgresSaver requires) against the same database, and
creates its tables once per process (``setup()`` is idempotent). The graph is async, so it calls the
saver's async methods: :class:`ThreadedSaver` runs the sync ones in a worker thread, which keeps one
saver (and one pool) for the server's loop and for the background loop of synchronous callers.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg_pool import ConnectionPool

from dropqa.blocking import in_thread
from dropqa.graph.graph import graph
from dropqa.services import Services
from dropqa.store.db import Database


class ThreadedSaver(PostgresSaver):
    """``PostgresSaver`` whose async methods are its sync ones in a worker thread."""

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await in_thread(self.get_tuple, config)

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        found = await in_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return await in_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await in_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await in_thread(self.delete_thread, thread_id)


_lock = threading.Lock()
_compiled: dict[str, tuple[ConnectionPool, Any]] = {}


def threaded_graph(services: Services) -> Any:
    """The compiled graph bound to a checkpointer on ``services``' database (one per database URL): a copy
    of :data:`dropqa.graph.graph.graph` with its ``checkpointer`` set, not a second compilation."""
    url = services.db.url
    with _lock:
        if url not in _compiled:
            rules = Database.pool_rules(services.settings)  # the main pool's: fail fast, reconnect
            rules["kwargs"].update(autocommit=True, prepare_threshold=0)  # what PostgresSaver requires
            pool = ConnectionPool(url, min_size=1, max_size=services.settings.database.pool_max, open=True,
                                  **rules)
            saver = ThreadedSaver(pool)  # type: ignore[arg-type]
            saver.setup()
            _compiled[url] = (pool, graph.copy({"checkpointer": saver}))
        return _compiled[url][1]


def close_all() -> None:
    with _lock:
        for pool, _ in _compiled.values():
            pool.close()
        _compiled.clear()
