"""Each document a comparison names is read for a value of the kind it asks (issue 21): "谈某和倪某某的判刑时间谁更
长" of two judgements whose verdicts ("判处有期徒刑三年") write no 判刑, under passages that write 判刑 and 时间
but no length of time — each verdict is read and quoted, whatever the words rank it."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.support.corpora import index_texts

pytestmark = pytest.mark.integration


def _judgement(court: str, name: str, crime: str, term: str) -> str:
    return (f"# {court}刑事判决书\n\n## 一、案件经过\n\n案发时间为2023年1月3日，被告人{name}在{court}辖区内"
            f"实施{crime}。\n\n## 二、审理经过\n\n本案审理时间自2023年3月1日开始，公诉机关出庭支持公诉。\n\n"
            f"## 三、判刑考量\n\n本院在判刑时综合考虑了被告人{name}的认罪态度、判刑时间的社会影响以及退赃情况。\n\n"
            f"## 四、辩护意见\n\n辩护人认为对被告人{name}判刑应从轻，判刑时间应当考虑其初犯情节。\n\n"
            + "".join(f"## 证据{k}\n\n第{k}份证据涉及被告人{name}的判刑情节与判刑时间，本院予以采信。\n\n"
                      for k in range(1, 19))
            + f"## 五、判决结果\n\n被告人{name}犯{crime}，判处有期徒刑{term}。\n")


JUDGEMENTS = {
    "100_判决书.md": _judgement("薄雾市樟树区人民法院", "谈某", "盗窃罪", "三年"),
    "102_判决书.md": _judgement("紫霞市石榴区人民法院", "倪某某", "过失致人死亡罪", "四年"),
}


@pytest.fixture(scope="module")
def judgements(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("part_values"), JUDGEMENTS)


def test_each_named_documents_value_of_the_kind_asked_is_read(services, judgements):
    result = ask(services, "根据薄雾市樟树区人民法院和紫霞市石榴区人民法院的判决书，谈某和倪某某的判刑时间谁更长？")
    listed = " ".join(s.snippet for s in result.sources)
    assert "有期徒刑三年" in result.answer + listed and "有期徒刑四年" in result.answer + listed, result.answer
    assert {s.document_name for s in result.sources if s.cited} == set(JUDGEMENTS)


def _english(court: str, name: str, dated_at_top: bool, date: str) -> str:
    top = f"**Judgment Dated: {date}**\n\n" if dated_at_top else ""
    end = "" if dated_at_top else f"\n\nJudgment Date: {date}\n"
    body = "".join(f"## Incident {k}\n\nOn the {k}th of January 2022, {name} visited a store in the district and "
                   f"took goods without paying; the court examined the time and place of this incident.\n\n"
                   for k in range(1, 19))
    return (f"# {court}\n\n{top}## Court and Prosecutor Information\n\nCourt: {court}\n\n"
            f"## Defendant Information\n\nDefendant: {name}\n\n{body}## Judgment Result\n\n"
            f"This court finds {name} guilty of theft.{end}")


ENGLISH = {
    "116_judgement.md": _english("Cedarwood, Brighton, Court", "I. Hill", True, "14th March 2022"),
    "129_judgement.md": _english("Vandalia, Bayside, Court", "G. Torres", False, "20th April 2023"),
}


@pytest.fixture(scope="module")
def english_judgements(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("judgement_dates"), ENGLISH)


def test_a_judgement_dated_as_it_opens_is_read_for_its_date(services, english_judgements):
    """"whose judgment time is earlier": one judgement signs off with its date, the other writes it under its
    court's name as it opens; both dates are read, whatever the incidents' dates rank."""
    result = ask(services, "According to the judgment of Cedarwood, Brighton, Court and Vandalia, Bayside, Court, "
                           "whose judgment time is earlier, I. Hill or G. Torres?")
    listed = result.answer + " ".join(s.snippet for s in result.sources)
    assert "14th March 2022" in listed and "20th April 2023" in listed, result.answer
