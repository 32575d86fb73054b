"""``graph.nodes.finalize.confidence_of``: what ``high`` promises of an answer built from several documents."""

from __future__ import annotations

from dropqa.graph.nodes.finalize import confidence_of
from dropqa.graph.state import Finding, Quality, State, Statement
from dropqa.retrieval.answerability import Asked, Decision
from dropqa.retrieval.hits import Hit


def _hit(node_id: str, document: str, content: str) -> Hit:
    return Hit(node_id=node_id, document_id=document, document_name=f"{document}.md", version=1,
               node_type="paragraph", section="s", breadcrumb=f"{document}.md > s", content=content, position=0,
               relevance=0.9, channels=["fulltext"])


def _state(answer: str, hits: list[Hit]) -> State:
    decision = Decision(probability=0.99, answerable=True, confidence="high", features={}, threshold=0.2)
    quality = Quality(weights={"判决": 3.0, "日期": 3.0}, decision=decision, asked=Asked())
    findings = [Finding(document=h.document_name, statements=[Statement(text=h.content, node_id=h.node_id)])
                for h in hits]
    return State(question="A和B的判决日期分别是什么？", hits=hits, answer=answer, answerable=True, quality=quality,
                 findings=findings)


def test_each_documents_line_must_state_what_is_asked_for_high():
    a = _hit("n1", "a", "判决日期：2023年8月10日")
    b_date = _hit("n2", "b", "判决日期：2023年10月15日")
    b_arrest = _hit("n3", "b", "2023年3月22日正式逮捕被告人柏某。")
    both = "各文档的相关内容：\na.md > s：判决日期：2023年8月10日 [1]\nb.md > s：判决日期：2023年10月15日 [2]"
    assert confidence_of(_state(both, [a, b_date])) == "high"
    # B's line is its arrest, not its judgement date: one document's line holding what is asked is not enough
    one = "各文档的相关内容：\na.md > s：判决日期：2023年8月10日 [1]\nb.md > s：2023年3月22日正式逮捕被告人柏某。 [2]"
    assert confidence_of(_state(one, [a, b_arrest])) == "medium"
    # the markers are the sources' order when it is given: [2] is pool index 0 here
    swapped = ("各文档的相关内容：\nb.md > s：2023年3月22日正式逮捕被告人柏某。 [1]\n"
               "a.md > s：判决日期：2023年8月10日 [2]")
    assert confidence_of(_state(swapped, [a, b_arrest]), listed=[1, 0]) == "medium"


def test_a_where_question_is_high_only_when_the_line_names_a_place():
    """"In which town was Barry Pepper born?" answered by his page's opening line: it holds "born" and his name,
    and a date of birth, but no town — not what ``high`` promises."""
    decision = Decision(probability=0.99, answerable=True, confidence="high", features={}, threshold=0.2)

    def state(line: str) -> State:
        hit = _hit("n1", "pepper", line)
        quality = Quality(weights={"town": 3.0, "born": 2.5}, decision=decision, asked=Asked())
        return State(question="In which town was Barry Pepper born?", hits=[hit],
                     answer=f"From the documents:\n{line} [1]", answerable=True, quality=quality,
                     findings=[Finding(document=hit.document_name, statements=[Statement(text=line, node_id="n1")])])

    assert confidence_of(state("Barry Robert Pepper (born April 4, 1970) is a Canadian actor; his town is unknown.")) \
        != "high"
    assert confidence_of(state("Pepper was born in the town of Campbell River, British Columbia.")) == "high"


def test_a_list_of_dates_is_no_sure_answer_to_when():
    """"第1舰队是何时解散的？" answered by the fleet's list of organisation dates: the date asked is somewhere among
    them (or not), and the line does not say which — ``medium`` at most; one date stated for what is asked stays
    ``high``."""
    decision = Decision(probability=0.99, answerable=True, confidence="high", features={}, threshold=0.2)

    def state(line: str) -> State:
        hit = _hit("n1", "fleet", line)
        quality = Quality(weights={"舰队": 3.0, "解散": 3.0}, decision=decision, asked=Asked())
        return State(question="第1舰队是何时解散的？", hits=[hit], answer=f"根据文档中的相关内容：\n{line} [1]",
                     answerable=True, quality=quality)

    listed = "第1舰队编制：1903年12月28日新编，1914年8月18日临时体制，1922年12月1日常设，1944年1月1日解散之前。"
    assert confidence_of(state(listed)) == "medium"
    assert confidence_of(state("第1舰队于1944年2月25日解散。")) == "high"


