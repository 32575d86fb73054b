"""A question that names one of a series by its number (加拿大航空621号班机, the second season), or a place by its
region (Rochester, Minnesota), is answered "the documents do not mention it" when the documents its answer would
cite are about another of the series or a namesake (flight 189, the first season, Rochester, New York) — offline,
and when a chat model answers from the look-alike; the one they are about is still answered, whichever form its
number is written in (issue 21: answers that keep to their subject)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.support.corpora import index_texts
from tests.support.scripted_openai import ScriptedOpenAI, services_using

pytestmark = pytest.mark.integration

DOCUMENTS = {
    "TRIAL_782.txt": (
        "加拿大航空189号班机空难\n\n加拿大航空189号航班是加拿大航空公司一架由渥太华途径多伦多到温哥华的麦道DC-9型飞机。"
        "1978年6月26日，该航班在多伦多国际机场起飞过程中冲出跑道并解体，事故导致机上两名乘客死亡。\n"),
    "TRIAL_554.txt": (
        "real world\n\n《real world》为日本音乐团体EXILE（放浪兄弟）的第十五张单曲，于2007年发行。\n"),
    "TRIAL_101.txt": (
        "大韩航空801号班机空难\n\n大韩航空801号班机是一班由首尔飞往关岛的定期航班。1997年8月6日，该航班在关岛降落时撞山，"
        "事故导致机上228人死亡。\n"),
    "TRIAL_102.txt": (
        "花火\n\n《花火》为日本音乐团体Mr.Children的第十二张单曲，于1999年发行，收录于专辑《Q》。\n"),
    # an empress's page, and her niece's page, which names her aunt the empress 王穆之 once
    "TRIAL_421.txt": (
        "何法倪\n\n何法倪，晋穆帝司马聃的皇后。穆帝去世后，穆帝堂兄晋哀帝司马丕随后即位，尊何皇后为穆皇后。"
        "何法倪因为是名家世族之后，获选为后，并于升平元年（357年）八月册立为皇后。\n"),
    "TRIAL_422.txt": (
        "王法慧\n\n王法慧，晋陵郡太守王蕴之女，哀靖皇后王穆之的侄女，晋孝武帝司马曜皇后。\n"),
    "rochester-new-york.md": (
        "# Rochester, New York\n\nRochester is a city in the U.S. state of New York. With a population of 211,328 "
        "residents, Rochester is the third most populous city in New York state.\n"),
    "harbor_lights.md": (
        "# Harbor Lights (season 1)\n\nThe first season of the American television series Harbor Lights "
        "premiered on Netflix on March 3, 2017, with ten episodes. It follows a lighthouse keeper in Maine; its second "
        "episode drew the largest audience.\n"),
}


@pytest.fixture(scope="module")
def corpus(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("numbered"), DOCUMENTS)


@pytest.mark.parametrize(("question", "named"), [
    ("加拿大航空621号班机空难导致多少名乘客死亡？", "621号"),
    ("EXILE（放浪兄弟）的第16张单曲是什么？", "第16张"),
    ("When did the second season of Harbor Lights premiere on Netflix?", "second season"),
    ("What is the population of Rochester, Minnesota?", "Minnesota"),  # a namesake's page
    # another empress's page answers when 王穆之 was made empress: it never writes her name, her niece's page does
    ("晋哀帝的皇后王穆之是在哪一年被册立为皇后的？", "王穆之"),
])
def test_a_look_alike_of_the_series_does_not_answer(services, corpus, question, named):
    result = ask(services, question)
    assert not result.answerable, result.answer
    assert named in result.answer and not any(w in result.answer for w in ("1978", "2017", "211,328", "357"))


@pytest.mark.parametrize(("question", "expected"), [
    ("加拿大航空189号班机空难导致多少名乘客死亡？", "两名"),
    ("EXILE（放浪兄弟）的第15张单曲是什么？", "real world"),  # 第十五张 in the text
    ("When did season 1 of Harbor Lights premiere on Netflix?", "March 3, 2017"),  # "the first season"
    ("What is the population of Rochester, New York?", "211,328"),
    ("晋穆帝的皇后何法倪是在哪一年被册立为皇后的？", "357年"),
])
def test_the_one_the_documents_are_about_is_answered(services, corpus, question, expected):
    result = ask(services, question)
    assert result.answerable and expected in result.answer, result.answer


def test_a_chat_models_answer_from_the_look_alike_is_not_taken(services, corpus):
    """The scripted model answers flight 621's question from flight 189's page, citing it: verify refuses it."""
    def reply(body: dict) -> dict:
        return {"content": "事故导致机上两名乘客死亡 [1]。"}

    with ScriptedOpenAI(reply) as llm:
        result = ask(services_using(services, llm), "加拿大航空621号班机空难导致多少名乘客死亡？")
        assert llm.requests
    assert not result.answerable and "两名" not in result.answer and "621号" in result.answer
