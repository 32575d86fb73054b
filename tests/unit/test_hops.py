"""answering.hops: the offline second hop (bridge entities named by the best passage)."""


from dropqa.answering.hops import bridge_candidates, linked_documents, needs_second_hop, second_hop_queries
from dropqa.config import AnswerSettings
from dropqa.retrieval.hits import Hit
from dropqa.text.segment import query_terms

CFG = AnswerSettings()

QUESTION = "What currency predated the Euro in the country Signmark is from?"
SIGNMARK = ("Signmark was one of the artists competing in Finland's national qualifications to represent it "
            "in the 2009 Eurovision Song Contest.")


def _hit(content: str, document_id: str = "signmark", name: str = "signmark.md", breadcrumb: str = "Signmark",
         section: str = "") -> Hit:
    return Hit(node_id=f"{document_id}:1", document_id=document_id, document_name=name, version=1,
               node_type="paragraph", section=section, breadcrumb=breadcrumb, content=content, position=1)


def _weights(question: str) -> dict[str, float]:
    return {t: 1.0 for t in query_terms(question)}


def test_passage_about_the_subject_only_needs_a_second_hop():
    hit = _hit(SIGNMARK)
    assert needs_second_hop(hit, _weights(QUESTION), CFG.second_hop_coverage)


def test_passage_that_holds_what_is_asked_needs_no_second_hop():
    hit = _hit("Before the euro, the currency of Finland, the country Signmark is from, was the markka, "
               "which predated the euro.")
    w = _weights(QUESTION)
    assert not needs_second_hop(hit, w, CFG.second_hop_coverage)
    assert second_hop_queries(QUESTION, hit, w, CFG.second_hop_coverage, CFG.hop_names) == []


def test_terms_naming_the_passage_document_do_not_count_as_answered():
    # currency + euro of {currency, predated, euro, country}: 2/4 of what is asked beyond the subject.
    # Counting "signmark" (the document's own name) would make it 3/5 and skip the hop.
    hit = _hit("Signmark once sang about the currency and the euro.")
    assert needs_second_hop(hit, _weights(QUESTION), CFG.second_hop_coverage)


def test_weights_matter_for_the_second_hop_decision():
    hit = _hit("Signmark was paid in a currency.")
    w = _weights(QUESTION)
    assert needs_second_hop(hit, w, CFG.second_hop_coverage)
    heavy = {t: (100.0 if t == "currency" else 1.0) for t in w}
    assert not needs_second_hop(hit, heavy, CFG.second_hop_coverage)


def test_bridge_candidates_are_names_the_question_does_not_use():
    found = bridge_candidates(QUESTION, _hit(SIGNMARK), CFG.hop_names)
    assert any(c.startswith("Finland") for c in found)
    assert not any("signmark" in c.lower() for c in found)  # the passage's own subject is no bridge
    assert len(found) <= 2


def test_bridge_candidate_is_the_bare_name():
    assert "Finland" in bridge_candidates(QUESTION, _hit(SIGNMARK), CFG.hop_names)


def test_name_the_question_uses_is_no_bridge_even_in_the_possessive():
    found = bridge_candidates("Which singers from Finland competed with Signmark in 2009?", _hit(SIGNMARK), limit=3)
    assert not any(c.lower().startswith("finland") for c in found)


def test_name_the_question_uses_is_no_bridge():
    hit = _hit("Signmark represented Finland at the Eurovision Song Contest.")
    found = bridge_candidates("Which contest did Signmark enter for Finland?", hit, limit=3)
    assert "Finland" not in found and "Signmark" not in found
    assert found == ["Eurovision Song Contest"]


def test_bridge_candidates_respect_limit_and_skip_common_words():
    hit = _hit("The band toured Sweden. It then played in Norway, Denmark and Iceland.")
    assert bridge_candidates("Where did Signmark tour?", hit, limit=1) == ["Sweden"]
    found = bridge_candidates("Where did Signmark tour?", hit, limit=5)
    assert "The" not in found and "It" not in found
    assert "Sweden" in found and "Norway" in found


def test_second_hop_queries_add_each_bridge_to_the_question():
    queries = second_hop_queries(QUESTION, _hit(SIGNMARK), _weights(QUESTION), CFG.second_hop_coverage, CFG.hop_names)
    assert len(queries) == 2
    assert all(q.startswith(QUESTION + " ") for q in queries)
    assert any("Finland" in q[len(QUESTION):] for q in queries)
    assert any("Eurovision Song Contest" in q[len(QUESTION):] for q in queries)


def test_chinese_bridge_candidates_by_part_of_speech():
    question = "张伟出生的城市有多少人口？"
    hit = _hit("张伟，1980年出生于北京，毕业于清华大学，后加入华为公司。", document_id="zw", name="张伟.md",
               breadcrumb="张伟")
    found = bridge_candidates(question, hit, limit=3)
    assert "北京" in found
    assert "张伟" not in found  # named by the question (and the document)
    assert needs_second_hop(hit, _weights(question), CFG.second_hop_coverage)


def _title(doc_id: str, filename: str, title: str) -> dict:
    return {"document_id": doc_id, "filename": filename, "title": title, "heading": ""}


TITLES = [
    _title("signmark", "signmark.md", "Signmark"),
    _title("finland", "finland.md", "Finland"),
    _title("eurovision", "eurovision-song-contest-2009.md", "Eurovision Song Contest 2009"),
    _title("markka", "finnish-markka.md", "Finnish markka"),
    _title("euro", "euro.md", "Euro"),
    _title("sweden", "sweden.md", "Sweden"),
]


