import pytest

from dropqa.answering.extractive import pick_sentences, states_law
from dropqa.config import AnswerSettings
from dropqa.retrieval.fusion import calibrate_similarity, coverage, idf_weights, rrf
from dropqa.retrieval.hits import Hit

CFG = AnswerSettings()


def hit(node_id: str, content: str = "", relevance: float = 0.0, channel: str = "fulltext",
        node_type: str = "paragraph") -> Hit:
    return Hit(node_id=node_id, document_id="d", document_name="doc.md", version=1, node_type=node_type,
               section="s", breadcrumb="doc.md > s", content=content, position=int(node_id.strip("n") or 0),
               relevance=relevance, channels=[channel])


def test_rrf_rewards_agreement_and_unions_channels():
    a = [hit("n1"), hit("n2"), hit("n3")]
    b = [hit("n3", channel="semantic"), hit("n4", channel="semantic")]
    fused = rrf([a, b], k=60)
    assert fused[0].node_id == "n3"
    assert fused[0].channels == ["fulltext", "semantic"]
    assert abs(fused[0].score - (1 / 63 + 1 / 61)) < 1e-9
    assert [h.node_id for h in fused] == ["n3", "n1", "n2", "n4"]


def test_idf_coverage_weighs_rare_terms():
    w = idf_weights({"星河": 90, "零售价": 0}, total=100)
    assert w["零售价"] > 5 * w["星河"]
    assert coverage(["星河"], w) < 0.2
    assert coverage(["星河", "零售价"], w) == 1.0


def test_similarity_calibration_clamps():
    assert calibrate_similarity(0.70, 0.8, 0.9) == 0.0
    assert calibrate_similarity(0.85, 0.8, 0.9) == pytest.approx(0.5)
    assert calibrate_similarity(0.99, 0.8, 0.9) == 1.0


def test_extractive_answer_picks_the_sentence_with_the_fact():
    hits = [
        hit("n1", "公司概况。2024年新增授权发明专利37项，累计达到215项。其他内容。", 0.9),
        hit("n2", "专利工作由法务部负责。", 0.5),
    ]
    w = {"发明专利": 2.0, "新增": 1.0, "2024": 1.0}
    picked = pick_sentences("2024年新增授权发明专利多少项？", list(w), w, hits, max_sentences=2, cfg=CFG)
    assert picked[0].text == "2024年新增授权发明专利37项，累计达到215项。"
    assert picked[0].hit_index == 0


def test_the_statute_appended_to_a_judgement_answers_only_a_question_about_the_law():
    hits = [hit("n1", "被告人计某某犯寻衅滋事罪，判处有期徒刑4年。\n参考法条如下：\n第二百九十三条\n"
                      "有下列寻衅滋事行为之一，破坏社会秩序的，处五年以下有期徒刑：纠集他人多次实施"
                      "寻衅滋事行为的。", 0.9),
            hit("n2", "2022年12月25日，被告人计某某在天悦KTV内寻衅滋事，殴打顾客赵某。", 0.5)]
    w = {"寻衅滋事": 2.0, "多次": 1.0, "实施": 1.0}
    picked = pick_sentences("计某某多次实施寻衅滋事行为的事实是什么？", list(w), w, hits, max_sentences=2, cfg=CFG)
    assert picked and not any("第二百九十三条" in p.text or "有下列" in p.text for p in picked)
    law = pick_sentences("寻衅滋事罪的法条是怎么规定的？", list(w), w, hits, max_sentences=3, cfg=CFG)
    assert any("有下列寻衅滋事行为之一" in p.text for p in law)
    # the rest of an appended statute, cut from its marker by a passage's end, is still the law: by its shape
    assert states_law("Those who steal public or private property in large amounts shall be sentenced to fixed-term "
                      "imprisonment of not more than three years")
    assert states_law("有下列寻衅滋事行为之一，破坏社会秩序的，处五年以下有期徒刑、拘役或者管制：")
    assert not states_law("被告人计某某犯寻衅滋事罪，判处有期徒刑4年。")  # the case's sentence
    assert not states_law("The defendant is sentenced to two years and fined 5,000 dollars.")


def test_colon_sentence_keeps_what_follows():
    hits = [hit("n1", "值班安排如下：\n4月5日：王磊\n4月6日：赵宏", 0.9, node_type="paragraph")]
    w = {"值班": 1.0, "安排": 1.0}
    picked = pick_sentences("值班安排是什么？", list(w), w, hits, max_sentences=1, cfg=CFG)
    assert picked[0].text.startswith("值班安排如下：") and "4月5日：王磊" in picked[0].text


def test_citation_renumbering_is_one_pass():
    from dropqa.graph.nodes.finalize import renumber_citations

    assert renumber_citations("a [2] b [3]", {1: 0, 2: 1}) == "a [1] b [2]"
    assert renumber_citations("x [1] y [4]", {0: 0, 3: 1}) == "x [1] y [2]"


def _page(node_id: str, doc: str, content: str, relevance: float) -> Hit:
    """A passage of its own document ``doc``."""
    return hit(node_id, content, relevance).model_copy(update={"document_id": doc, "document_name": f"{doc}.md",
                                                               "breadcrumb": f"{doc}.md > {doc}"})


def test_a_linked_document_completes_the_answer_but_a_look_alike_does_not():
    """"Where is the district Knott is part of located?": Knott's page names the Lake District; the Lake
    District's page (linked: named by the subject's own) says where, and follows however it scores. Another
    mountain's page, not linked, is never appended."""
    hits = [_page("n1", "knott", "Knott is a mountain in the northern part of the English Lake District.", 0.6),
            _page("n2", "skiddaw", "Skiddaw is a mountain located in the Lake District, in the UK.", 0.5),
            _page("n3", "lake", "It is located entirely within the county of Cumbria, in the UK.", 0.15)]
    w = {"district": 1.0, "knott": 1.5, "located": 1.2, "uk": 1.0}
    question = "Where is the district that Knott is part of located in the UK?"
    alone = pick_sentences(question, list(w), w, hits, 3, cfg=CFG, documents={"knott"}, complement=True)
    assert [p.hit_index for p in alone] == [0]
    linked = pick_sentences(question, list(w), w, hits, 3, cfg=CFG, documents={"knott"}, complement=True,
                            linked={"lake"})
    assert [p.hit_index for p in linked] == [0, 2]


