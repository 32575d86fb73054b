"""answering.chain: the last link of a question that describes what it asks about, without a chat model."""

from dropqa.answering.chain import (
    described_part,
    describes_link,
    last_link,
    link_question,
    link_searches,
    subject_lines,
)
from dropqa.retrieval.hits import Hit
from dropqa.text.segment import query_terms

QUESTION = "What currency predated the Euro in the country Signmark is from?"
SIGNMARK = ("Signmark was one of the artists competing in Finland's national qualifications to represent it "
            "in the 2009 Eurovision Song Contest.")
EURO = ("The euro is the sole currency of 19 EU member states: Austria, Belgium, Cyprus, Estonia, Finland, France, "
        "Germany and Spain.")
MARKKA = ("The Finnish markka was the currency of Finland from 1860 until 28 February 2002, when it was replaced "
          "by the euro.")
ESTONIA = "Estonia adopted the euro as the country's currency on 1 January 2011."


def _hit(content: str, doc: str, title: str) -> Hit:
    return Hit(node_id=f"{doc}:1", document_id=doc, document_name=f"{doc}.md", version=1, node_type="paragraph",
               section="", breadcrumb=title, content=content, position=1)


def _weights(question: str) -> dict[str, float]:
    return {t: 1.0 for t in query_terms(question)}


POOL = [_hit(SIGNMARK, "signmark", "Signmark"), _hit(EURO, "euro-2", "Euro"), _hit(ESTONIA, "estonia", "Estonia"),
        _hit(MARKKA, "finnish-markka", "Finnish markka")]


def _overlap(question: str):
    """Sentence similarity for the tie-break: the share of the question's words a sentence holds (the service
    uses the embedder; this keeps the unit test free of a model)."""
    words = set(query_terms(question))
    return lambda texts: [len(words & set(query_terms(t))) / len(words) for t in texts]


def _link(question: str, pool: list[Hit], quoted: list[tuple[int, str]]):
    return last_link(question, _weights(question), pool, quoted, enough=0.6, passages=10,
                     similarity=_overlap(question))


def test_described_things_are_recognised_and_plain_questions_are_not():
    for q in (QUESTION, "Who is the spouse of Big Eye's main director?",
              "What movie stars Morgan Freeman and the producer of The Jewel of the Nile?",
              "When was the clock built in the city where Karel Purkyně died?", "卡塞尔所在的国家的首都是哪里？"):
        assert describes_link(q), q
    for q in ("What is the RPO of the Kestrel payments gateway?", "Nova 3.0 企业版每席位每月多少钱？",
              "What was the patient's initial diagnosis at Parker General Hospital?", "星图计划的负责人是谁？",
              "Who is the wife of Kim Jong-chul?", "What is Karel Purkyně's birthplace?", "蔡敏的出生地在哪里？",
              "In which year was the city of Washburn founded?",
              "How large was the fine imposed on the company by the 青禾市农业农村局 in 2021?"):
        assert not describes_link(q), q
    assert described_part(QUESTION).startswith("Signmark is from")
    assert "Big Eye" in described_part("Who is the spouse of Big Eye's main director?")
    assert described_part("卡塞尔所在的国家的首都是哪里？").endswith("卡塞尔")


def test_a_description_whose_verb_comes_first_ends_with_its_name():
    """"the country that produced Fist Power | taken by the British": what follows the name is asked of the
    country; "where WILM is licensed to broadcast" is the clause's own verb, after its name."""
    assert described_part("When was the country that produced Fist Power taken by the British?").strip() \
        == "produced Fist Power"
    assert described_part("When did the country containing Nugegoda leave the British Empire?").strip() == "Nugegoda"
    assert described_part("What is the airport in the city where WILM is licensed to broadcast?").strip() \
        == "WILM is licensed to broadcast?"


def test_the_entity_the_subject_line_names_leads_to_the_answer():
    link = _link(QUESTION, POOL, [(0, SIGNMARK), (1, EURO)])
    assert link is not None and link.hit_index == 3 and link.entity == "finland"


def test_only_the_subject_line_gives_entities():
    # Estonia is named by the euro's line, not by Signmark's: its sentence is no link of this chain
    link = _link(QUESTION, POOL[:3], [(0, SIGNMARK), (1, EURO)])
    assert link is None


def test_no_link_when_a_quoted_line_answers_or_the_question_describes_nothing():
    assert _link("What currency did Finland use before the euro?", POOL, [(3, MARKKA)]) is None
    answered = "Signmark competed in Finland, whose currency before the euro was the markka."
    pool = [_hit(answered, "signmark", "Signmark"), *POOL[1:]]
    assert _link(QUESTION, pool, [(0, answered)]) is None


