"""A store made before knowledge bases opens with everything in ``default`` and answers the same.

``tests/fixtures/store_008/store.dump`` is ``pg_dump`` of a store written by the code before issue 25
(schema 008: the example corpus indexed, one document through the job queue, answers in the QA
history, a conversation), and ``answers.json`` is what that code answered; ``make_fixture.py`` beside
them makes both. The dump is restored into a fresh database and opened with today's code, which
applies migration 009.

The migration must not change what the store answers; the code since may (issue 21 made DropQA refuse
what the documents do not say). So the migrated store is held to what today's code answers from a store
it indexed itself from the same files (``shape``), and its node ids to the old store's own.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dropqa.config import Settings
from dropqa.runtime.loop import run_sync
from dropqa.runtime.run import answer_and_record, ask
from dropqa.services import Services
from dropqa.store import bases, qa
from dropqa.store.documents import list_documents
from dropqa.store.scope import Scope
from dropqa.store.server import client_binary
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_008"
OLD = json.loads((FIXTURE / "answers.json").read_text(encoding="utf-8"))


def shape(answer) -> dict:
    """What the migration must keep: the verdict, its confidence, the path taken, what the answer says and the
    sections it cites. Not node ids (another store has others), nor the order of the passages listed beside
    the cited ones, nor which of them a refusal names as closest: the migrated store keeps the vectors the
    old code embedded (from the embedding text of its time), and the nearest uncited passages may differ."""
    return {"answer": answer.answer if answer.answerable else None, "answerable": answer.answerable,
            "confidence": answer.confidence, "mode": answer.mode,
            "cited": [(s.document_name, s.section, s.version) for s in answer.sources if s.cited]}


def old_node_ids() -> set[str]:
    """Every node id the old code's answers cite or list: nodes of the old store."""
    answers = [*OLD["questions"].values(), OLD["follow_up"]]
    return {s["node_id"] for a in answers for s in a["sources"]}


@pytest.fixture(scope="module")
def migrated(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    restore = client_binary("pg_restore")
    if restore is None:
        pytest.skip("pg_restore is not shipped beside the embedded PostgreSQL")
    name = "t_migration_009"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = re.sub(r"/postgres\?", f"/{name}?", pg_server_url, count=1)
    done = subprocess.run([str(restore), "--no-owner", "--exit-on-error", "--dbname", url, str(FIXTURE / "store.dump")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(url) as conn:
        assert max(r[0] for r in conn.execute("SELECT version FROM schema_migrations")) == 8
    svc = Services.open(Settings(data_dir=tmp_path_factory.mktemp("migrated"), database_url=url))  # applies 009
    yield svc
    svc.close()


def test_everything_is_in_default(migrated: Services) -> None:
    with migrated.db.connection() as conn:
        assert max(r["version"] for r in conn.execute("SELECT version FROM schema_migrations")) == 9
        assert [(r["id"], r["name"]) for r in conn.execute("SELECT id, name FROM knowledge_bases")] == \
            [(DEFAULT_KB, "default")]
        for table in ("documents", "topics", "ingestion_jobs"):
            kbs = {r["kb_id"] for r in conn.execute(f"SELECT DISTINCT kb_id FROM {table}")}
            assert kbs == {DEFAULT_KB}, table
        assert {tuple(r["kb_ids"]) for r in conn.execute("SELECT kb_ids FROM qa_history")} == {(DEFAULT_KB,)}
        threads = {r["thread_id"] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
        assert threads == {f"{DEFAULT_KB}/t-1", f"{DEFAULT_KB}/t-2"}  # conversations were asked over default
        jobs = conn.execute("SELECT state FROM ingestion_jobs").fetchall()
        assert [j["state"] for j in jobs] == ["done"]
    docs = {d["source_key"] for d in list_documents(migrated.db, DEFAULT)}
    assert docs == {"aurora_handbook.md", "pricing.md", "云栖数据平台运维手册.md", "会议纪要_2025年4月.txt"}
    assert bases.list_bases(migrated.db)[0]["document_count"] == 4
    # the old answers stay in the history, visible to a reader of default and to nobody else
    assert len(qa.history(migrated.db, DEFAULT, limit=50)) == len(OLD["questions"]) + 3
    assert qa.history(migrated.db, Scope(kbs=(bases.create(migrated.db, "another")["id"],))) == []


@pytest.mark.parametrize("question", list(OLD["questions"]))
def test_it_answers_as_a_store_made_today_does(migrated: Services, services: Services, indexed_examples: Path,
                                               question: str) -> None:
    old = ask(migrated, question)
    assert shape(old) == shape(ask(services, question))
    with migrated.db.connection() as conn:
        kept = {str(r["id"]) for r in conn.execute("SELECT id FROM nodes WHERE id = ANY(%s::uuid[])",
                                                   ([s.node_id for s in old.sources],))}
    assert kept == {s.node_id for s in old.sources}  # the old store's own nodes, not new ones
    assert {s.node_id for s in old.sources} & old_node_ids() or not old.sources


def test_the_old_conversation_goes_on(migrated: Services, services: Services, indexed_examples: Path) -> None:
    """Thread t-1 had one turn when the store was made; its second turn answers as the same conversation
    does in a store made today."""
    follow_up = run_sync(answer_and_record(migrated, OLD["thread"][1], thread_id="t-1"))
    run_sync(answer_and_record(services, OLD["thread"][0], thread_id="today"))
    assert shape(follow_up) == shape(run_sync(answer_and_record(services, OLD["thread"][1], thread_id="today")))
    rows = qa.history(migrated.db, DEFAULT, thread_id="t-1")
    assert [r["question"] for r in rows] == [OLD["thread"][1], OLD["thread"][0]]
