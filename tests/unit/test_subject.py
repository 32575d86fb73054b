"""``answering.subject``: an answer keeps to the document the question's words name."""

from __future__ import annotations

from dropqa.answering.subject import naming_words, off_subject
from dropqa.retrieval.hits import Hit


def _hit(node_id: str, document: str, title: str, content: str) -> Hit:
    return Hit(node_id=node_id, document_id=document, document_name=f"{title}.md", version=1,
               node_type="paragraph", section="s", breadcrumb=f"{title}.md > 一、总则", content=content,
               position=0, relevance=0.9, channels=["fulltext"])


GAS = _hit("g1", "gas", "临江燃气居民用户服务手册", "燃气表计量有疑问的，可申请校验。")
WATER = _hit("w1", "water", "居民用水服务指南", "检定合格的，检定费60元由申请用户承担。")
TERMS = ["燃气", "燃气表", "校验", "合格"]


def test_a_word_naming_one_document_of_the_pool_names_the_subject():
    assert naming_words(TERMS, [GAS, WATER]) == {"燃气": "gas"}
    assert naming_words(TERMS, [GAS]) == {}  # one document: nothing to tell apart


def test_an_answer_citing_only_a_look_alike_that_never_writes_the_subject_is_off_subject():
    pool = [GAS, WATER]
    assert off_subject(TERMS, pool, [1]) == "燃气"  # the water company's fee, for the gas meter
    assert off_subject(TERMS, pool, [0]) is None  # the gas guide itself
    writes = _hit("w2", "water", "居民用水服务指南", "燃气表与水表的检定费均为60元。")
    assert off_subject(TERMS, [GAS, writes], [1]) is None  # another document that writes the subject out
    english = _hit("e1", "policy", "Meter policy", "A meter test costs 60 yuan if the meter is accurate.")
    assert off_subject(TERMS, [GAS, english], [1]) is None  # a name is not bridged across languages


def test_words_naming_different_documents_name_no_one_subject():
    city = _hit("c1", "city", "南宁", "南宁是广西的首府。")
    school = _hit("s1", "school", "南宁二中", "东盟校区第一届招收高中生600名。")
    other = _hit("o1", "other", "东盟博览会", "东盟校区第一届招收高中生600名。")
    terms = ["南宁", "二中", "东盟", "校区"]
    assert off_subject(terms, [city, school, other], [2]) is None  # 南宁 names two, 二中 one, 东盟 another


def test_a_question_describing_its_subject_by_a_clause_is_not_judged():
    from dropqa.answering.subject import describes_by_clause

    assert describes_by_clause('What did the individual who prepared "the Grand Model" use as a basis?')
    assert describes_by_clause("What is a term for the institution allowing church courts to rule?")
    assert not describes_by_clause("怀疑燃气表计量不准申请校验，如果校验结果合格，要交多少校验费？")
    assert not describes_by_clause("How long is the waiting time at Tilbury?")