def test_a_question_naming_no_document_is_not_padded_with_another_documents_line():
    """A question that names no document: a line of another document, in the question's language, that matches
    a word the quoted line lacks is a look-alike; in the other language it may be the answer, and is kept when it
    adds more of what is asked than the first line holds — else it is padding."""
    w = {"locomotives": 1.5, "passenger": 1.0, "trains": 1.0, "electric": 1.0}
    question = "Which country used non-condensing locomotives for passenger trains?"
    hits = [_page("n1", "steam", "Some non-condensing locomotives ran passenger trains in Britain.", 0.8),
            _page("n2", "nsb", "NSB El 13 is a Norwegian electric locomotive used for trains.", 0.6)]
    picked = pick_sentences(question, list(w), w, hits, 3, cfg=CFG, complement=True)
    assert [p.hit_index for p in picked] == [0]
    other_language = [hits[0], _page("n2", "nsb", "NSB El 13 是挪威的电力机车（electric trains）。", 0.6)]
    picked = pick_sentences(question, list(w), w, other_language, 3, cfg=CFG, complement=True)
    assert [p.hit_index for p in picked] == [0]  # adds "electric" beside a line holding three asked words
    weak_first = [_page("n1", "steam", "Some non-condensing locomotives were built in Britain.", 0.9),
                  _page("n2", "nsb", "NSB El 13 是挪威的电力列车（electric passenger trains）。", 0.2)]
    picked = pick_sentences(question, list(w), w, weak_first, 3, cfg=CFG, complement=True)
    assert [p.hit_index for p in picked] == [0, 1]


def test_two_questions_in_one_are_answered_from_two_documents():
    """"How long is the warranty, and how many hours does its battery last?": the FAQ gives one, the product sheet
    the other; neither line is the other's look-alike."""
    w = {"warranty": 3.0, "battery": 1.0, "survey": 0.5, "speed": 0.5}
    question = "How long is the warranty, and how long does the battery last at survey speed?"
    hits = [_page("n1", "sheet", "Battery endurance: 9 hours at survey speed.", 0.8),
            _page("n2", "faq", "Every glider comes with a warranty of 24 months from the delivery date.", 0.6)]
    picked = pick_sentences(question, list(w), w, hits, 3, cfg=CFG, complement=True)
    assert sorted(p.hit_index for p in picked) == [0, 1]


def test_what_a_record_states_by_value_is_read_in_the_line_introducing_the_person():
    """"罗某的职业是什么？": the judgement writes no 职业; the line introducing 罗某 says "现无业"."""
    w = {"罗某": 3.0, "职业": 2.0}
    hits = [hit("n1", "本判决下达之日起十日内，被告人罗某如不服本判决，有权向烟波市中级人民法院上诉。", 0.9),
            hit("n2", "被告人：罗某，男，1966年8月8日出生，汉族，烟波市人，住烟波市丝路街67号，现无业。", 0.5)]
    picked = pick_sentences("根据烟波市苹果区人民法院的判决书，罗某的职业是什么？", list(w), w, hits, 1, cfg=CFG,
                            complement=True)
    assert [p.hit_index for p in picked] == [1]


def test_a_line_of_labels_without_a_value_is_never_quoted():
    w = {"physical": 1.0, "examination": 1.0, "condition": 1.0}
    hits = [hit("n1", "Physical Examination: General Condition:", 0.9),
            hit("n2", "General condition at examination: alert and oriented, no acute distress.", 0.5)]
    picked = pick_sentences("What did the physical examination find about the general condition?", list(w), w,
                            hits, max_sentences=2, cfg=CFG, complement=True)
    assert [p.text for p in picked] == ["General condition at examination: alert and oriented, no acute distress."]


def test_a_sentence_cut_by_a_page_break_is_judged_whole():
    """The RTO is on the next page: the sentence that starts on this one is the answer, and the definition
    of RTO elsewhere adds nothing the question asks."""
    w = {"核心": 1.0, "数据库": 1.0, "rto": 2.0}
    hits = [hit("n1", "对于核心数据库服务，平台承诺RPO不超过15分钟，", 0.9),
            hit("n5", "RTO（恢复时间目标）：从故障发生到业务恢复所需的最长时间。", 0.6),
            hit("n2", "RTO不超过30分钟。数据库每日全量备份。", 0.5)]
    picked = pick_sentences("核心数据库服务的RTO是多少？", list(w), w, hits, max_sentences=3, cfg=CFG, complement=True)
    assert [p.text for p in picked] == ["对于核心数据库服务，平台承诺RPO不超过15分钟，"]


def test_a_second_value_of_the_kind_asked_is_not_appended_when_one_is_asked():
    """The hotel limit answers "每晚住宿最多能报多少"; the meal allowance (another amount, in another section, holding
    出差, which the limit's lines do not) is a look-alike. A question asking two values keeps both."""
    w = {"上海": 4.7, "出差": 3.4, "每晚": 5.8, "住宿": 3.8}
    hits = [hit("n1", "住宿费限额标准（单位：元/人·晚）。一线城市（北京、上海）普通员工750元。", 0.9),
            hit("n2", "第八条 出差期间伙食补助按每人每天100元包干，不再另行报销餐费。", 0.7)]
    one = pick_sentences("普通员工去上海出差每晚住宿最多能报多少钱？", list(w), w, hits, max_sentences=3, cfg=CFG,
                         complement=True)
    assert one and all(p.hit_index == 0 for p in one)
    w2 = {**w, "伙食": 4.0, "补助": 4.0}
    two = pick_sentences("普通员工去上海出差，每晚住宿和伙食补助分别能报多少钱？", list(w2), w2, hits, max_sentences=3,
                         cfg=CFG, complement=True)
    assert sorted(p.hit_index for p in two) == [0, 1]


def test_a_line_that_only_names_the_kind_of_document_is_not_appended():
    w = {"judgment": 1.7, "occupation": 2.4}
    hits = [hit("n1", "Occupation: Registered Nurse", 0.9),
            hit("n2", "This judgment was issued on 10 August 2023 by the court.", 0.9)]
    picked = pick_sentences("According to the court judgment, what was the occupation of T. Collins?", list(w), w,
                            hits, max_sentences=3, cfg=CFG, complement=True)
    assert [p.text for p in picked] == ["Occupation: Registered Nurse"]


