"""The golden suites kept in the repository (suites/): every evidence passage is written in its document,
word for word, so a suite scores DropQA and not its own typos."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SUITES = Path(__file__).resolve().parents[2] / "suites"
PAIRS = [(SUITES / "golden_fresh.yaml", SUITES / "corpus_fresh"),
         (SUITES / "golden_reports_zh.yaml", SUITES / "corpus_reports_zh"),
         (SUITES / "golden_reports_en.yaml", SUITES / "corpus_reports_en"),
         (SUITES / "golden_utility_zh.yaml", SUITES / "corpus_utility_zh"),
         (SUITES / "golden_hr_zh.yaml", SUITES / "corpus_hr_zh"),
         (SUITES / "golden_ops_en.yaml", SUITES / "corpus_ops_en"),
         (SUITES / "golden_towns_en.yaml", SUITES / "corpus_towns_en"),
         (SUITES / "golden_residents_zh.yaml", SUITES / "corpus_residents_zh"),
         (SUITES / "golden_saas_en.yaml", SUITES / "corpus_saas_en"),
         (SUITES / "golden_reports2_zh.yaml", SUITES / "corpus_reports2_zh"),
         (SUITES / "golden_school_zh.yaml", SUITES / "corpus_school_zh"),
         (SUITES / "golden_council_en.yaml", SUITES / "corpus_council_en"),
         # over the public dev corpora beside the repository (../shared/evals-dev)
         (SUITES / "golden_wiki_en.yaml", SUITES.parents[1] / "shared/evals-dev/multihop-dev-en/corpus"),
         (SUITES / "golden_wiki_zh.yaml", SUITES.parents[1] / "shared/evals-dev/cmrc-dev-zh/corpus")]


@pytest.mark.parametrize(("golden", "corpus"), PAIRS, ids=lambda p: p.name)
def test_every_evidence_passage_is_in_its_document(golden: Path, corpus: Path) -> None:
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not beside the repository")
    items = yaml.safe_load(golden.read_text(encoding="utf-8"))
    items = items["items"] if isinstance(items, dict) else items
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        if item["type"] == "no_answer":
            assert not item.get("evidence") and not item.get("answers"), item["id"]
        for ev in item.get("evidence") or []:
            doc = corpus / ev["document"]
            assert doc.is_file(), (item["id"], ev["document"])
            if doc.suffix in (".md", ".txt"):  # a PDF's text is what its parser extracts: checked by the evals
                assert ev["contains"] in doc.read_text(encoding="utf-8"), (item["id"], ev["contains"])
