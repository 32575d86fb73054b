"""graph.intent kind "locate": "Which section says …?" asks for a place in a document."""

import pytest

from dropqa.answering.intent import classify


@pytest.mark.parametrize("question", [
    "哪一章规定了伙食补助？",
    "哪个部分提到了加班费？",
    "伙食补助在哪里规定？",
    "Which section covers remote access?",
    "Which clause regulates overtime pay?",
    "What part of the contract covers termination?",
    "Where in the policy is password length defined?",
    "Where is the password length defined?",
])
def test_locate_questions(question):
    intent = classify(question)
    assert intent.kind == "locate"
    assert not intent.needs_loop  # answered by the fast path, like a fact
    assert intent.chapter is None


@pytest.mark.parametrize(("question", "kind"), [
    ("第三章讲了什么？", "structure"),
    ("What does section 3 cover?", "structure"),
    ("伙食补助标准是多少？", "fact"),
    ("Where is the office?", "fact"),  # "where is" without "defined/described/…" is a fact
    ("哪一页提到了伙食补助？", "page"),  # a page question stays a page question
    ("Which page mentions remote access?", "page"),
])
def test_not_locate(question, kind):
    assert classify(question).kind == kind


def test_chapter_named_with_a_locate_word_is_structure():
    intent = classify("第3章哪一节规定了伙食补助？")
    assert intent.kind == "structure" and intent.chapter == 3


def test_who_is_responsible_for_which_projects_is_not_locate():
    intent = classify("哪些项目由张三负责？")
    assert intent.kind != "locate"
    assert intent.kind == "aggregate" and intent.aggregate


def test_locate_round_trips_through_as_dict():
    intent = classify("Which section covers remote access?")
    assert type(intent).from_dict(intent.as_dict()).kind == "locate"


# Outline questions (what/which sections, 哪些章节) are structure, not locate: _LOCATE must not
# shadow _STRUCTURE (introduced in c9d40e5, these read as locate up to d69f5d3).
@pytest.mark.parametrize("question", [
    "What sections does the Information Security Policy have?",
    "What chapters are in the annual report?",
    "这份报告有哪些章节？",
    "年报包括哪些部分？",
])
def test_outline_questions_stay_structure(question):
    assert classify(question).kind == "structure"