def test_a_line_that_only_names_the_subject_does_not_answer_when_another_holds_what_is_asked():
    """"Who was the defendant?" of Riverside, Glenwood, Court's judgment: the closing line names the court and
    the judgment only; the sentence naming the defendant answers — with ``require_asked``, and without it too now
    that the kind of document ("judgment") counts as little as the court's name (``asked_terms``)."""
    w = {"riverside": 1.0, "glenwood": 1.0, "judgment": 1.7, "defendant": 1.5}
    hits = [hit("n1", "This judgment has been recorded under the authority of Riverside, Glenwood Court.", 0.95),
            hit("n2", "The defendant, X. Morgan, is hereby informed of her rights to appeal.", 0.6)]
    hits = [h.model_copy(update={"document_name": "131_Riverside, Glenwood, Court.md",
                                 "breadcrumb": "Riverside, Glenwood, Court > s"}) for h in hits]
    q = "According to the court judgment of Riverside, Glenwood, Court, who was the defendant?"
    picked = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=CFG, complement=True, require_asked=True)
    assert "X. Morgan" in picked[0].text
    plain = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=CFG, complement=True)
    assert "X. Morgan" in plain[0].text


def test_the_role_a_question_gives_its_subjects_is_not_asked():
    """A reader of M. Ward's judgment, for "what crimes did the defendants Q. Ruiz and M. Ward commit": the line
    naming the defendant ("Defendant: Name: M. Ward") says whose document it is, not which crime — "defendants"
    names the subjects as their names do (found before both names, the other document's too)."""
    w = {"hamilton": 1.0, "court": 0.5, "crimes": 1.8, "committed": 1.2, "defendants": 1.5, "ruiz": 2.0, "ward": 2.0}
    hits = [hit("n1", "Defendant: Name: M. Ward", 0.9),
            hit("n5", "This court finds M. Ward guilty of the crime of negligent homicide.", 0.7)]
    hits = [h.model_copy(update={"document_name": "127_Hamilton, Harrison, Court.md",
                                 "breadcrumb": "Hamilton, Harrison, Court > s", "subjects": ["M. Ward"]})
            for h in hits]
    q = "According to the judgment of Hamilton, Harrison, Court, what crimes were committed by the defendants " \
        "Q. Ruiz and M. Ward?"
    picked = pick_sentences(q, list(w), w, hits, max_sentences=3, cfg=CFG, complement=True, require_asked=True,
                            subjects=["ruiz", "ward"])
    assert [p.text for p in picked] == ["This court finds M. Ward guilty of the crime of negligent homicide."]
    assert picked[0].asked == {"crimes"}


def test_a_word_of_another_subjects_title_can_be_what_is_asked():
    """"阿夸弗雷斯卡是哪个国家运动员？": 运动员 is in another player's title ("杨昊 (足球运动员)"), and it is what the
    question asks of 阿夸弗雷斯卡's page: the sentence holding it answers."""
    w = {"阿夸": 2.0, "弗雷斯": 2.0, "国家": 1.0, "运动员": 1.2}
    hits = [hit("n1", "罗伯特·阿夸弗雷斯卡，意大利足球运动员，司职前锋。阿夸弗雷斯卡带有波兰血统。", 0.9)]
    hits = [h.model_copy(update={"document_name": "TRIAL_495.txt", "breadcrumb": "罗伯特·阿夸弗雷斯卡"}) for h in hits]
    picked = pick_sentences("阿夸弗雷斯卡是哪个国家运动员？", list(w), w, hits, max_sentences=1, cfg=CFG,
                            complement=True, require_asked=True, subjects=["阿夸", "弗雷斯", "运动员"])
    assert "意大利足球运动员" in picked[0].text


def test_role_words_name_a_subject_right_before_its_name():
    from dropqa.text.asked import role_words

    q = "what crimes were committed by the defendants Q. Ruiz and M. Ward?"
    assert role_words(q, ["ruiz", "ward"]) == {"defendants"}
    assert role_words("what is the general health condition of patients J. Rodriguez and X. Price?",
                      ["rodriguez", "price", "general"]) == {"patients"}
    assert role_words("根据判决书，被告人张某某的职业是什么？", ["张某某"]) == {"被告人"}
    assert role_words("Which company acquired Acme?", ["acme"]) == set()  # a verb before a name is asked
    assert role_words("Who founded Acme?", ["acme"]) == set()
    assert role_words("whose blood pressure is higher, L. Rogers or M. Young?", ["rogers", "young"]) == set()
    assert role_words("When did the country refuse to surrender Namibia?", ["namibia"]) == set()
    assert role_words("What did the company gain by acquiring Acme?", ["acme"]) == set()


def test_the_row_of_a_look_alike_item_is_not_quoted():
    """销售岗 has no monitor: the design role's row answers another question, and is not quoted."""
    w = {"销售": 1.0, "显示器": 1.5, "型号": 1.0}
    hits = [hit("n1", "岗位: 研发岗 · 显示器型号: Dell U2723QE\n岗位: 设计岗 · 显示器型号: BenQ SW272U", 0.9,
                node_type="table"),
            hit("n2", "岗位: 销售岗 | 标准机型: ThinkPad T14s Gen 5", 0.5, node_type="table")]
    picked = pick_sentences("销售岗配的显示器是什么型号？", list(w), w, hits, max_sentences=2, cfg=CFG, complement=True)
    assert not any("显示器型号" in p.text for p in picked)
    both = pick_sentences("研发岗和设计岗的显示器是什么型号？", list(w), w, hits, max_sentences=2, cfg=CFG)
    assert any("Dell" in p.text for p in both)


def test_a_row_about_the_subject_with_a_column_for_what_is_asked_beats_prose():
    """"What is the budget code of Falcon-03?": the register row's Budget code cell, not the note that names
    Falcon-03, "budget code" and another project's code."""
    w = {"budget": 1.0, "code": 1.0, "falcon": 2.0, "03": 2.0}
    hits = [hit("n1", "Falcon-03 was split out of Falcon-02 and given its own budget code. Work booked to "
                      "CC-4102-127 before 1 March stays with Falcon-02.", 0.8),
            hit("n2", "Project: Falcon-02 | Budget code: CC-4102-127\nProject: Falcon-03 | Budget code: CC-4215-036",
                0.68, node_type="table")]
    picked = pick_sentences("What is the budget code of Falcon-03?", list(w), w, hits, max_sentences=1, cfg=CFG,
                            complement=True)
    assert "CC-4215-036" in picked[0].text


