"""Shared fixtures: one embedded PostgreSQL per test session, a fresh database per test module.

Nothing is mocked: the embedded server is the real PostgreSQL 18 + pgvector that
DropQA runs on, started in a temporary folder.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """The embedded server runs as an unprivileged user when tests run as root, so its
    folder must be reachable by that user (pytest's own temp root is 0700)."""
    from dropqa.store.server import embedded_url

    folder = Path(tempfile.mkdtemp(prefix="dropqa-test-pg-"))
    folder.chmod(0o755)
    yield embedded_url(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _fresh_database(server_url: str, name: str) -> str:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return re.sub(r"/postgres\?", f"/{name}?", server_url, count=1)


@pytest.fixture(scope="module")
def database_url(pg_server_url: str, request: pytest.FixtureRequest) -> str:
    name = "t_" + re.sub(r"\W", "_", request.module.__name__.split(".")[-1])[:40] + "_" + uuid.uuid4().hex[:6]
    return _fresh_database(pg_server_url, name)


@pytest.fixture(scope="module")
def settings(database_url: str, tmp_path_factory: pytest.TempPathFactory):
    from dropqa.config import Settings

    return Settings(data_dir=tmp_path_factory.mktemp("data"), database_url=database_url)


@pytest.fixture(scope="module")
def services(settings) -> Iterator:
    from dropqa.services import Services

    svc = Services.open(settings)
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def indexer(services):
    from dropqa.ingestion.pipeline import Indexer

    return Indexer(services.db, services.settings, services.embedder)


@pytest.fixture(scope="module")
def indexed_examples(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/corpus, indexed once for the module."""
    from dropqa.ingestion.files import iter_files

    root = tmp_path_factory.mktemp("corpus")
    for f in EXAMPLES.iterdir():
        shutil.copy2(f, root / f.name)
    for path, key in iter_files([root], indexer.settings.ingestion.ignore_patterns):
        outcome = indexer.index_file(path, key)
        assert outcome.status == "indexed", (key, outcome.error)
    return root
