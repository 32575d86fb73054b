"""Which questions fan out to one reader per document (graph.nodes.readers.readers_for)."""

from __future__ import annotations

from dropqa.answering.intent import Intent
from dropqa.config import AgentSettings, AnswerSettings
from dropqa.graph.nodes.readers import readers_for
from dropqa.graph.state import Quality, State
from dropqa.retrieval.answerability import Asked
from dropqa.retrieval.hits import Hit


def _hit(node: str, doc: str, relevance: float) -> Hit:
    return Hit(node_id=node, document_id=doc, document_name=f"{doc}.md", version=1, node_type="paragraph",
               section="s", breadcrumb=f"{doc}.md > s", content="Handover on May 5th, no major changes.",
               position=1, relevance=relevance, channels=["fulltext"])


def _state(asked: Asked) -> State:
    hits = [_hit("n1", "179_record", 0.5), _hit("n2", "184_record", 0.45)]
    return State(question="Based on the record of Parker General Hospital, what is the color of the patient's car?",
                 hits=hits, intent=Intent(kind="fact", aggregate=True),
                 quality=Quality(weights={"color": 2.0, "car": 2.0}, asked=asked))


def test_a_question_a_check_refuses_is_not_read_document_by_document():
    """The named subject's documents write neither colour nor car: ``answer`` says so; no reader quotes a
    handover note for it (as it did after the agent loop, which the refusal had started)."""
    absent = Asked(named=True, subjects=1, absent=0.9, missing=("color", "car"))
    assert readers_for(_state(absent), AnswerSettings(), AgentSettings()) == []
    held = Asked(named=True, subjects=1, absent=0.0)
    assert len(readers_for(_state(held), AnswerSettings(), AgentSettings())) == 2
