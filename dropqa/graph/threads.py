"""Conversations: the same graph compiled with a PostgreSQL checkpointer (langgraph-checkpoint-postgres).

A run with a ``thread_id`` keeps its state between questions, so a follow-up ("and in
2023?") is completed from the thread's last question. The checkpointer uses its own
small autocommit pool (what PostgresSaver requires) against the same database, and
creates its tables once per process (``setup()`` is idempotent).
"""

from __future__ import annotations

import threading
from typing import Any

from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from dropqa.graph.graph import build_graph
from dropqa.tools.services import Services

_lock = threading.Lock()
_compiled: dict[str, tuple[ConnectionPool, Any]] = {}


def threaded_graph(services: Services) -> Any:
    """The compiled graph with a checkpointer on ``services``' database (one per database URL)."""
    url = services.db.url
    with _lock:
        if url not in _compiled:
            db = services.settings.database  # same loss rules as the main pool: fail fast, reconnect
            pool = ConnectionPool(url, min_size=1, max_size=db.pool_max, open=True,
                                  check=ConnectionPool.check_connection, timeout=db.acquire_timeout_s,
                                  reconnect_timeout=max(5.0, db.acquire_timeout_s),
                                  kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                                          "connect_timeout": max(1, round(db.connect_timeout_s))})
            saver = PostgresSaver(pool)  # type: ignore[arg-type]
            saver.setup()
            _compiled[url] = (pool, build_graph().compile(checkpointer=saver, name="dropqa"))
        return _compiled[url][1]


def close_all() -> None:
    with _lock:
        for pool, _ in _compiled.values():
            pool.close()
        _compiled.clear()