def test_linked_documents_are_those_the_passage_names_other_than_its_own():
    parts = linked_documents(QUESTION, _hit(SIGNMARK), TITLES, min_share=CFG.part_name_share, limit=CFG.hop_documents)
    ids = [p.document_id for p in parts]
    assert "finland" in ids
    assert "signmark" not in ids  # the passage's own document
    assert "euro" not in ids  # named by the question itself
    assert "sweden" not in ids and "markka" not in ids  # not named by the passage
    assert all(p.query == QUESTION for p in parts)
    assert {p.label for p in parts} <= {t["filename"] for t in TITLES}


def test_linked_documents_limit():
    parts = linked_documents(QUESTION, _hit(SIGNMARK), TITLES, limit=1, min_share=CFG.part_name_share)
    assert len(parts) == 1


def test_a_question_about_a_place_follows_the_place_the_passage_puts_it_in():
    """"the state where Johnnycake is": "Johnnycake … in McDowell County" leads on, not the month it was named."""
    hit = _hit("Johnnycake was named in March 1890 by the first settlers. The community lies in McDowell County "
               "along the Dry Fork.", document_id="jc", name="johnnycake.md", breadcrumb="Johnnycake")
    found = bridge_candidates("What state is the county containing Johnnycake in?", hit, limit=1)
    assert found == ["McDowell County"]


def test_a_question_about_a_maker_follows_who_made_it():
    hit = _hit("The Girl Who Kicked the Hornets' Nest is a 2009 Swedish drama film in English subtitles, "
               "directed by Daniel Alfredson.", document_id="girl", name="girl.md",
               breadcrumb="The Girl Who Kicked the Hornets' Nest")
    found = bridge_candidates("Where was the director of The Girl Who Kicked the Hornets' Nest born?", hit, limit=1)
    assert found == ["Daniel Alfredson"]


def test_months_lone_openers_and_other_spellings_of_the_subject_are_no_bridges():
    hit = _hit("Damerjog or Damerdjog is a small village located in eastern Djibouti. Meanwhile farmers grow "
               "dates there. It was founded in October.", document_id="dj", name="damerjog.md", breadcrumb="Damerjog")
    found = bridge_candidates("Who was the first president of Damerjog's country?", hit, limit=5)
    assert found[0] == "Djibouti"
    assert not {"Damerdjog", "Meanwhile", "October"} & set(found)


def test_a_name_the_title_adds_in_brackets_is_a_bridge():
    """"Privilege (Ivor Cutler album)": the title's own name is the subject, the bracket names its performer."""
    hit = _hit("Privilege is an album by Ivor Cutler, originally released in 1983 on Rough Trade Records.",
               "privilege", "privilege-ivor-cutler-album.md", "Privilege (Ivor Cutler album)")
    found = bridge_candidates("When did the country in which the performer of Privilege is a citizen become part "
                              "of the UK?", hit, limit=3)
    assert found[0] == "Ivor Cutler", found


POCAHONTAS = ("Pocahontas Mounds (22 HI 500) is an archaeological site from the Plaquemine Mississippian culture in "
              "Hinds County, Mississippi, dating from 800 to 1300 CE.")


def test_the_place_an_address_puts_a_county_in_leads_to_the_state():
    """"the state where Pocahontas Mounds is": "in Hinds County, Mississippi" puts the county in the state; the
    county is another kind of place, and "Mississippi" is no part of "Plaquemine Mississippian"."""
    hit = _hit(POCAHONTAS, "pm", "pocahontas-mounds.md", "Pocahontas Mounds")
    found = bridge_candidates("When did the state where Pocahontas Mounds is located become part of the United "
                              "States?", hit, limit=2)
    assert "Mississippi" in found
    assert "Hinds County" not in found
    # asked through the county, the county comes first
    found = bridge_candidates("What county shares a border with the county where Pocahontas Mounds is?", hit,
                              limit=3)
    assert found.index("Hinds County") < found.index("Mississippi")


def test_a_list_of_people_is_no_address():
    """"starring Chiu Man-cheuk, Anthony Wong": a comma after a name puts no place in another."""
    hit = _hit("Fist Power is a 2000 Hong Kong action film directed by Aman Chang, starring Chiu Man-cheuk, "
               "Anthony Wong, Gigi Lai and Sam Lee.", "fp", "fist-power.md", "Fist Power")
    found = bridge_candidates("When was the country that produced Fist Power taken by the British?", hit, limit=2)
    assert found[0] == "Hong Kong", found


def test_what_a_title_adds_after_a_comma_is_a_bridge():
    """"Baure, Nigeria": the heading's own name is Baure; Nigeria, the country it is in, leads on (the breadcrumb
    opens with the file's name, "baure-nigeria.md", which writes both)."""
    hit = _hit("Baure is a Local Government Area in Katsina State, Nigeria, sharing a border with the Republic of "
               "Niger.", "baure", "baure-nigeria.md", "baure-nigeria.md > Baure, Nigeria")
    found = bridge_candidates("What is the country where Baure is located named after?", hit, limit=2)
    assert found[0] == "Nigeria", found
    assert "Baure" not in bridge_candidates("Which state is Baure in?", hit, limit=5)
