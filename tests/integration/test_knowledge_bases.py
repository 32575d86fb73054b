"""Knowledge bases in the store: every read is held to its scope's bases, topics and jobs are per base,
deleting a base removes all of it in one transaction, and keys are kept hashed."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest

from dropqa.ingestion.worker import Worker
from dropqa.runtime.run import ask
from dropqa.store import bases, blobs, jobs, keys, nodes, qa, recall, search, topics
from dropqa.store import documents as doc_store
from dropqa.store.scope import Scope
from dropqa.text.segment import query_terms
from tests.conftest import EXAMPLES
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration
MARKER = "QUOKKA-7731"
SECRET = f"""# Beta secret plan

## Budget

The beta project's budget is 4.2 million, code name {MARKER}. The core database recovery time objective
for beta is 9 minutes.
"""


@pytest.fixture(scope="module")
def two_bases(services, indexer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``default`` holds the example corpus; ``beta`` holds the secret plan and a copy of pricing.md (the same
    bytes and the same key in two bases)."""
    beta = bases.create(services.db, "beta")["id"]
    root = tmp_path_factory.mktemp("bases")
    for f in EXAMPLES.iterdir():
        (root / f.name).write_bytes(f.read_bytes())
        assert indexer.index_file(root / f.name, f.name).status == "indexed"
    secret = root / "beta_secret_plan.md"
    secret.write_text(SECRET, encoding="utf-8")
    assert indexer.index_file(secret, secret.name, kb=beta).status == "indexed"
    copy = indexer.index_file(root / "pricing.md", "pricing.md", kb=beta)
    assert copy.status == "indexed"  # not "unchanged": another base's document is another document
    indexer.refresh_topics(DEFAULT_KB)
    indexer.refresh_topics(beta)
    return {"beta": beta, "scope": Scope(kbs=(beta,)), "secret": secret, "pricing_beta": copy.document_id}


def test_every_read_is_held_to_its_bases(services, two_bases) -> None:
    db, beta = services.db, two_bases["scope"]
    terms = query_terms(f"beta budget {MARKER}")
    assert not [r for r in search.fulltext(db, terms, DEFAULT, 20) if MARKER in r["content"]]
    assert [r for r in search.fulltext(db, terms, beta, 20) if MARKER in r["content"]]
    assert search.keyword(db, MARKER, "exact", False, DEFAULT, 5, 2000) == []
    assert search.keyword(db, MARKER, "exact", False, beta, 5, 2000)
    vec = services.embedder.embed_query("beta project budget").tolist()
    names = {r["document_name"] for r in search.semantic(db, vec, services.embedder.name,
                                                         services.embedder.dimensions, DEFAULT, 50)}
    assert "beta_secret_plan.md" not in names
    titles = {r["filename"] for r in recall.document_titles(db, DEFAULT)}
    assert titles == {"aurora_handbook.md", "pricing.md", "云栖数据平台运维手册.md", "会议纪要_2025年4月.txt"}
    assert {r["filename"] for r in recall.document_titles(db, beta)} == {"beta_secret_plan.md", "pricing.md"}
    [hit] = search.keyword(db, MARKER, "exact", False, beta, 5, 2000)
    node_id, doc_id = hit["node_id"], hit["document_id"]
    assert nodes.get_node(db, DEFAULT, node_id) is None and nodes.get_node(db, beta, node_id) is not None
    assert nodes.children(db, DEFAULT, node_id) == [] and nodes.outline(db, DEFAULT, doc_id, 1) == []
    assert doc_store.get_document(db, DEFAULT, doc_id) is None
    assert doc_store.list_versions(db, DEFAULT, doc_id) == []
    assert doc_store.version_file_hash(db, DEFAULT, doc_id, 1) is None
    assert not doc_store.forget_hash(db, DEFAULT, doc_id)
    assert {d["kb"] for d in doc_store.list_documents(db, Scope(kbs=(DEFAULT_KB, two_bases["beta"])))} == \
        {"default", "beta"}
    assert doc_store.count_documents(db, beta) == 2 and doc_store.count_documents(db, DEFAULT) == 4
    assert doc_store.count_documents(db, Scope(kbs=())) == 0  # no base: nothing at all


def test_the_same_file_in_two_bases_is_two_documents(services, two_bases) -> None:
    db = services.db
    mine = doc_store.find_by_key(db, DEFAULT_KB, "pricing.md")
    theirs = doc_store.find_by_key(db, two_bases["beta"], "pricing.md")
    assert mine["id"] != theirs["id"] and mine["file_hash"] == theirs["file_hash"]
    assert doc_store.find_by_hash(db, DEFAULT_KB, mine["file_hash"])["id"] == mine["id"]
    # deleting it in one base leaves the other, and its shared bytes, alone
    assert doc_store.mark_deleted(db, two_bases["beta"], "pricing.md")
    assert doc_store.find_by_key(db, DEFAULT_KB, "pricing.md")["deleted_at"] is None
    assert blobs.exists(db, mine["file_hash"])


