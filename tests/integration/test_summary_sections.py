"""A summary question over a judgement whose parts are bold labels, offline end to end: the parts are sections
(parsers.markdown), the one asked for is quoted from its start (answering.sections: a case's facts are its
Statement), and the sources list the rest of that section after what the answer cites, in document order, before
anything else (finalize.section_first, section_rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.support.corpora import index_texts

pytestmark = pytest.mark.integration

FACTS = [
    "The case at bar centers upon the activities of the defendant, S. Taylor, who from November 2022 through early "
    "January 2023 engaged in the manufacture and distribution of counterfeit currency within Richmond.",
    "In November 2022, S. Taylor, leveraging his expertise as a graphic designer, acquired specialized materials, "
    "including high-quality paper and inks mirroring those used in genuine banknotes, from three suppliers.",
    "Using this assemblage of resources and sophisticated printing technology, the defendant fabricated counterfeit "
    "$100 bills in his personal workshop located at his residence, 32 Eagleton Street.",
    "In December 2022, S. Taylor initiated a distribution scheme targeting small grocery stores and petrol stations, "
    "passing the notes in small purchases so that the change he received was genuine money.",
    "In early January 2023, S. Taylor enlisted the assistance of M. Johnson, an accomplice, who passed a further "
    "forty notes in neighbouring towns before the scheme was discovered by a bank teller.",
]
FILLER = ("The court has examined every statement made in these proceedings with the care the law requires of it, "
          "and it records here only what bears on the matter decided. ")


def judgement() -> str:
    facts = "\n\n".join(f"{p} {FILLER * 2}" for p in FACTS)
    return (
        "# Northwood, Richmond, Court\n\n**In the Northwood, Richmond, Court**\n\n**CRIMINAL JUDGMENT**\n\n"
        "**Defendant and Defense Lawyer Information**\n\nDefendant:\nName: S. Taylor\nOccupation: Graphic Designer\n\n"
        "**Case Procedures**\n\nThis court records the procedural history of the case. " + FILLER + "\n\n"
        "**1. Case Filing and Investigation:**\n\nOn the 10th of January 2023 the Procuratorate received a complaint. "
        + FILLER + "\n\n"
        f"**Case Statement**\n\n{facts}\n\n"
        "**Judgment Result**\n\nIn light of the aforementioned considerations, this court adjudges the defendant, "
        "S. Taylor, guilty of the Crime of Counterfeiting Currency. " + FILLER + "\n"
    )


@pytest.fixture(scope="module")
def corpus(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("summary"), {
        "120_judgement.md": judgement(),
        "handbook.md": "# Staff handbook\n\nCore hours are 10:00 to 16:00. The cafeteria opens at 11:30.\n",
    })


def test_the_facts_are_quoted_from_the_case_statement_and_the_rest_of_it_is_listed_next(services, corpus):
    result = ask(services, "According to the judgment of Northwood, Richmond, Court, summarize the facts of "
                           "S. Taylor's crime.")
    assert result.answerable and "Case Statement" in result.answer, result.answer
    assert "The case at bar centers upon" in result.answer  # from the section's start, not its best sentence
    sections = [s.section for s in result.sources]
    cited = [s for s in result.sources if s.cited]
    assert cited and all(s.section == "Northwood, Richmond, Court > Case Statement" for s in cited), sections
    statement = [i for i, s in enumerate(result.sources) if s.section.endswith("Case Statement")]
    assert statement == list(range(len(statement))), sections  # the section first, nothing in between
    listed = " ".join(s.snippet for s in result.sources)
    assert all(p[:60] in listed for p in FACTS), sections  # all of it, though the search ranked other parts higher