def test_a_price_question_quotes_a_line_with_an_amount_when_one_has_it():
    w = {"专业": 1.0, "席位": 1.0, "nova": 0.5}
    hits = [hit("n1", "Nova 专业版的席位数可以在订阅期内增加。", 0.9),
            hit("n2", "专业版按席位计费，每席位每月69元。", 0.5)]
    picked = pick_sentences("Nova 专业版一个席位多少钱？", list(w), w, hits, max_sentences=1, cfg=CFG)
    assert "69元" in picked[0].text
    off = pick_sentences("Nova 专业版一个席位多少钱？", list(w), w, hits, max_sentences=1,
                         cfg=AnswerSettings(quote_kinds=[]))
    assert "69元" not in off[0].text


def test_a_word_the_first_quote_holds_as_its_documents_name_is_not_new_in_a_look_alike():
    """"What are the core working hours at Minglan?": the handbook's title holds "working", so its line asks only
    "core" and "hours" of it — a price list's 工作日 (working day) line adds nothing the quoted line does not hold."""
    handbook = hit("n1", "Our core working hours are 10:00 to 16:00, Monday to Friday.", 0.9).model_copy(update={
        "document_id": "h", "document_name": "handbook.md", "breadcrumb": "Working at Minglan > 1.2 Core hours"})
    row = "项目: 服务支持 | 专业版: 工作日在线客服 | 企业版: 专属客户成功经理，7×24小时响应"
    prices = hit("n2", row, 0.9).model_copy(update={
        "document_id": "p", "document_name": "定价说明.md", "breadcrumb": "Nova 3.0 价格说明 > 一、版本与价格"})
    w = {"core": 2.0, "working": 1.5, "hours": 1.5, "minglan": 1.0}
    tr = {"working": ["工作"], "hours": ["小时"], "core": ["核心"]}
    picked = pick_sentences("What are the core working hours at Minglan?", list(w), w, [handbook, prices], 3,
                            translations=tr, cfg=CFG, complement=True)
    assert [p.hit_index for p in picked] == [0]


def test_when_no_line_holds_a_word_of_what_is_asked_the_kind_of_answer_picks_the_line():
    """"判刑时间谁更长" of a judgement that writes 判处有期徒刑五年: no line holds 判刑 or 时间; the line with a length
    of time answers, not the appeal notice that names the defendant and the judgement most often."""
    w = {"尹某": 2.0, "判决书": 1.0, "判刑": 2.0, "时间": 1.0}
    hits = [hit("n1", "被告人尹某，如果不服本判决书，可以在接到判决书的第二日起十日内提出上诉。", 0.9),
            hit("n2", "本院判决如下：被告人尹某犯交通肇事罪，判处有期徒刑五年。", 0.7)]
    hits = [h.model_copy(update={"document_name": "100_判决书.md", "subjects": ["尹某"]}) for h in hits]
    q = "尹某和吕某某的判刑时间谁更长？"
    picked = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=CFG, subjects=["尹某", "吕某某"])
    assert "有期徒刑五年" in picked[0].text
    # a line that holds what is asked still wins over one that only holds an answer of the kind
    w = {"尹某": 2.0, "上诉": 2.0, "期限": 1.0}
    picked = pick_sentences("尹某的上诉期限有多久？", list(w), w, hits, max_sentences=1, cfg=CFG, subjects=["尹某"])
    assert "上诉" in picked[0].text


def test_a_judgements_date_is_the_line_it_signs_off_with():
    """"判决日期" holds no word of the line that gives it ("二〇二二年十月二十五日"): the judgement's own date is that
    line, not the opening's birth date nor the appeal notice that names the judgement."""
    hits = [
        hit("n1", "刑事判决书 被告人：尹某，女，1985年1月13日出生，汉族，公司职员。", 0.9),
        hit("n2", "被告人尹某如不服本判决，可在接到判决书之日起十日内提出上诉。", 0.8),
        hit("n3", "审判长：赵某\n书记员：金某\n二〇二二年十月二十五日", 0.3),
    ]
    w = {"判决": 0.5, "日期": 2.0, "尹某": 1.0}
    picked = pick_sentences("尹某的判决日期是什么时候？", list(w), w, hits, max_sentences=1, cfg=CFG)
    assert picked[0].text == "二〇二二年十月二十五日"


def test_another_subjects_capitalised_name_is_not_what_is_asked_of_this_document():
    """Reading Ashland's record for "… Southport General Hospital …, what are the diagnoses": "General Health
    Condition" holds a word of the other hospital's name, not the diagnosis."""
    hits = [
        hit("n1", "General Health Condition: Generally healthy", 0.9),
        hit("n5", "Preliminary Diagnosis:\n- Acute angle-closure glaucoma", 0.6),
    ]
    w = {"general": 1.0, "southport": 1.0, "diagnoses": 2.0, "ashland": 1.0}
    question = ("According to the hospitalization records of Ashland City Hospital and Southport General Hospital, "
                "what are the diagnoses of patients Q. Gomez and K. Mendoza?")
    picked = pick_sentences(question, list(w), w, hits, max_sentences=1, cfg=CFG,
                            subjects={"ashland", "southport", "general", "gomez", "mendoza"})
    assert picked[0].text.startswith("Preliminary Diagnosis:")


def test_who_is_older_is_answered_by_a_birth_date():
    """A judgement gives its defendant's age as a birth date, in none of the question's words."""
    hits = [
        hit("n1", "This court commenced these criminal proceedings against the defendant, J. Gonzalez, who is older "
                  "than her co-worker.", 0.9),
        hit("n5", "**Defendant:** J. Gonzalez\nDate of Birth: 11th August, 1964\nOccupation: Clerk", 0.5),
    ]
    w = {"older": 2.0, "gonzalez": 1.0}
    picked = pick_sentences("Who is older, J. Gonzalez or M. Harris?", list(w), w, hits, max_sentences=1, cfg=CFG,
                            require_asked=True)
    assert picked[0].text == "Date of Birth: 11th August, 1964"


