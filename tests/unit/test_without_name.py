"""``graph.nodes.answer.without_name``: what a line of the subject's document is compared with in meaning."""

from __future__ import annotations

import pytest

from dropqa.graph.nodes.answer import without_name


@pytest.mark.parametrize(("question", "subject", "expected"), [
    # the name, run of words as written, goes; a subject word written alone stays ("general health condition")
    ("According to the hospitalization records of Richmond General Hospital, what is M. Young's general health "
     "condition?", {"richmond", "general", "hospital", "m", "young"},
     "According to the hospitalization records of , what is 's general health condition?"),
    ("According to the court judgment of Trenton, Vandalia, Court, who was the defendant?",
     {"trenton", "vandalia", "court"}, "According to the court judgment of , who was the defendant?"),
    ("根据丰穗农业科技股份有限公司的年报，公司2021年的营业收入是多少？", {"丰穗", "农业", "科技", "股份", "有限公司"},
     "根据 的年报，公司2021年的营业收入是多少？"),
    # short Chinese subject words are often what is asked too: they stay
    ("出差回来以后，多长时间内要提交报销？", {"出差", "报销"}, "出差回来以后，多长时间内要提交报销？"),
])
def test_the_subjects_name_is_taken_out(question: str, subject: set[str], expected: str) -> None:
    assert without_name(question, frozenset(subject)) == expected