def test_an_aim_or_a_demand_is_no_sure_answer_to_what_was_done():
    """"晶澜光能2023年全年的组件出货量有多少？" answered by the report's target for the next year, and what a court
    awarded answered by what the plaintiff demanded: the line holds the asked words and a number, but not what
    was done — ``medium`` at most. A question asking the target may be answered ``high`` by it."""
    decision = Decision(probability=0.99, answerable=True, confidence="high", features={}, threshold=0.2)

    def state(question: str, line: str, weights: dict[str, float]) -> State:
        hit = _hit("n1", "report", f"2023年，行业竞争加剧。{line}")  # the passage names the year asked
        quality = Quality(weights=weights, decision=decision, asked=Asked())
        return State(question=question, hits=[hit], answer=f"根据文档中的相关内容：\n{line} [1]", answerable=True,
                     quality=quality, citations=[0])

    w = {"组件": 3.0, "出货量": 3.0}
    target = "公司的经营目标是全年组件出货量达到15GW以上，N型产品占比超过85%。"
    assert confidence_of(state("晶澜光能2023年全年的组件出货量有多少？", target, w)) == "medium"
    assert confidence_of(state("晶澜光能2023年全年的组件出货量有多少？", "2023年全年组件出货量9.8GW。", w)) == "high"
    assert confidence_of(state("晶澜光能2024年组件出货量的目标是多少？", f"2024年{target}", w)) == "high"
    demand = "原告要求公司停止生产并赔偿经济损失1.2亿元。"
    awarded = {"赔偿": 3.0, "法院": 1.0, "判决": 2.0}
    assert confidence_of(state("法院判决晶澜光能赔偿了多少钱？", demand, awarded)) != "high"


def test_uncited_passages_of_several_named_documents_take_turns():
    """"A 和 B 分别…": one scale can rank all of A's passages above B's; the list gives each its turn, each
    document's own search's best passages (``part``) first, the other documents' after them."""
    from dropqa.graph.nodes.finalize import taking_turns

    hits = [_hit("a1", "a", "x"), _hit("a2", "a", "x"), _hit("a3", "a", "x"), _hit("c1", "c", "x"),
            _hit("b1", "b", "x"), _hit("b2", "b", "x")]
    hits[5].metadata["part"] = "b"
    rest = list(range(len(hits)))
    assert taking_turns(hits, rest, ["a", "b"]) == [0, 5, 1, 4, 2, 3]
    assert taking_turns(hits, rest, ["a"]) == rest  # one document named: rank order
    assert taking_turns(hits, rest, ["a", "a"]) == rest


def test_the_last_places_go_to_the_passages_nearest_in_meaning_that_the_ranking_leaves_out():
    """Another hop's page shares few words with the question: the semantic search's nearest passages of documents
    the ranked list leaves out take its last places; cited passages are never cut."""
    from dropqa.graph.nodes.finalize import with_nearest

    hits = [_hit(f"p{i}", f"d{i}", "x") for i in range(8)]
    far = _hit("far", "e", "In Indiana, alcohol may be sold …")
    ranked = [1, 2, 3, 4, 5, 6, 7]
    # two of three nearest are of documents left out (the pool's 7th, ranked last; one no pool passage)
    head, extra = with_nearest(hits, [0], ranked, [hits[1], hits[7], far], top_k=5, slots=3)
    assert head == [1, 2, 7] and [h.node_id for h in extra] == ["far"]
    # nothing nearest: the ranking alone; nearest already listed: nothing moves
    assert with_nearest(hits, [0], ranked, [], top_k=5, slots=3) == ([1, 2, 3, 4], [])
    assert with_nearest(hits, [0], ranked, [hits[1], hits[2]], top_k=5, slots=3) == ([1, 2, 3, 4], [])
    # one more passage of a listed document is no other hop's page
    same = _hit("p1b", "d1", "more of d1")
    assert with_nearest(hits, [0], ranked, [same], top_k=5, slots=3) == ([1, 2, 3, 4], [])
    # only so many places: the nearest first
    assert with_nearest(hits, [0], ranked, [far, hits[7]], top_k=5, slots=1) == ([1, 2, 3], [far])
    assert with_nearest(hits, [0], ranked, [far, hits[7]], top_k=5, slots=0) == ([1, 2, 3, 4], [])
    # the cited fill the list: no place is left
    assert with_nearest(hits, [0, 1, 2], ranked, [far], top_k=3, slots=3) == ([], [])


def test_a_question_naming_a_year_is_high_only_from_a_passage_naming_it():
    """"公司2023年的净利润是多少？" answered from a subsidiary's table row that names no year: whose year's figure is
    it?"""
    decision = Decision(probability=0.99, answerable=True, confidence="high", features={}, threshold=0.2)
    quality = Quality(weights={"净利润": 3.0}, decision=decision, asked=Asked())
    row = _hit("n1", "r", "单位: 苏州模具 · 净利润（万元）: 2,860")
    answer = "根据文档中的相关内容：\n单位: 苏州模具 · 净利润（万元）: 2,860 [1]"

    def state(question: str, hit: Hit) -> State:
        return State(question=question, hits=[hit], answer=answer, answerable=True, quality=quality, citations=[0])

    assert confidence_of(state("公司2023年的净利润是多少？", row)) == "medium"
    dated = row.model_copy(update={"breadcrumb": "2023年度报告.docx > 子公司经营情况"})
    assert confidence_of(state("公司2023年的净利润是多少？", dated)) == "high"
    assert confidence_of(state("公司的净利润是多少？", row)) == "high"