def test_a_line_without_an_answer_of_the_kind_asked_does_not_follow_one_that_has_it():
    """"公司要求密码至少多少位？": the policy's "at least 14 characters" answers; an approval row of another
    document holding only the question's 要求 adds words, not an answer."""
    w = {"公司": 1.2, "要求": 3.6, "密码": 5.8, "至少": 4.7}
    row = hit("n2", "环节: 复核 | 签字人: 刘佳 | 日期: 2025-01-10 | 意见: 等级分布符合比例要求", 0.9, node_type="table")
    hits = [hit("n1", "Passwords must be at least 14 characters long.", 0.5),
            row.model_copy(update={"document_id": "e", "document_name": "2024年度绩效考核.xlsx"})]
    translations = {"密码": ["password", "passwords"], "至少": ["at least"]}
    picked = pick_sentences("公司要求密码至少多少位？", list(w), w, hits, max_sentences=3, cfg=CFG, complement=True,
                            translations=translations)
    assert [p.text for p in picked] == ["Passwords must be at least 14 characters long."]


def test_a_line_of_another_document_in_the_other_language_adding_less_than_the_answer_holds_is_padding():
    """"员工离职后，账号什么时候会被禁用？": the English policy line holds 离职, 账号 and 禁用 through their
    translations; the annual report's hiring line adds only 员工. A line adding more stays beside the first."""
    w = {"员工": 3.0, "离职": 2.0, "账号": 2.0, "禁用": 2.0}
    translations = {"离职": ["leaver", "leavers"], "账号": ["account", "accounts"], "禁用": ["disabled", "disable"]}
    report = hit("n2", "2024年公司新招聘员工318人，其中校园招聘156人。", 0.9)
    hits = [hit("n1", "Accounts of leavers are disabled by the end of their last working day.", 0.6),
            report.model_copy(update={"document_id": "e", "document_name": "年度工作报告.docx"})]
    picked = pick_sentences("员工离职后，账号什么时候会被禁用？", list(w), w, hits, max_sentences=3, cfg=CFG,
                            complement=True, translations=translations)
    assert [p.text for p in picked] == [hits[0].content]


def test_kind_first_keeps_the_line_of_the_kind_asked_however_well_another_scores():
    """A reader asked for each record's pulse keeps "Pulse: 90 bpm" though the admission note about the pulse
    scores higher by its words and its passage."""
    w = {"pulse": 3.0, "higher": 1.0}
    hits = [hit("n1", "The pulse was checked on admission and found higher than usual by the nurse.", 0.9),
            hit("n2", "Pulse: 90 bpm", 0.2)]
    q = "Whose pulse was higher, A. Reed or B. Cole?"
    money_only = CFG.model_copy(update={"required_kinds": ["money"]})  # a number is not a kind the answer must quote
    plain = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=money_only, complement=True)
    first = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=money_only, complement=True, kind_first=True)
    assert [p.text for p in first] == ["Pulse: 90 bpm"]
    assert [p.text for p in plain] == [hits[0].content]


def test_a_reader_wanting_a_value_keeps_the_line_giving_one_that_writes_no_asked_word():
    """"判刑时间谁更长" of one judgement: the verdict "判处有期徒刑四年" writes neither 判刑 nor 时间, the sentencing
    note's "犯罪时间" writes 时间; a reader of several named documents (``require_asked``, ``kind_first``) quotes the
    verdict, and without ``kind_first`` the line holding an asked word, as before."""
    w = {"判刑": 5.0, "时间": 2.0, "更长": 1.0}
    hits = [hit("n1", "在量刑过程中，本院充分考虑了柳某某的犯罪时间、犯罪方式、涉案金额和社会危害性等因素。", 0.7),
            hit("n2", "刑期：有期徒刑四年，并处罚金人民币50万元。", 0.5)]
    q = "柳某某和宋某的判刑时间谁更长？"
    first = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=CFG, require_asked=True, kind_first=True)
    assert [p.text for p in first] == ["刑期：有期徒刑四年，并处罚金人民币50万元。"]
    plain = pick_sentences(q, list(w), w, hits, max_sentences=1, cfg=CFG, require_asked=True)
    assert [p.text for p in plain] == [hits[0].content]
    # a line giving the value and an asked word is still the one: "逮捕日期" is answered by "…被依法逮捕"
    w = {"逮捕": 5.0, "日期": 2.0}
    hits = [hit("n1", "2022年6月15日立案调查，并依法提起公诉。", 0.9), hit("n2", "2022年8月1日，尹某被依法逮捕。", 0.4)]
    first = pick_sentences("唐某某和尹某的逮捕日期谁更早？", list(w), w, hits, max_sentences=1, cfg=CFG,
                           require_asked=True, kind_first=True)
    assert [p.text for p in first] == ["2022年8月1日，尹某被依法逮捕。"]


def test_the_reply_to_a_chat_message_that_asks_answers_in_its_words():
    """"原因查到了吗？" holds the question's 原因; the reply after it ("日志盘写满了") holds none of its words but is
    what answers: it is read with the message it answers, though it ranks below the passages read; the message
    that asks is no answer itself."""
    def message(node_id: str, content: str, relevance: float) -> Hit:
        return hit(node_id, content, relevance).model_copy(update={"metadata": {"speaker": content[:2]}})

    w = {"订单": 1.0, "服务": 1.0, "故障": 1.0, "原因": 2.0}
    hits = [message("n1", "王磊（08:47）：昨晚订单服务出故障了，影响大概40分钟。", 0.9),
            message("n2", "赵宏（08:49）：收到。原因查到了吗？", 0.5),
            message("n3", "王磊（08:53）：查到了。节点的日志盘写满了，请求全部超时。", 0.6)]
    picked = pick_sentences("订单服务故障的原因是什么？", list(w), w, hits, max_sentences=3, max_passages=2, cfg=CFG,
                            complement=True)
    assert any("日志盘写满了" in p.text for p in picked), [p.text for p in picked]


def test_asked_when_a_judgement_was_given_the_line_dating_it_is_quoted_not_an_incidents_date():
    w = {"judgment": 1.0, "dates": 1.0, "date": 1.0, "torres": 2.0}
    hits = [hit("n1", "3. **15th January 2023**: On this date, an officer bought goods from G. Torres.", 0.9),
            hit("n2", "This court rules.\n**Judgment Issued on 20th March 2023**  \nJudge Q. Martin", 0.3)]
    picked = pick_sentences("What was the judgment date for the defendant G. Torres?", list(w), w, hits,
                            max_sentences=1, cfg=CFG, complement=True)
    assert "20th March 2023" in picked[0].text, [p.text for p in picked]


