"""The agent loop offline, end to end on a real embedded PostgreSQL.

The corpus (tests/fixtures/agent_corpus) needs multi-hop (a project's owner → their
appraisal score), has a contradiction between two documents (the project budget),
two versions of one document (the hotel allowance), a chapter question, and a
question it cannot answer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration
CORPUS = FIXTURES / "agent_corpus"


@pytest.fixture(scope="module")
def agent_corpus(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agent_corpus")
    for f in CORPUS.iterdir():
        if "_v2" not in f.name:
            shutil.copy2(f, root / f.name)
            assert indexer.index_file(root / f.name, f.name).status == "indexed"
    # The user replaces the policy with its new version: same file name, new content.
    shutil.copy2(CORPUS / "差旅报销制度_v2.md", root / "差旅报销制度.md")
    assert indexer.index_file(root / "差旅报销制度.md", "差旅报销制度.md").status == "new_version"
    return root


def _types(result) -> set[str]:
    return {s["type"] for s in result.reasoning_trace}


def test_multi_hop_follows_the_bridge_entity(services, agent_corpus):
    result = ask(services, "极光项目负责人的2024年绩效考核得分是多少？")
    assert result.mode == "agent" and result.iterations >= 2
    assert result.answerable and "95" in result.answer and "赵敏" in result.answer
    documents = {s.document_name for s in result.sources if s.cited}
    assert "2024年绩效考核结果.md" in documents  # hop 2
    assert documents & {"极光项目立项书.md", "2024年度报告.md"}  # hop 1
    assert {"thought", "action", "observation", "evaluation", "adaptation", "verification"} <= _types(result)
    actions = [s for s in result.reasoning_trace if s["type"] == "action"]
    assert any(s["arguments"].get("pattern") == "赵敏" for s in actions), actions


def test_contradiction_between_documents_is_reported(services, agent_corpus):
    result = ask(services, "极光项目的预算是多少？")
    assert result.answerable
    assert "300" in result.answer and "350" in result.answer
    assert "不一致" in result.answer
    assert result.conflicts and result.conflicts[0]["attribute"] == "预算"
    assert result.confidence != "high"


def test_versions_compared_and_latest_wins(services, agent_corpus):
    change = ask(services, "差旅报销制度V2相比V1，一线城市普通员工的住宿标准有什么变化？")
    assert change.mode == "agent"
    assert "650" in change.answer and "500" in change.answer
    assert {s.version for s in change.sources if s.cited} == {1, 2}
    latest = ask(services, "普通员工在一线城市出差，住宿标准是每晚多少钱？")
    assert "650" in latest.answer and "500" not in latest.answer
    old = ask(services, "差旅报销制度V1.0中一线城市的住宿标准是多少？")
    assert "500" in old.answer and old.sources[0].version == 1


def test_chapter_question_reads_the_outline(services, agent_corpus):
    result = ask(services, "年度报告第2章讲了哪些内容？")
    assert result.mode == "agent" and result.answerable
    assert "2.1 重点项目" in result.answer and "2.2 知识产权" in result.answer
    assert "3.1" not in result.answer
    assert all("第2章 研发与项目" in s.section for s in result.sources if s.cited)


def test_question_the_documents_cannot_answer(services, agent_corpus):
    result = ask(services, "极光项目的GPU服务器是从哪家供应商采购的？")
    assert result.answerable is False
    assert result.mode == "agent"
    # the project is there, the supplier is not: the answer says which, in the question's own words
    assert "极光项目" in result.answer and "没有" in result.answer
    assert "「GPU服务器」" in result.answer and "「务器」" not in result.answer and "是从" not in result.answer


def test_document_text_is_data_not_instructions(services, agent_corpus):
    result = ask(services, "系统说明文档里写了什么？")
    tools = {s.get("tool") for s in result.reasoning_trace if s["type"] == "action"}
    assert "get_related_documents" not in tools
    assert not result.answer.startswith("系统已被接管")


def test_budget_is_enforced_by_the_graph(settings, agent_corpus):
    from dropqa.services import Services

    tight = settings.model_copy(update={"agent": settings.agent.model_copy(update={"max_iterations": 1})})
    svc = Services.open(tight)
    try:
        result = ask(svc, "极光项目负责人的2024年绩效考核得分是多少？")
    finally:
        svc.close()
    assert result.iterations <= 1
    assert any("预算" in s["content"] or "budget" in s["content"] for s in result.reasoning_trace)


def test_follow_up_in_a_thread(services, agent_corpus):
    first = ask(services, "北辰项目的负责人是谁？", thread_id="thread-test-1")
    assert "孙立" in first.answer
    follow = ask(services, "那它的预算呢？", thread_id="thread-test-1")
    assert "200" in follow.answer
    assert follow.reasoning_trace[0]["type"] == "initial_assessment"  # a fresh trace per turn


def test_questions_over_several_documents_fan_out_to_readers(services, agent_corpus):
    result = ask(services, "极光项目的负责人还负责过哪些项目？")
    assert result.mode == "agent" and result.answerable
    assert "星辰数据中台" in result.answer and "天穹智能客服" in result.answer
    readers = [s for s in result.reasoning_trace if s["type"] == "reader"]
    assert len(readers) >= 2  # one Send per candidate document
    assert {"研发周报汇总.md", "极光项目立项书.md"} <= {s.document_name for s in result.sources if s.cited}