def test_no_link_to_a_sentence_that_holds_no_more_of_what_is_asked():
    unrelated = _hit("Finland is a Nordic country with a long coastline.", "finland", "Finland")
    assert _link(QUESTION, [POOL[0], unrelated], [(0, SIGNMARK)]) is None


def test_the_link_is_searched_with_what_is_asked_and_the_entity_the_subjects_passage_names():
    searches = link_searches(QUESTION, POOL[:2], _weights(QUESTION), 0.6, 2)
    assert searches and searches[0] == "What currency predated the Euro in Finland", searches
    assert link_searches("What currency did Finland use before the euro?", POOL, _weights(QUESTION), 0.6, 2) == []


def test_the_lines_about_what_the_description_hangs_on_are_the_subjects():
    quoted = [(1, EURO), (0, SIGNMARK)]
    assert subject_lines(QUESTION, _weights(QUESTION), POOL, quoted) == [1]


def test_what_is_asked_of_the_link_leaves_the_description_out():
    """The journal's page holds "association" and "published": the description, not the first president the
    question asks of the association — so the hop is still needed."""
    from dropqa.answering.chain import asked_of_link
    from dropqa.answering.hops import needs_second_hop

    question = "Who was the first president of the association which published Journal of Psychotherapy Integration?"
    weights = {"first": 1.0, "president": 2.0, "association": 1.5, "published": 1.5, "journal": 2.0,
               "psychotherapy": 3.0, "integration": 2.5}
    asked = asked_of_link(question, weights)
    assert set(asked) == {"first", "president"}  # "association" names the kind of thing linked to
    page = Hit(node_id="j:1", document_id="j", document_name="journal-of-psychotherapy-integration.md", version=1,
               node_type="paragraph", section="", breadcrumb="Journal of Psychotherapy Integration", position=1,
               content="The Journal of Psychotherapy Integration is a peer-reviewed academic journal published by "
                       "the American Psychological Association.")
    assert needs_second_hop(page, asked, 0.6)
    assert asked_of_link("What is the capital of France?", weights) == weights  # nothing described


def test_a_line_about_the_other_subject_of_a_linked_title_is_no_link():
    """Hiroshima links to "Atomic bombings of Hiroshima and Nagasaki": its line about Nagasaki is the title's
    other subject, not what is asked of Hiroshima."""
    q = "What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?"
    subject = Hit(node_id="a", document_id="akinoshu", document_name="akinoshu-kenji.md", version=1,
                  node_type="paragraph", section="Akinoshu Kenji", breadcrumb="akinoshu-kenji.md > Akinoshu Kenji",
                  content="Akinoshu Kenji is a former sumo wrestler from Hiroshima, Japan.", position=1, relevance=0.9)
    bombings = "atomic-bombings-of-hiroshima-and-nagasaki.md"
    nagasaki = Hit(node_id="b", document_id="bombings", document_name=bombings, version=1, node_type="paragraph",
                   section="Atomic bombings of Hiroshima and Nagasaki",
                   breadcrumb=f"{bombings} > Atomic bombings of Hiroshima and Nagasaki",
                   content="Three days later, a plutonium bomb was dropped on Nagasaki. On August 6, the U.S. dropped "
                           "a uranium bomb on Hiroshima.", position=2, relevance=0.6)
    w = {t: 1.0 for t in query_terms(q)}
    link = last_link(q, w, [subject, nagasaki], [(0, subject.content)], enough=0.6, passages=5)
    assert link is not None and "Hiroshima" in link.text and "Nagasaki" not in link.text, link


def test_a_description_the_question_says_something_of_ends_where_the_question_goes_on():
    """"What time does | the state where X is | stop selling booze?": the question's own verb follows the clause;
    so it does for a description that opens the question, and for one inside another's clause."""
    assert described_part("What time does the state where Greenfield-Central High is stop selling booze?").strip() \
        == "Greenfield-Central High is"
    assert described_part("When did the state where Pocahontas Mounds is located become part of the United "
                          "States?").strip() == "Pocahontas Mounds is located"
    assert described_part("The state where Henry Worrall died has how many congressional districts?").strip() \
        == "Henry Worrall died"
    assert described_part("When did the country where the city where Steven Blankaart was born is located refuse "
                          "to sign the Treaty of Versailles?").strip() == "Steven Blankaart was born"
    # "the performer of Privilege": a name alone follows "of"
    assert described_part("When did the country in which the performer of Privilege is a citizen become part of "
                          "the UK?").strip() == "Privilege"
    title = "Alexander and the Terrible, Horrible, No Good, Very Bad Day"
    assert described_part(f"What kind of university did the author of {title} attend?").strip() == title