def test_a_chat_messages_time_is_no_answer_to_when():
    """"员工离职后，账号什么时候会被禁用？": the policy line saying when, not a chat message for its "（16:40）"."""
    w = {"离职": 2.0, "账号": 2.0, "禁用": 2.0}
    hits = [hit("n1", "Accounts of leavers are disabled by the end of their last working day.", 0.9),
            hit("n2", "陈思源（16:40）：离职同事的账号由owner代管。", 0.5).model_copy(
                update={"metadata": {"speaker": "陈思源"}})]
    picked = pick_sentences("员工离职后，账号什么时候会被禁用？", list(w), w, hits, max_sentences=2, cfg=CFG,
                            complement=True)
    assert all(not p.of_kind for p in picked if "陈思源" in p.text), [p.text for p in picked]


def test_a_count_is_quoted_from_the_line_naming_what_is_counted():
    """"平台最多支持多少个租户？": the 租户 row of the indicators table, not the sentence counting a GPU's instances,
    which holds more of the question's words (单个, 最多, 支持)."""
    w = {"单个": 4.2, "最多": 4.7, "支持": 2.5, "租户": 3.8}
    hits = [hit("n1", "容器服务支持GPU共享调度，单个GPU最多可切分为7个实例。", 0.9),
            hit("n2", "指标: 平台最大租户数 | 数值: 800", 0.6)]
    picked = pick_sentences("平台单个集群最多支持多少个租户？", list(w), w, hits, max_sentences=2, cfg=CFG,
                            complement=True)
    assert [p.text for p in picked] == ["指标: 平台最大租户数 | 数值: 800"]
    # no line names what is counted: the lines are judged as before
    picked = pick_sentences("平台单个集群最多支持多少个节点？", list(w), w, hits, max_sentences=1, cfg=CFG)
    assert [p.text for p in picked] == [hits[0].content]


def test_of_the_lines_naming_what_is_counted_the_one_giving_a_count_is_quoted():
    """"截至2021年末公司共经营多少家门店？" of an English report: its opening line names the stores it runs
    ("community fresh-food stores") and is the closest passage; the line giving their number answers."""
    w = {"公司": 0.3, "经营": 2.0, "门店": 3.0}
    translations = {"门店": ["stores", "store"], "经营": ["operate", "operation"], "公司": ["company"]}
    hits = [hit("n1", "Pennybrook Fresh Markets Corp. (the Company) was founded in September 2012; its core "
                      "business is the operation of community fresh-food stores.", 0.9),
            hit("n2", "As at the end of 2021, the Company operated 538 stores, an increase of 137.", 0.5)]
    picked = pick_sentences("截至2021年末公司共经营多少家门店？", list(w), w, hits, max_sentences=2, cfg=CFG,
                            translations=translations, complement=True)
    assert [p.text for p in picked] == [hits[1].content]


def test_a_line_holding_only_a_light_asked_word_gives_way_to_one_holding_a_heavy_one():
    """"What was Pennybrook Fresh's revenue in fiscal 2021?": the report's opening line holds the subject's name and
    "the Company" (asked, but written in every line of the report) and is not quoted beside the revenue line."""
    w = {"pennybrook": 3.0, "fresh": 2.0, "company": 0.2, "revenue": 2.5, "fiscal": 0.9}
    # (the opening line names no year: one naming only another year than the question's is about that year)
    hits = [hit("n1", 'Pennybrook Fresh Markets Corp. ("the Company") was founded by two grocers.', 0.9),
            hit("n2", "In fiscal 2021, the Company achieved revenue of $1,214.8 million.", 0.5)]
    q = "What was Pennybrook Fresh's revenue in fiscal 2021?"
    subject = ["pennybrook", "fresh"]
    picked = pick_sentences(q, list(w), w, hits, max_sentences=3, cfg=CFG, require_asked=True, subjects=subject)
    assert [p.text for p in picked] == [hits[1].content]
    # every asked word counted alike, both are quoted — where the kind asked does not choose ("what was … revenue"
    # asks an amount: only the line giving one)
    # (the subject's words at 0.25 of their weight, as this case was written: lighter, the opening line scores below
    # answer.sentence_keep_share of the revenue line for that alone)
    every = CFG.model_copy(update={"salient_term_share": 0.0, "subject_weight": 0.25})
    told = "Tell me about Pennybrook Fresh's revenue in fiscal 2021."
    picked = pick_sentences(told, list(w), w, hits, max_sentences=3, cfg=every, require_asked=True, subjects=subject)
    assert len(picked) == 2
    picked = pick_sentences(q, list(w), w, hits, max_sentences=3, cfg=every, require_asked=True, subjects=subject)
    assert [p.text for p in picked] == [hits[1].content]
    # without a heavier line, the light one is what there is
    picked = pick_sentences(q, list(w), w, hits[:1], max_sentences=3, cfg=CFG, require_asked=True, subjects=subject)
    assert [p.text for p in picked] == [hits[0].content]


def test_a_line_about_another_year_is_not_added_to_an_answer_about_the_years_asked():
    """"What share of the Company's total sales came from online sales in fiscal 2021?": the outlook's "raise the
    share of online sales to more than 20%" in 2022 is another year's aim, not part of the answer; a question asking
    when may be answered by another year, though."""
    w = {"share": 2.0, "online": 3.0, "sales": 1.5, "total": 2.0, "fiscal": 0.8, "2021": 0.5}
    hits = [hit("n1", "Online sales accounted for 17.6% of the Company's total sales in fiscal 2021.", 0.9),
            hit("n2", "Looking ahead to 2022, the Company will raise the share of online sales to more than 20%.", 0.8)]
    q = "What share of the Company's total sales came from online sales in fiscal 2021?"
    picked = pick_sentences(q, list(w), w, hits, max_sentences=3, cfg=CFG, complement=True)
    assert [p.text for p in picked] == [hits[0].content]
    when = "When will the share of online sales planned in fiscal 2021 pass 20%?"
    picked = pick_sentences(when, list(w), w, hits, max_sentences=3, cfg=CFG, complement=True)
    assert hits[1].content in [p.text for p in picked]


