"""Typed graph state survives LangGraph's checkpoint serializer; every answer knob is a bounded setting;
the one prompt loader refuses a prompt with a placeholder nobody filled."""

from __future__ import annotations

import dataclasses
import typing

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import ValidationError

from dropqa.answering.consistency import ConflictNote
from dropqa.answering.followup import PastTurn
from dropqa.answering.intent import classify
from dropqa.answering.outline import Outline, OutlineEntry
from dropqa.config import AnswerSettings, Settings
from dropqa.evals.judge import Verdict, judgement_of
from dropqa.graph.state import THREAD_FIELDS, Evaluation, Finding, Quality, State, Statement, Turn
from dropqa.models import prompts
from dropqa.models.chat import ProviderUsage, Usage
from dropqa.retrieval.answerability import Decision
from dropqa.retrieval.hits import Hit


def _hit() -> Hit:
    return Hit(node_id="n1", document_id="d1", document_name="年报.docx", version=2, node_type="paragraph",
               section="第3章 > 3.2", breadcrumb="年报.docx > 第3章 > 3.2", content="新增授权发明专利37项。",
               position=4, page=7, relevance=0.81, channels=["fulltext"], metadata={"page": 7, "window_of": "n0"})


def test_typed_state_values_round_trip_through_the_checkpoint_serializer():
    serde = JsonPlusSerializer()
    values = {
        "hits": [_hit()],
        "intent": classify("第3章讲了什么？"),
        "quality": Quality(weights={"专利": 2.5}, unseen=["x"], translations={"专利": ["patent"]},
                           decision=Decision(probability=0.7, answerable=True, confidence="medium",
                                             features={"unseen": 0.0}, threshold=0.3)),
        "evaluation": Evaluation(verdict="low", new=2, top=0.4),
        "outline": Outline(document_id="d1", version=2, tree=[OutlineEntry(node_id="n1", depth=1, title="第3章")]),
        "conflicts": [ConflictNote(attribute="RTO", unit="分钟", description="a says 45, b says 30")],
        "findings": [Finding(document="年报.docx", statements=[Statement(text="37项", node_id="n1", where="2.2")])],
        "usage": Usage(prompt_tokens=3, completion_tokens=1,
                       by_provider={"m": ProviderUsage(prompt_tokens=3, completion_tokens=1, calls=1)}),
        "history": [PastTurn(question="q", query="q", answer="a")],
        "sources": [_hit().source(240, True)],
    }
    for key, value in values.items():
        back = serde.loads_typed(serde.dumps_typed(value))
        assert back == value and type(back) is type(value), key
    assert values["intent"].kind == "structure" and values["intent"].chapter == 3


def _changed(value):
    """A value of the same type as a field's default, but different from it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, "x"]
    if value is None:
        return "set by the last question"
    return value.model_copy(update={"top_relevance": 0.9}) if isinstance(value, Quality) else "changed"


def test_a_new_question_resets_every_turn_field():
    """A question's state never leaks into the next turn of a conversation: every field of State is either
    the thread's (THREAD_FIELDS) or the turn's, and Turn.reset() puts every turn field back."""
    state_fields = {f.name for f in dataclasses.fields(State)}
    turn_fields = {f.name for f in dataclasses.fields(Turn)}
    assert state_fields == turn_fields | THREAD_FIELDS, "a State field that is neither the turn's nor the thread's"
    last = State(question="q1")
    for name in turn_fields:
        setattr(last, name, _changed(getattr(last, name)))
    reset = Turn.reset()
    fresh = Turn()
    for name in turn_fields:
        assert name in reset, name
        if name in ("findings", "reasoning_trace", "usage"):  # emptied through their reducers
            continue
        assert reset[name] == getattr(fresh, name) != getattr(last, name), name
    assert reset["usage"].replace and reset["findings"][0]["type"] == reset["reasoning_trace"][0]["type"] == "__reset__"
    assert "messages" in reset and "history" not in reset and "question" not in reset


def test_state_defaults_need_no_get():
    state = State(question="q")
    assert state.hits == [] and state.quality.weights == {} and state.evaluation is None
    assert state.search_text == "q" and State(question="q", query="q2").search_text == "q2"


def test_every_answer_knob_has_a_description_and_bounds():
    for name, info in AnswerSettings.model_fields.items():
        assert info.description, name
        if typing.get_origin(info.annotation) is list:  # a set of named choices, bounded by its Literal
            assert typing.get_origin(typing.get_args(info.annotation)[0]) is typing.Literal, name
            continue
        bounds = {type(m).__name__ for m in info.metadata}
        assert {"Ge", "Le"} <= bounds, name
    with pytest.raises(ValidationError):
        AnswerSettings(required_kinds=["colour"])  # type: ignore[list-item]


def test_answer_knobs_reject_out_of_range_and_unknown_keys():
    with pytest.raises(ValidationError):
        AnswerSettings(support_share=1.5)
    with pytest.raises(ValidationError):
        Settings(answer={"suport_share": 0.3})  # type: ignore[arg-type]
    assert Settings(answer={"support_share": 0.3}).answer.support_share == 0.3  # type: ignore[arg-type]


def test_prompt_with_an_unfilled_placeholder_is_an_error():
    with pytest.raises(prompts.PromptError, match=r"\$question"):
        prompts.fill("dropqa.graph.prompts", "rewrite.en.md", {})
    text = prompts.fill("dropqa.graph.prompts", "rewrite.en.md", {"question": "What is RTO?"})
    assert "What is RTO?" in text and "$" not in text


def test_ingestion_prompt_must_use_exactly_its_placeholders():
    with pytest.raises(prompts.PromptError, match="must use exactly"):
        prompts.fill("dropqa.graph.prompts", "rewrite.en.md", {"question": "q"}, expected={"question", "extra"})


def test_judge_reads_a_structured_verdict():
    ok = judgement_of(Verdict(verdict="partial", reason="one of two"))
    assert (ok.score, ok.verdict, ok.reason, ok.error) == (0.5, "partial", "one of two", None)
