"""Search functions and tools against the real index."""

from __future__ import annotations

import pytest

from dropqa.retrieval.answerability import decide
from dropqa.retrieval.search import hybrid_search
from dropqa.store import search
from dropqa.text.segment import query_terms
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration


def test_fulltext_ranks_the_section_with_all_terms_first(services, indexed_examples):
    rows = search.fulltext(services.db, query_terms("核心数据库 恢复时间目标 RTO"), DEFAULT, 5)
    assert "3.2 恢复演练" in rows[0]["breadcrumb"]
    assert {"rto", "核心"} <= set(rows[0]["matched"])


def test_semantic_search_crosses_wording(services, indexed_examples):
    vec = services.embedder.embed_query("How many vacation days do employees get?").tolist()
    rows = search.semantic(services.db, vec, services.embedder.name, services.embedder.dimensions, DEFAULT, 3)
    assert any("3.1 Annual Leave" in r["breadcrumb"] for r in rows)


def test_keyword_exact_regex_and_errors(services, indexed_examples):
    db, t = services.db, services.settings.database.regex_timeout_ms
    exact = search.keyword(db, "it-help@aurora.example", "exact", False, DEFAULT, 5, t)
    assert len(exact) == 1 and "5. Security" in exact[0]["breadcrumb"]
    regex = search.keyword(db, r"级别: P[0-9] \| 含义: 核心", "regex", True, DEFAULT, 5, t)
    assert regex and "2.2 告警分级" in regex[0]["breadcrumb"]
    with pytest.raises(search.BadPattern):
        search.keyword(db, "(unclosed", "regex", True, DEFAULT, 5, t)


def test_hybrid_relevance_separates_answerable_from_not(services, indexed_examples):
    good = hybrid_search(services, "核心数据库的RTO要求是多少？", DEFAULT)
    bad = hybrid_search(services, "公司食堂的午餐价格是多少？", DEFAULT)
    assert "3.2 恢复演练" in good.hits[0].section
    assert good.top_relevance > bad.top_relevance
    # the fitted answerability decision answers the one and refuses the other
    yes = decide(services.calibration.question, good.hits, good.terms, good.weights, "zh", unseen=good.unseen)
    no = decide(services.calibration.question, bad.hits, bad.terms, bad.weights, "zh", unseen=bad.unseen)
    assert yes.answerable and not no.answerable and yes.probability > no.probability