def test_the_kind_of_document_a_question_names_picks_no_line():
    """"According to the hospitalization records of …, what are the diagnoses": "records" holds for every line of
    a record; the line labelled with what is asked is quoted, not the one listing other records."""
    terms = ["hospitalization", "records", "farmington", "diagnoses", "smith"]
    w = {"hospitalization": 2.0, "records": 2.0, "farmington": 3.0, "diagnoses": 3.0, "smith": 3.0}
    hits = [hit("n1", "Emergency Records: None Invasive Procedure Records: None Consultation Records: Infectious "
                      "disease specialist consulted, confirmed diagnosis and treatment plan.", 0.59),
            hit("n2", "Auxiliary Examination:\nUltrasound shows hepatosplenomegaly\nPreliminary Diagnosis:\n"
                      "Acute Schistosomiasis\nDiagnostic Basis:\nHistory of recent lake exposure", 0.43)]
    q = "According to the hospitalization records of Farmington City Hospital, what are the diagnoses of A. Smith?"
    picked = pick_sentences(q, terms, w, hits, max_sentences=1, cfg=CFG, require_asked=True, kind_first=True)
    assert [p.text for p in picked] == ["Preliminary Diagnosis: Acute Schistosomiasis"]


def test_a_summary_does_not_quote_the_line_saying_what_the_report_covers():
    w = {"summarise": 3.0, "significant": 3.0, "events": 3.0, "2021": 1.0}
    hits = [hit("n1", "This report summarises the Company's operations, significant events and financial "
                      "performance for fiscal 2021.", 0.9),
            hit("n2", "In March 2021, the Company acquired a 70% equity interest in Ellery Seed Company, a "
                      "significant step for its seed business.", 0.7)]
    q = "According to the annual report, summarise the significant events of the Company in 2021."
    picked = pick_sentences(q, list(w), w, hits, max_sentences=2, cfg=CFG, complement=True)
    assert [p.hit_index for p in picked] == [1]
    # asked what the report covers, that line is the answer
    q2 = "What significant events does the report cover for 2021?"
    assert 0 in [p.hit_index for p in pick_sentences(q2, list(w), w, hits, max_sentences=2, cfg=CFG)]


def test_a_label_in_the_other_language_marks_the_line_stating_what_is_asked():
    """"What is the occupation of patient 彭某某?" of a Chinese record: "职业及工作条件：软件工程师" states it — its
    label holds occupation's translation — and "patient" is the role the question gives 彭某某, not something asked
    of the record: "病重（病危）患者护理记录：无", which holds only 患者, is not quoted before it."""
    w = {"occupation": 5.0, "patient": 3.0, "某某": 2.0}
    hits = [hit("n1", "病重（病危）患者护理记录：无", 0.6), hit("n2", "职业及工作条件：软件工程师，工作压力较大", 0.5)]
    translations = {"occupation": ["职业"], "patient": ["患者", "病人"]}
    picked = pick_sentences("What is the occupation of patient 彭某某 at 梅雨市第一人民医院?", list(w), w, hits,
                            max_sentences=2, cfg=CFG, complement=True, translations=translations, require_asked=True)
    assert [p.text for p in picked] == ["职业及工作条件：软件工程师，工作压力较大"]


def test_a_name_saying_which_document_is_meant_picks_no_line_of_it():
    """"the hosting agreement with Northbeam": Northbeam says which agreement (``Asked.subject``); the opening line
    writing the party's name out is no answer to how long the initial term is — the term clause is."""
    from dropqa.answering.compose import extractive
    from dropqa.text.asked import title_case_names

    q = "How long is the initial term of the hosting agreement with Northbeam?"
    assert title_case_names(q) == {"northbeam"}
    assert title_case_names("What is the RPO of the Kestrel Payments Gateway?") == {"kestrel", "payments", "gateway"}
    w = {"initial": 1.6, "term": 1.5, "hosting": 2.8, "agreement": 2.4, "northbeam": 3.1}
    hits = [hit("n1", 'This Managed Hosting Services Agreement is made on 20 February 2025 between Northbeam '
                      'Hosting Ltd. and Minglan Software Co., Ltd.', 0.64),
            hit("n2", "Signed for and on behalf of Northbeam Hosting Ltd.: Daniel Ho, Managing Director.", 0.6),
            hit("n3", "3.1 This Agreement starts on the Effective Date and continues for an initial term of "
                      "twenty-four (24) months.", 0.55)]
    hits = [h.model_copy(update={"document_name": "contract.pdf", "breadcrumb": "MANAGED HOSTING SERVICES AGREEMENT"})
            for h in hits]
    composed = extractive("en", q, list(w), w, hits, 3, cfg=CFG, documents={"d"},
                          subjects={"hosting", "agreement", "northbeam"})
    assert composed is not None and "twenty-four (24) months" in " ".join(composed.lines)
    assert "Daniel Ho" not in " ".join(composed.lines) and "20 February" not in " ".join(composed.lines)


def test_a_word_naming_the_document_in_the_other_language_is_no_asked_word():
    """"Ashland, Charleston法院审理的…案中，被告T. Collins的职业是什么？": 法院 is the "Court" of the judgement's
    name, in translation — it names the document as "Ashland" does, so "Court Clerk: Ashland, Charleston,
    Procuratorate" states nothing asked."""
    from dropqa.answering.extractive import asked_terms

    doc = hit("n1", "**Court Clerk:** Ashland, Charleston, Procuratorate").model_copy(
        update={"document_name": "126_judgement.md", "breadcrumb": "Ashland, Charleston, Court > Title"})
    w = {"法院": 2.0, "职业": 3.0, "被告": 1.0}
    ask = asked_terms(doc, w, 0.1, translations={"法院": ["court", "law court"], "职业": ["occupation"]})
    assert ask["法院"] == pytest.approx(0.2) and ask["职业"] == 3.0
    assert asked_terms(doc, w, 0.1)["法院"] == 2.0  # without its translations it is a word like any other


