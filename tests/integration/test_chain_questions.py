"""A question that describes what it asks about ("the country Signmark is from") is answered with the chain's
last link, offline: the sentence about the subject names the entity, the entity's sentence says what is asked
(answering.chain) — and such an answer is never ``high``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.support.corpora import index_texts

pytestmark = pytest.mark.integration

DOCUMENTS = {
    "signmark.md": "# Signmark\n\nSignmark was one of the artists competing in Finland's national qualifications to "
                   "represent it in the 2009 Eurovision Song Contest. He was the first deaf artist to sign a record "
                   "deal with an international label.\n",
    "finnish-markka.md": "# Finnish markka\n\nThe Finnish markka was the currency of Finland from 1860 until 28 "
                         "February 2002, when it was replaced by the euro.\n",
    "estonian-kroon.md": "# Estonian kroon\n\nThe Estonian kroon was the currency of Estonia from 1992 until 2011, "
                         "when it was replaced by the euro.\n",
    "euro.md": "# Euro\n\nThe euro is the sole currency of 19 EU member states: Austria, Belgium, Cyprus, Estonia, "
               "Finland, France, Germany, Greece and Spain.\n\nThe changeover period lasted about two months.\n",
    "karel-purkyne.md": "# Karel Purkyně\n\nKarel Purkyně was a painter in the Austro-Hungarian Empire. Born in "
                        "Wrocław in 1834, he died in Prague in 1868.\n",
    "prague-astronomical-clock.md": "# Prague astronomical clock\n\nThe oldest part of the Orloj, the mechanical "
                                    "clock and astronomical dial, dates back to 1410.\n",
    "astronomical-clock.md": "# Astronomical clock\n\nThe first astronomical clock of Strasbourg Cathedral was built "
                             "between 1352 and 1354.\n",
}


@pytest.fixture(scope="module")
def corpus(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("chain"), DOCUMENTS)


@pytest.mark.parametrize(("question", "subject", "answer", "document"), [
    ("What currency predated the Euro in the country Signmark is from?", "Finland's", "Finnish markka",
     "finnish-markka.md"),
    ("When was the astronomical clock built in the city where Karel Purkyně died?", "Prague", "1410",
     "prague-astronomical-clock.md"),
])
def test_the_last_link_is_quoted_after_the_subjects_line(services, corpus, question, subject, answer, document):
    result = ask(services, question)
    assert result.answerable and subject in result.answer and answer in result.answer, result.answer
    said = [s["content"] for s in result.reasoning_trace if "describes what it asks about" in s["content"]]
    assert said and document in said[0], result.reasoning_trace  # the trace says which link was followed
    assert result.confidence != "high"  # a link no one passage states
    cited = [s.document_name for s in result.sources if s.cited]
    assert document in cited and cited[0] in ("signmark.md", "karel-purkyne.md"), cited  # the chain's start first
    assert "estonian-kroon.md" not in cited  # Estonia is named by the euro's list, not by Signmark's line
    assert set(cited) <= {"signmark.md", "finnish-markka.md", "karel-purkyne.md", document}  # no look-alikes


def test_a_question_naming_its_subject_follows_no_link(services, corpus):
    result = ask(services, "When was the Prague astronomical clock built?")
    assert result.answerable and "1410" in result.answer, result.answer
    assert not any("describes what it asks about" in s["content"] for s in result.reasoning_trace)
