"""The section a summary question asks for (dropqa.answering.sections), and its answer (compose.section_summary)."""

from dropqa.answering.compose import section_summary
from dropqa.answering.sections import asked_section, label_of
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import summary_aspect


def hit(content: str, position: int, section: str = "", document: str = "d1") -> Hit:
    return Hit(node_id=f"n{position}-{document}", document_id=document, document_name=f"{document}.md", version=1,
               node_type="paragraph", section=section, breadcrumb=f"{document} > {section}".rstrip(" >"),
               content=content, position=position)


RECORD = [
    hit("Specialist Examination:\nDermatology consultation advised", 9),
    hit("Physical Examination:\nGeneral Condition:\nTemperature: 37°C\nPulse: 90 bpm", 7),
    hit("Auxiliary Examination:\nComplete Blood Count showed mild leukocytosis", 10),
    hit("Present Illness:\nOnset: 2 days ago.\nMain Symptoms: pain.", 3),
]
ASKED = {"physical": 1.0, "examination": 1.0, "findings": 1.0, "summarize": 0.5}


def test_labels_are_bold_first_lines_colon_lines_or_the_section_heading():
    assert label_of(hit("**CASE STATEMENT**  \nP. Anderson accepted bribes.", 1)) == "CASE STATEMENT"
    assert label_of(hit("现病史：\n患者于2个月前出现乏力。", 1)) == "现病史"
    assert label_of(hit("The court finds him guilty.", 1, section="Court > 判决结果")) == "判决结果"
    assert label_of(hit("**Name:** P. Anderson\n**Gender:** Male", 1)) is None  # a key with its value
    assert label_of(hit("Name: P. Anderson", 1)) is None  # a colon line with its value on it
    assert label_of(hit("Further, the court weighed it.", 1, section="Court > Further, the court…")) is None


def test_the_aspect_is_what_follows_the_summary_verb():
    assert summary_aspect("According to the judgment of X Court, summarize the facts of S. Taylor's crime.") == \
        "the facts of S. Taylor's crime."
    assert summary_aspect("根据某法院的判决书，总结唐某某的犯罪证据。") == "唐某某的犯罪证据。"
    assert summary_aspect("Who was the judge?") == ""


def test_the_section_holding_the_asked_words_is_picked_and_quoted_from_its_start():
    question = "According to the records of Granville Hospital, summarize the physical examination findings of J. R."
    pick = asked_section(question, ASKED, RECORD, {"d1"}, None)
    assert pick is not None and pick.label == "Physical Examination" and pick.index == 1
    composed = section_summary("en", pick, RECORD, 6)
    assert composed.citations == [1]
    assert composed.lines[1].startswith("Physical Examination: General Condition:")
    assert "Pulse: 90 bpm" in composed.lines[1] and composed.lines[1].endswith("[2]")


def test_ties_go_to_the_label_nearer_in_meaning_and_nothing_is_picked_without_an_asked_word():
    question = "summarize the examination of J. R."
    asked = {"examination": 1.0}

    def near(labels: list[str]) -> list[float]:
        return [1.0 if label == "Auxiliary Examination" else 0.0 for label in labels]

    pick = asked_section(question, asked, RECORD, {"d1"}, near)
    assert pick is not None and pick.label == "Auxiliary Examination"
    assert asked_section("summarize the facts of the crime", {"facts": 1.0, "crime": 1.0}, RECORD, {"d1"}, None) is None
    assert asked_section(question, asked, RECORD, {"another document"}, None) is None  # only the named documents
    assert asked_section("What was the pulse?", {"pulse": 1.0}, RECORD, {"d1"}, None) is None  # no summary asked


def test_a_label_on_a_passage_of_its_own_is_followed_by_the_passages_after_it():
    pool = [hit("**CASE STATEMENT**", 5), hit("Appeal notice: within ten days.", 9),
            hit("From May 2021, F. Williams took bribes. He was arrested in 2023.", 6)]
    pick = asked_section("According to the judgment of X Court, summarize the case statement of F. Williams.",
                         {"case": 1.0, "statement": 1.0}, pool, {"d1"}, None)
    assert pick is not None and pick.label == "CASE STATEMENT" and pick.index == 0
    composed = section_summary("en", pick, pool, 6)
    assert composed.citations == [0, 2]
    assert composed.lines[1] == ("CASE STATEMENT: From May 2021, F. Williams took bribes. He was arrested in 2023. "
                                 "[1][3]")
    alone = section_summary("en", pick, pool[:1], 6)  # nothing after the label: nothing to quote
    assert alone.citations == []