def test_the_word_a_question_asks_for_names_no_document_in_the_other_language():
    """费用 of "主机托管服务合同每个月的费用是多少？" is what is asked of a contract that defines its "Monthly
    Fee", not a name of it; 交通肇事 of "交通肇事案中，…被判处几年有期徒刑？" names the case as the judgement's
    "Crime of Traffic Accident" does, and 法院 the court."""
    from dropqa.answering.extractive import naming_translations

    assert naming_translations("主机托管服务合同每个月的费用是多少？", {"费用": ["fee"], "合同": ["contract"]}) == {
        "合同": ["contract"]}
    case = {"交通肇事": ["traffic accident"], "法院": ["court"], "职业": ["occupation"]}
    question = "Lakewood, Pinehurst法院审理的交通肇事案中，被告M. Bennett被判处几年有期徒刑？"
    assert set(naming_translations(question, case)) == {"交通肇事", "法院", "职业"}
    assert set(naming_translations("Ashland, Charleston法院审理的案中，被告T. Collins的职业是什么？", case)) == {
        "交通肇事", "法院"}


def test_a_line_stating_the_one_value_asked_under_its_label_is_quoted_alone():
    """"过敏史：对青霉素过敏。" answers which drug the patient is allergic to under its label: the treatment note of
    another passage, which holds 药物 too, is a look-alike and not quoted beside it — unless the question asks a count
    the reader makes by listing (几项), whose items any passage may give."""
    hits = [hit("n1", "过敏史：对青霉素过敏。", 0.8), hit("n2", "患者曾在当地诊所口服止痛药物，效果不佳。", 0.7)]
    w = {"药物": 3.0, "过敏": 3.0}
    picked = pick_sentences("患者对哪种药物过敏？", list(w), w, hits, 3, cfg=CFG, complement=True)
    assert [p.text for p in picked] == ["过敏史：对青霉素过敏。"] and picked[0].labelled
    unlabelled = [hit("n1", "患者对青霉素过敏。", 0.8), hits[1]]
    picked = pick_sentences("患者对哪种药物过敏？", list(w), w, unlabelled, 3, cfg=CFG, complement=True)
    assert len(picked) == 2 and not picked[0].labelled  # a line without its label does not close the answer


def test_a_passage_about_another_year_does_not_answer_for_the_year_asked():
    """"公司2023年的净利润是多少？" of a report on 2024: its "实现净利润1.27亿元" is 2024's, not an answer; a passage
    naming no year (a section of the report) still answers, and so does one naming the year asked."""
    w = {"净利润": 2.5, "利润": 2.0}
    report = [hit("n1", "2024年，公司全年实现合并营业收入18.64亿元；实现净利润1.27亿元。", 0.9)]
    assert pick_sentences("公司2023年的净利润是多少？", list(w), w, report, max_sentences=3, cfg=CFG) == []
    assert pick_sentences("公司2024年的净利润是多少？", list(w), w, report, max_sentences=3, cfg=CFG)
    plain = [hit("n1", "全年实现净利润1.27亿元。", 0.9)]
    assert pick_sentences("公司2024年的净利润是多少？", list(w), w, plain, max_sentences=3, cfg=CFG)


def test_a_sentence_about_another_year_does_not_answer_for_the_year_asked():
    """A report on 2023 recalls 2022's dividend: "2022年度公司曾向全体股东每10股派发现金红利1.8元" names 2022 only and
    is no answer to 2023年度的分红方案; a sentence naming the year asked beside another still answers."""
    w = {"分红": 2.5, "红利": 2.0, "现金": 1.0}
    recalled = [hit("n1", "2023年度利润分配方案尚在论证之中。关于利润分配，2022年度公司曾向全体股东每10股"
                          "派发现金红利1.8元（含税）。", 0.9)]
    q = "通衢物流2023年度的分红方案是每10股派发多少现金红利？"
    assert all("1.8元" not in p.text for p in pick_sentences(q, list(w), w, recalled, max_sentences=3, cfg=CFG))
    both = [hit("n1", "2023年度每10股派发现金红利2.0元，2022年度为1.8元。", 0.9)]
    assert pick_sentences(q, list(w), w, both, max_sentences=3, cfg=CFG)


def test_a_count_in_the_measure_word_asked_and_what_was_done_over_an_aim():
    """"一共有多少家门店" is answered by the line counting in 家, not the staff line beside "每家门店";
    "全年的组件出货量" by what was shipped, not the aim for the next year — unless the question asks the aim."""
    w = {"门店": 3.0, "一共": 1.0}
    staff = hit("n1", "截至2023年末，公司员工总数11,350人，其中执业药师2,460人，平均每家直营门店配备执业药师"
                      "超过1.4名。", 0.9)
    stores = hit("n2", "报告期内公司净增门店312家，门店总数达到2,186家。", 0.7)
    q = "截至2023年末，鲜邻药房一共有多少家门店？"
    picked = pick_sentences(q, list(w), w, [staff, stores], 1, cfg=CFG)
    assert "2,186家" in picked[0].text
    w = {"组件": 3.0, "出货量": 3.0, "全年": 1.0}
    aim = hit("n1", "公司的经营目标是全年组件出货量达到15GW以上。", 0.9)
    done = hit("n2", "全年组件出货量9.8GW，同比增长42%。", 0.8)
    assert "9.8GW" in pick_sentences("晶澜光能全年的组件出货量有多少？", list(w), w, [aim, done], 1, cfg=CFG)[0].text
    assert "15GW" in pick_sentences("晶澜光能全年组件出货量的目标是多少？", list(w), w, [aim, done], 1, cfg=CFG)[0].text


def test_a_row_dated_in_another_year_still_answers_for_the_period_asked():
    """The 2024 appraisal's approval row is signed on 2025-01-10: a date says when, not which period the row is of."""
    w = {"审批": 3.0}
    row = [hit("n1", "2024年度绩效考核结果审批。环节: 审批 | 签字人: 周明远 | 日期: 2025-01-10 | 意见: 同意", 0.9)]
    picked = pick_sentences("2024年度的绩效考核结果是谁审批的？", list(w), w, row, max_sentences=3, cfg=CFG)
    assert picked and "周明远" in picked[0].text
    stale = [hit("n1", "2024年度绩效考核结果审批。2023年度的结果由刘佳审批。", 0.9)]
    assert all("刘佳" not in p.text for p in pick_sentences("2024年度的绩效考核结果是谁审批的？", list(w), w, stale,
                                                          max_sentences=3, cfg=CFG))
