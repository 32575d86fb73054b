"""Which questions fan out to one reader per document (graph.nodes.readers.readers_for)."""

from __future__ import annotations

from dataclasses import replace

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


def test_a_reader_asked_for_a_value_of_a_kind_states_only_lines_that_give_one():
    """"Whose pulse rate was higher upon admission?": the record's admission note holds "admission", which the
    pulse line lacks, but gives no number; the reader states "Pulse: 90 bpm" alone."""
    from dropqa.graph.nodes.readers import _offline_statements

    def line(node: str, text: str, relevance: float) -> Hit:
        return _hit(node, "182_record", relevance).model_copy(update={"content": text, "subjects": ["J. Rodriguez"]})

    hits = [line("n1", "Post-Admission Course Records: First Course Record: Furuncle diagnosed on admission.", 0.9),
            line("n2", "Pulse: 90 bpm", 0.7)]
    reader = {"question": "According to the hospitalization records of Granville General Hospital and Kingsport "
                          "General Hospital, whose pulse rate was higher upon admission, J. Rodriguez or A. Davis?",
              "language": "en", "terms": ["pulse", "rate", "higher", "admission", "rodriguez"], "bridge": [],
              "document": "182_record.md", "hits": hits, "degraded": True, "deadline": 0.0,
              "subjects": ["rodriguez"], "named": True}
    statements = _offline_statements(reader, hits, AnswerSettings())
    assert [s.text for s in statements] == ["Pulse: 90 bpm"]


def test_a_reader_of_a_named_document_states_one_line_unless_told_more():
    """"两家公司2021年末的资产负债率分别是多少？": each named company's reader quotes its ratio line; the
    headcount line that also says "2021年末" is a look-alike (answer.reader_statements_named), not a second
    statement — a reader of an unnamed document may still state several."""
    from dropqa.graph.nodes.readers import _offline_statements

    def line(node: str, text: str, relevance: float) -> Hit:
        return _hit(node, "公司年报_制造_2", relevance).model_copy(update={"content": text})

    hits = [line("n1", "截至2021年12月31日，公司资产总额为71.36亿元，负债总额为33.04亿元，资产负债率为46.3%。", 0.9),
            line("n2", "截至2021年末，公司在职员工总数为3,860人，其中研发人员612人。", 0.8)]
    reader = {"question": "恒钧和锐衡两家公司2021年末的资产负债率分别是多少？", "language": "zh",
              "terms": ["恒钧", "锐衡", "2021", "年末", "资产负债率"], "bridge": [], "document": "公司年报_制造_2.txt",
              "hits": hits, "degraded": True, "deadline": 0.0, "subjects": ["锐衡"], "named": True}
    named = _offline_statements(reader, hits, AnswerSettings())
    assert [s.node_id for s in named] == ["n1"]
    several = _offline_statements(reader, hits, AnswerSettings(reader_statements_named=3))
    assert [s.node_id for s in several] == ["n1", "n2"]
    unnamed = _offline_statements({**reader, "named": False}, hits, AnswerSettings())
    assert [s.node_id for s in unnamed] == ["n1", "n2"]


def test_asked_each_judgements_date_its_reader_reads_where_it_signs_off_however_it_ranks():
    """"what were the judgment dates for F. Williams and G. Torres respectively?": each named judgement's closing
    passages (retrieve's ``signing_off``, channel ``closing``) reach its reader past ``reader_passages_named``."""
    def judgement(node: str, doc: str, relevance: float, channel: str = "fulltext") -> Hit:
        return _hit(node, doc, relevance).model_copy(update={"channels": [channel]})

    hits = [judgement(f"a{i}", "136_judgement", 0.9 - i / 100) for i in range(3)]
    hits += [judgement(f"b{i}", "122_judgement", 0.8 - i / 100) for i in range(3)]
    hits += [judgement("b9", "122_judgement", 0.1, "closing")]
    parts = [{"label": "F. Williams", "document_id": "136_judgement"},
             {"label": "G. Torres", "document_id": "122_judgement"}]
    state = State(question="What were the judgment dates for the defendants F. Williams and G. Torres respectively?",
                  hits=hits, intent=Intent(kind="fact", aggregate=True, parts=parts),
                  quality=Quality(weights={"judgment": 1.0, "dates": 1.0}, asked=Asked()))
    cfg = AnswerSettings(reader_passages_named=4)
    readers = {r["document"]: [h.node_id for h in r["hits"]] for r in readers_for(state, cfg, AgentSettings())}
    assert "b9" in readers["122_judgement.md"]
    other = replace(state, question="Who were the defense lawyers of F. Williams and G. Torres?")
    readers = {r["document"]: [h.node_id for h in r["hits"]] for r in readers_for(other, cfg, AgentSettings())}
    assert "b9" not in readers["122_judgement.md"]
