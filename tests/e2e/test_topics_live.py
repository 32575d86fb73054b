"""Topics follow the documents at once (issue 24), through a real ``dropqa serve`` with its worker inside:
a deleted document leaves every topic before the DELETE answers — its name in no description, a topic of
it alone gone — and a re-indexed one carries topics for its new version as soon as its job is done. Topics
group across languages: the Chinese and English travel rules share one, so do the security rules."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.e2e.api_support import Server, dropqa_server, wait_for_jobs

pytestmark = pytest.mark.e2e
CORPUS = ROOT / "suites" / "topics_mixed" / "corpus"
FILES = ["travel_and_expense_policy.md", "expense_claim_guide.md", "云栖科技差旅报销规定.docx",
         "it_security_standard.md", "信息安全管理办法.md", "账号与密码安全规范.md",
         "database_backup_and_restore.md", "payments_service_runbook.md", "值班日志_2025年5月.md"]


def topics_by_document(server: Server) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """file name → its topics' names (most confident first), and the topics as listed."""
    listed = server.get("/api/topics").json()["topics"]
    per_doc: dict[str, list[tuple[float, str]]] = {}
    for t in listed:
        for d in server.get(f"/api/topics/{t['id']}").json()["documents"]:
            per_doc.setdefault(d["filename"], []).append((-d["confidence"], t["name"]))
    return {f: [n for _, n in sorted(v)] for f, v in per_doc.items()}, listed


def until(check: Any, seconds: float = 30.0) -> Any:
    deadline = time.time() + seconds
    while True:
        value = check()
        if value or time.time() > deadline:
            return value
        time.sleep(0.2)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with dropqa_server() as s:
        files = [("files", (name, (CORPUS / name).read_bytes())) for name in FILES]
        reply = s.post("/api/documents/upload", files=files, timeout=120).json()
        wait_for_jobs(s, [d["job_id"] for d in reply["documents"]], timeout_s=600)
        # the worker recomputes the topics once its queue has run empty
        assert until(lambda: len(topics_by_document(s)[0]) == len(FILES), 60), topics_by_document(s)
        yield s


def test_topics_group_across_languages(server: Server) -> None:
    per_doc, listed = topics_by_document(server)
    # the English security standard and the Chinese security rules share one topic (the narrower Chinese
    # password rules may keep a topic of their own in a base this small)
    security = {f: per_doc[f][0] for f in ("it_security_standard.md", "信息安全管理办法.md")}
    assert len(set(security.values())) == 1, per_doc
    travel = {f: per_doc[f][0] for f in FILES[:3]}
    assert len(set(travel.values())) == 1 and set(travel.values()) != set(security.values()), per_doc
    for t in listed:
        assert not any(Path(f).stem in (t["description"] or "") for f in FILES), t  # subjects, never file names
        assert not any(ext in t["name"] for ext in (".md", "docx", "pdf")), t


def test_deleting_a_document_updates_the_topics_before_the_answer(server: Server) -> None:
    docs = {d["filename"]: d for d in server.get("/api/documents").json()["documents"]}
    gone = "payments_service_runbook.md"
    before, _ = topics_by_document(server)
    alone = {t for t in before[gone] if not any(t in names for f, names in before.items() if f != gone)}
    r = server.delete(f"/api/documents/{docs[gone]['id']}")
    assert r.status_code == 200
    per_doc, listed = topics_by_document(server)  # no waiting: the DELETE recomputed them
    assert gone not in per_doc and set(per_doc) == set(FILES) - {gone}
    assert not alone & {t["name"] for t in listed}
    for t in listed:
        assert t["document_count"] >= 1 and "payments_service_runbook" not in (t["description"] or ""), t


def test_reindexing_a_document_moves_its_topics_to_the_new_version(server: Server) -> None:
    docs = {d["filename"]: d for d in server.get("/api/documents").json()["documents"]}
    doc = docs["信息安全管理办法.md"]
    before = server.get(f"/api/documents/{doc['id']}").json()
    assert before["topics"], before
    job = server.post(f"/api/documents/{doc['id']}/reindex").json()
    wait_for_jobs(server, [job["job_id"]], timeout_s=300)

    def new_version_topics() -> list[dict[str, Any]]:
        now = server.get(f"/api/documents/{doc['id']}").json()
        return now["topics"] if now["version"] == before["version"] + 1 else []

    topics = until(new_version_topics, 30)
    assert topics, server.get(f"/api/documents/{doc['id']}").json()
    assert topics[0]["name"] == before["topics"][0]["name"]
    per_doc, _ = topics_by_document(server)
    assert "信息安全管理办法.md" in per_doc