def test_the_link_question_puts_the_name_where_the_description_was():
    assert link_question("What time does the state where Greenfield-Central High is stop selling booze?",
                         "Indiana") == "What time does Indiana stop selling booze?"
    assert link_question("The state where Henry Worrall died has how many congressional districts?",
                         "Kansas") == "Kansas has how many congressional districts?"
    assert link_question("When was the country that produced Fist Power taken by the British?",
                         "Bangladesh") == "When was Bangladesh taken by the British?"
    assert link_question("What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?",
                         "Hiroshima") == "What kind of plane dropped the bomb on Hiroshima?"
    assert link_question("卡塞尔所在的国家的首都是哪里？", "德国") == "德国的首都是哪里？"
    assert link_question("What is the RPO of the Kestrel payments gateway?", "Kestrel") \
        == "What is the RPO of the Kestrel payments gateway?"


def test_the_subjects_other_passages_name_the_link_too():
    """The quoted line about David Morse names Nova Scotia only inside "Nova Scotia House of Assembly"; the
    opening of his page, also in the pool, names the province the link's page names."""
    question = "What district is LaHave of the place of birth of David Morse located?"
    opening = _hit("David Morse (born October 31, 1954) is a Canadian politician in Nova Scotia.", "morse",
                   "David Morse (politician)")
    quoted_line = ("He represented the electoral district of Kings South in the Nova Scotia House of Assembly from "
                   "1999 to 2009.")
    seat = Hit(node_id="morse:2", document_id="morse", document_name="morse.md", version=1, node_type="paragraph",
               section="", breadcrumb="David Morse (politician)", content=quoted_line, position=2)
    walden = _hit("Walden is a community in the Canadian province of Nova Scotia, located in the Lunenburg "
                  "Municipal District on the shore of the LaHave River.", "walden", "Walden, Nova Scotia")
    link = _link(question, [seat, walden, opening], [(0, quoted_line)])
    assert link is not None and link.hit_index == 1 and "Lunenburg" in link.text


def test_a_description_the_question_goes_on_to_ask_something_of_is_a_link():
    """"What is | the country where Baure is located | named after?" asks what the country is named after;
    "Who is the wife of Kim Jong-chul?" asks the description itself."""
    question = "What is the country where Baure is located named after?"
    assert describes_link(question) and described_part(question).strip() == "Baure is located"
    assert link_question(question, "Nigeria") == "What is Nigeria named after?"
    assert not describes_link("What is the city where Karel Purkyně was born?")


REPORT_Q = ("According to the annual report of Velmont Harvest Foods Corp., the subsidiary fined by the Tessford "
            "Environmental Protection Bureau in October 2021 was acquired for what price?")


def test_a_thing_described_by_what_befell_it_is_a_link():
    """"the subsidiary fined by …" (a participle and its agent) and "被…罚款的那家子公司" describe what the question
    asks about; the description ends where the question's own verb begins ("was acquired")."""
    assert describes_link(REPORT_Q)
    assert described_part(REPORT_Q).strip() == "fined by the Tessford Environmental Protection Bureau in October 2021"
    assert link_question(REPORT_Q, "Greyfield Orchards").endswith("Greyfield Orchards was acquired for what price?")
    # "the brand of the car driven by …" asks the brand: no link
    assert not describes_link("According to the judgment of Trenton, Springfield, Court, what is the brand of the car "
                              "driven by the prosecutor?")
    zh = "根据禾润农业发展股份有限公司的年报，2021年10月被桐川市生态环境局罚款的那家子公司，是公司以多少价款收购的？"
    assert describes_link(zh) and described_part(zh) == "2021年10月被桐川市生态环境局罚款"
    assert link_question(zh, "绿丰果业").endswith("绿丰果业，是公司以多少价款收购的？")