def test_answers_never_cross_bases(services, two_bases) -> None:
    beta = two_bases["beta"]
    mine = ask(services, f"What is the budget of code name {MARKER}?")
    assert MARKER not in mine.answer and all(s.document_name != "beta_secret_plan.md" for s in mine.sources)
    theirs = ask(services, f"What is the budget of code name {MARKER}?", kbs=(beta,))
    assert theirs.answerable and "4.2 million" in theirs.answer
    both = ask(services, "核心数据库的恢复时间目标是多少？", kbs=(DEFAULT_KB, beta))
    assert {s.document_name for s in both.sources} & {"云栖数据平台运维手册.md"}


def test_a_conversation_is_its_bases_own(services, two_bases) -> None:
    """The same thread id asked over another base is another conversation: its follow-up does not see the
    first base's turn, and the history of one base does not show the other's."""
    from dropqa.runtime.loop import run_sync
    from dropqa.runtime.run import answer_and_record

    beta = two_bases["beta"]
    run_sync(answer_and_record(services, f"What is the budget of code name {MARKER}?", thread_id="shared", kbs=(beta,)))
    follow = run_sync(answer_and_record(services, "And its code name?", thread_id="shared"))
    assert MARKER not in follow.answer
    mine = qa.history(services.db, DEFAULT, thread_id="shared")
    assert [r["question"] for r in mine] == ["And its code name?"]
    assert all(MARKER not in str(r["response"]) for r in qa.history(services.db, DEFAULT, limit=500))
    theirs = qa.history(services.db, Scope(kbs=(beta,)), thread_id="shared")
    assert len(theirs) == 1 and qa.set_feedback(services.db, DEFAULT, theirs[0]["id"], "up", None) is None


def test_topics_and_jobs_are_per_base(services, two_bases) -> None:
    db, beta, scope = services.db, two_bases["beta"], two_bases["scope"]
    mine = topics.list_topics(db, DEFAULT, limit=100)
    theirs = topics.list_topics(db, scope, limit=100)
    assert theirs and {t["kb_id"] for t in theirs} == {beta} and {t["kb_id"] for t in mine} == {DEFAULT_KB}
    assert topics.get_topic(db, DEFAULT, theirs[0]["id"]) is None
    assert topics.topic_documents(db, DEFAULT, theirs[0]["id"]) == []
    with pytest.raises(topics.UnknownTopic):
        topics.merge_topics(db, DEFAULT, [theirs[0]["id"]], mine[0]["id"])
    with pytest.raises(topics.MergeError, match="different knowledge bases"):
        topics.merge_topics(db, Scope(kbs=(DEFAULT_KB, beta)), [theirs[0]["id"]], mine[0]["id"])
    # one key, two bases: two queues that do not wait for each other
    a = jobs.enqueue(db, DEFAULT_KB, "same.md", str(two_bases["secret"]))
    b = jobs.enqueue(db, beta, "same.md", str(two_bases["secret"]))
    assert a["id"] != b["id"]
    assert jobs.find(db, DEFAULT, b["id"]) is None and jobs.find(db, scope, b["id"])["kb"] == "beta"
    assert not jobs.cancel(db, DEFAULT, b["id"])
    assert {j["id"] for j in jobs.changed_since(db, DEFAULT, None, [a["id"], b["id"]])} == {a["id"]}
    worker = Worker(services)
    done = [worker.run_once(), worker.run_once()]
    assert {(j["kb_id"], j["state"]) for j in done} == {(DEFAULT_KB, "done"), (beta, "done")}
    assert doc_store.find_by_key(db, beta, "same.md")["kb_id"] == beta


def test_names_rename_and_the_fixed_default(services) -> None:
    db = services.db
    made = bases.create(db, "财务报告")
    assert bases.find(db, "财务报告")["id"] == made["id"]
    with pytest.raises(bases.BaseNameTaken):
        bases.create(db, "BETA")  # names ignore case
    for bad in ("", " ", "a/b", "-x", "x y", "a" * 65, "dropqa/hr"):
        with pytest.raises(bases.BadBaseName):
            bases.create(db, bad)
    assert bases.rename(db, "财务报告", "finance-2025")["name"] == "finance-2025"
    with pytest.raises(bases.DefaultBaseFixed):
        bases.rename(db, "default", "other")
    with pytest.raises(bases.DefaultBaseFixed):
        bases.delete(db, "Default")
    with pytest.raises(bases.UnknownBase):
        bases.resolve(db, ["finance-2025"], allowed=[DEFAULT_KB])  # exists, but not for this caller


