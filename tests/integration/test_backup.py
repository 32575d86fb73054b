"""pg_dump is the whole backup: a dump restored into a fresh server answers the same questions with the same
citations, and holds the documents' file bytes (a worker re-indexes from the restored database alone)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dropqa.config import Settings
from dropqa.ingestion.worker import Worker
from dropqa.runtime.run import ask
from dropqa.services import Services
from dropqa.store import blobs, jobs
from dropqa.store import documents as doc_store
from dropqa.store.server import client_binary, embedded_url
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration

QUESTIONS = [
    "核心数据库的恢复时间目标是多少？",
    "How many days of annual leave do full-time employees get?",
    "What does the Pro plan cost per month?",
    "星图计划的项目发起人是谁？",  # not in the corpus: "the documents do not contain this" must survive too
]


def _tool(name: str) -> str:
    path = client_binary(name)
    if path is None:
        pytest.skip(f"{name} is not shipped beside the embedded PostgreSQL")
    return str(path)


@pytest.fixture(scope="module")
def restored(settings, indexed_examples: Path) -> Iterator[Services]:
    """pg_dump of the module's database, restored into a database of a second, fresh embedded server."""
    folder = Path(tempfile.mkdtemp(prefix="dropqa-restore-"))
    folder.chmod(0o755)  # the embedded server runs as an unprivileged user when tests run as root
    dump = folder / "dropqa.dump"
    subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(dump), settings.database_url],
                   check=True, capture_output=True, timeout=300)
    server = embedded_url(folder / "server")
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute("CREATE DATABASE restored")
    url = server.replace("/postgres?", "/restored?", 1)
    r = subprocess.run([_tool("pg_restore"), "--no-owner", "--exit-on-error", "--dbname", url, str(dump)],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    svc = Services.open(Settings(data_dir=folder / "data", database_url=url))
    yield svc
    svc.close()
    shutil.rmtree(folder, ignore_errors=True)


def _shape(answer) -> tuple:
    return (answer.answer, answer.answerable, answer.confidence,
            [(s.document_name, s.section, s.version, s.cited) for s in answer.sources])


def test_restored_dump_answers_the_same(services, restored: Services) -> None:
    for question in QUESTIONS:
        before, after = ask(services, question), ask(restored, question)
        assert _shape(after) == _shape(before), question
    rto = ask(restored, QUESTIONS[0])
    assert rto.answerable and "45 分钟" in rto.answer
    assert rto.sources[0].document_name == "云栖数据平台运维手册.md" and rto.sources[0].section.endswith("3.2 恢复演练")


def test_restored_dump_holds_the_file_bytes(services, restored: Services, indexed_examples: Path) -> None:
    for path in sorted(indexed_examples.iterdir()):
        data = path.read_bytes()
        assert blobs.get(restored.db, blobs.digest(data)) == data, path.name
    # re-index one document from the restored database alone (its original file is not used)
    doc = doc_store.find_by_key(restored.db, DEFAULT_KB, "pricing.md")
    assert doc is not None
    doc_store.forget_hash(restored.db, DEFAULT, doc["id"])
    jobs.enqueue(restored.db, DEFAULT_KB, "pricing.md", "pricing.md",
                 blob=doc_store.version_file_hash(restored.db, DEFAULT, doc["id"], doc["current_version"]))
    done = Worker(restored, "restored").run_once()
    assert done is not None and done["state"] == "done" and done["outcome"] == "new_version", done