def test_inside_a_named_report_the_chain_runs_to_the_line_giving_the_value_asked():
    """The fine's line names Greyfield Orchards; the same report's acquisition line gives its price. Inside a
    document the question names, that line links; another report's line on prices, which gives no amount, is not
    quoted before the one that does."""
    fine = ("In October 2021, because the wastewater treatment facility of its controlled subsidiary Greyfield "
            "Orchards was not operating properly, the Tessford Environmental Protection Bureau fined Greyfield "
            "Orchards $48,000.")
    deal = ("In May 2021, the Company signed an agreement to acquire a 65% equity interest in Greyfield Orchards for "
            "$49.5 million.")
    other = ("These transactions with Greyfield Orchards were approved by the Board, and prices were set by "
             "reference to market rates.")
    pool = [_hit(fine, "velmont", "Velmont report"), _hit(deal, "velmont", "Velmont report"),
            _hit(other, "marlowe", "Marlowe report")]
    pool[1] = pool[1].model_copy(update={"node_id": "velmont:2", "position": 2})
    link = last_link(REPORT_Q, _weights(REPORT_Q), pool, [(0, fine)], enough=0.6, passages=10,
                     similarity=_overlap(REPORT_Q), within=["velmont"])
    assert link is not None and link.hit_index == 1 and "$49.5 million" in link.text
    # not inside an unnamed document: the chain leaves it, and the amount-giving line is the link
    outside = last_link(REPORT_Q, _weights(REPORT_Q), pool, [(0, fine)], enough=0.6, passages=10,
                        similarity=_overlap(REPORT_Q))
    assert outside is None or outside.hit_index != 1


def test_a_description_by_a_relation_does_not_link_inside_the_named_page():
    """"Deane Waldo Malott's alma mater" is another thing's page, not an event his own page tells: a sentence of his
    page naming Harvard and a year is no link, though the question names his page."""
    question = "When did the Deane Waldo Malott's alma mater start issuing degrees in engineering?"
    chancellor = ("He returned to Harvard in 1933 as a Professor and then in 1939 he returned to his alma mater to "
                  "become Chancellor of University of Kansas.")
    graduated = "He graduated in 1921 with a degree in economics, and he went on to the Harvard Business School."
    ku = "The School of Engineering was founded in 1891, although engineering degrees were awarded as early as 1873."
    pool = [_hit(chancellor, "malott", "Deane Waldo Malott"), _hit(graduated, "malott", "Deane Waldo Malott"),
            _hit(ku, "university-of-kansas", "University of Kansas")]
    pool[1] = pool[1].model_copy(update={"node_id": "malott:2", "position": 2})
    link = last_link(question, _weights(question), pool, [(0, chancellor)], enough=0.6, passages=10,
                     similarity=_overlap(question), within=["malott"])
    assert link is not None and link.hit_index == 2, link


def test_no_link_when_a_quoted_line_of_the_named_report_already_answers():
    """"when is the project funded by the convertible bonds … expected to start production?": the report's line
    "The project … is expected to start production in June 2023" is quoted already; another report's "expected to
    enter service in 2023" is no link."""
    question = ("According to the annual report of Tarrington Precision Industries Inc., when is the project funded "
                "by the convertible bonds issued in July 2021 expected to start production?")
    bonds = "In July 2021, the Company issued convertible bonds with a principal amount of $150 million."
    start = "The project is expected to start production in June 2023, with a designed annual capacity of 1.2 million."
    other = "The data center of the Company is expected to enter service in 2023."
    title = "Tarrington Precision Industries Inc. annual report"
    pool = [_hit(bonds, "tarrington", title), _hit(start, "tarrington", title),
            _hit(other, "fenwick", "Fenwick Cloud Software Corp. annual report")]
    pool[1] = pool[1].model_copy(update={"node_id": "tarrington:2", "position": 2})
    assert last_link(question, _weights(question), pool, [(0, bonds), (1, start)], enough=0.6, passages=10,
                     similarity=_overlap(question), within=["tarrington"]) is None


def test_a_month_the_subject_lines_write_is_no_entity_of_the_chain():
    """Signmark's page writes "January 23, 2009": the markka's line about the euro's introduction "on 1 January
    2002" is linked by that month only, and is no link; the line naming Finland is."""
    signmark = _hit(SIGNMARK + " Signmark won his qualifying round on January 23, 2009.", "signmark", "Signmark")
    replaced = _hit("The markka was replaced by the euro, which had been introduced, in cash form, on 1 January "
                    "2002, when the euro was the official currency.", "finnish-markka", "Finnish markka")
    link = _link(QUESTION, [signmark, replaced, POOL[3]], [(0, SIGNMARK)])
    assert link is not None and link.entity == "finland" and "Finnish markka was the currency" in link.text


def test_a_name_after_its_kind_with_no_clause_of_its_own_is_no_link():
    """"the composer Isolde Halloway" says who she is; "the country Signmark is from" is a link to another page."""
    from dropqa.answering.chain import describes_link

    assert not describes_link("Where did the composer Isolde Halloway die?")
    assert not describes_link("Where was the composer Isolde Halloway born?")
    assert describes_link(QUESTION)
    assert describes_link("When did the country Signmark is from join the EU?")
