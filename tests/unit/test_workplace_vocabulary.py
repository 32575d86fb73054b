"""The hand-kept workplace vocabulary (``dropqa/text/workplace.tsv``): words of company documents CC-CEDICT lacks,
read by ``translate_terms`` after the learned glossary. Each pair must still fill a gap, so the file stays small."""

from __future__ import annotations

import re
from importlib import resources

from dropqa.text.bilingual import translate_terms


def _rows() -> list[tuple[str, str]]:
    text = resources.files("dropqa.text").joinpath("workplace.tsv").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        zh, en = line.split("\t")
        rows.append((zh, en))
    return rows


def test_rows_are_clean_and_unique():
    rows = _rows()
    assert len(rows) >= 40 and len(set(rows)) == len(rows)
    for zh, en in rows:
        assert re.fullmatch(r"[\u4e00-\u9fff]{2,8}", zh), zh
        assert re.fullmatch(r"[a-z][a-z&\- ]*[a-z]", en) and len(en.split()) <= 3, en


def test_every_pair_fills_a_gap_of_the_dictionary():
    """A pair CC-CEDICT already gives both ways (within the three translations a search uses) does not belong here."""
    for zh, en in _rows():
        to_en = translate_terms([zh], "en", per_term=3, glossary=False).get(zh, [])
        to_zh = translate_terms([en], "zh", per_term=3, glossary=False).get(en, [])
        assert en not in to_en or zh not in to_zh, (zh, en)


def test_the_vocabulary_translates_both_ways():
    """员工离职后，账号什么时候会被禁用？ is answered by "Accounts of leavers are disabled…": CC-CEDICT alone gives
    账号 as "username" and "account number" and 离职 as "resign"."""
    found = translate_terms(["账号", "离职", "访客", "费用"], "en", per_term=3)
    assert found["账号"][0] == "account" and found["离职"][0] == "leaver"
    assert "guest" in found["访客"] and "fee" in found["费用"]
    assert "account" not in translate_terms(["账号"], "en", per_term=3, glossary=False).get("账号", [])
    back = translate_terms(["account", "guest", "hosting"], "zh", per_term=3)
    assert back["account"][0] == "账号" and back["guest"][0] == "访客" and back["hosting"][0] == "托管"