def test_deleting_a_base_removes_all_of_it_in_one_transaction(services, indexer, tmp_path: Path) -> None:
    db = services.db
    gone = bases.create(db, "short-lived")["id"]
    own = tmp_path / "own.md"
    own.write_text("# Own\n\nOnly the short-lived base holds this sentence about otters.\n", encoding="utf-8")
    shared = tmp_path / "pricing.md"
    shared.write_bytes((EXAMPLES / "pricing.md").read_bytes())  # the same bytes as default's pricing.md
    assert indexer.index_file(own, "own.md", kb=gone).status == "indexed"
    assert indexer.index_file(shared, "pricing.md", kb=gone).status == "indexed"
    indexer.refresh_topics(gone)
    jobs.enqueue(db, gone, "own.md", str(own), blob=blobs.put(db, own.read_bytes()))
    from dropqa.runtime.loop import run_sync
    from dropqa.runtime.run import answer_and_record

    run_sync(answer_and_record(services, "What about otters?", thread_id="otters", kbs=(gone,)))
    own_hash = hashlib.sha256(own.read_bytes()).hexdigest()
    removed = bases.delete(db, "short-lived")
    assert removed["documents"] == 2 and removed["jobs"] == 1 and removed["answers"] == 1 and removed["topics"] >= 1
    with db.connection() as conn:
        for table, where in (("documents", "kb_id = %s"), ("topics", "kb_id = %s"), ("ingestion_jobs", "kb_id = %s"),
                             ("qa_history", "%s = ANY(kb_ids)")):
            assert conn.execute(f"SELECT count(*) AS n FROM {table} WHERE {where}", (gone,)).fetchone()["n"] == 0
        orphans = conn.execute("SELECT count(*) AS n FROM nodes n LEFT JOIN documents d ON d.id = n.document_id "
                               "WHERE d.id IS NULL").fetchone()["n"]
        threads = conn.execute("SELECT count(*) AS n FROM checkpoints WHERE thread_id LIKE %s",
                               (f"%{gone}%",)).fetchone()["n"]
    assert orphans == 0 and threads == 0
    assert not blobs.exists(db, own_hash)  # its own bytes are freed
    assert blobs.exists(db, hashlib.sha256(shared.read_bytes()).hexdigest())  # default still names these
    assert bases.find(db, "short-lived") is None


def test_keys_are_kept_hashed_and_revoked_at_once(services) -> None:
    db = services.db
    beta = bases.find(db, "beta")["id"]
    key, row = keys.create(db, "hr-team", "reader", [beta])
    assert key.startswith("dqa_") and len(key) > 40 and row["kbs"] == ["beta"] and row["key_prefix"] == key[:10]
    with db.connection() as conn:
        stored = conn.execute("SELECT * FROM api_keys WHERE name = 'hr-team'").fetchone()
    assert key not in str(dict(stored)) and stored["key_hash"] == hashlib.sha256(key.encode()).hexdigest()
    assert stored["last_used_at"] is None
    found = keys.authenticate(db, key, 60)
    assert found["role"] == "reader" and found["kb_ids"] == [beta]
    assert keys.list_keys(db)[0]["last_used_at"] is not None  # recorded on use
    assert keys.authenticate(db, key + "x", 60) is None
    with pytest.raises(keys.KeyNameTaken):
        keys.create(db, "hr-team", "reader", [beta])
    with pytest.raises(keys.BasesForRole):
        keys.create(db, "boss", "admin", [beta])  # an admin key uses every base
    with pytest.raises(keys.BasesForRole):
        keys.create(db, "nobody", "editor", [])
    with pytest.raises(keys.BadRole):
        keys.create(db, "x", "owner", [beta])
    keys.revoke(db, "hr-team")
    assert keys.authenticate(db, key, 60) is None  # the next request is refused
    with pytest.raises(keys.UnknownKey):
        keys.revoke(db, "hr-team")
    again, _ = keys.create(db, "hr-team", "editor", [beta, DEFAULT_KB])  # the name is free again
    assert keys.authenticate(db, again, 0)["role"] == "editor" and keys.any_key(db)
    assert uuid.UUID(str(keys.authenticate(db, again, 0)["id"]))


def test_a_watched_folder_fills_its_base(services, two_bases, tmp_path: Path) -> None:
    from dropqa.ingestion.watcher import Watcher

    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "w.md").write_text("# Watched\n\nA watched page about tides.\n", encoding="utf-8")
    watcher = Watcher(services.db, services.settings, [folder], two_bases["beta"])
    watcher.note(folder.resolve(), (folder / "w.md").resolve(), "index")
    assert watcher.flush(force=True) == 1
    [job] = jobs.list_jobs(services.db, two_bases["scope"], source_key="w.md")
    assert job["kb_id"] == two_bases["beta"] and job["kb"] == "beta"
    assert jobs.list_jobs(services.db, DEFAULT, source_key="w.md") == []
    assert jobs.cancel(services.db, two_bases["scope"], job["id"])
