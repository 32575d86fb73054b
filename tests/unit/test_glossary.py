"""The labels-and-headings glossary: ``dropqa/text/glossary.tsv``, read by ``translate_terms`` before
CC-CEDICT, and ``python -m dropqa.evals.glossary`` that learns it from parallel corpora."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from dropqa.evals import glossary
from dropqa.text import bilingual
from dropqa.text.bilingual import translate_terms

# ---------------------------------------------------------------- the shipped glossary


def _rows() -> list[tuple[str, str]]:
    text = resources.files("dropqa.text").joinpath("glossary.tsv").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        zh, en = line.split("\t")
        rows.append((zh, en))
    return rows


def test_glossary_loads_once_with_a_header_and_clean_rows():
    text = resources.files("dropqa.text").joinpath("glossary.tsv").read_text(encoding="utf-8")
    assert text.startswith("# ") and "python -m dropqa.evals.glossary" in text.split("\n\n")[0]
    rows = _rows()
    assert len(rows) >= 100 and len(set(rows)) == len(rows)
    for zh, en in rows:
        assert re.fullmatch(r"[\u4e00-\u9fff]{2,12}", zh), zh
        assert re.fullmatch(r"[a-z][a-z' \-]*[a-z]", en) and len(en.split()) <= 6, en
    g = bilingual._glossary()
    assert g is bilingual._glossary()  # read once
    assert g.to_en["主诉"][0] == "chief complaint"
    assert g.to_zh[("chief", "complaint")] == ("主诉",)


def test_glossary_holds_no_names():
    """Labels and headings only: no courts, hospitals or places (…市…区), no pseudonyms (马某某)."""
    for zh, en in _rows():
        assert not re.search(r"[市区县省镇村某]", zh), zh
        assert "hospital" not in en or en in ("hospital name", "hospitalization record"), en


@pytest.mark.parametrize(
    ("zh", "en"),
    [
        ("主诉", "chief complaint"),
        ("现病史", "present illness"),
        ("辅助检查", "auxiliary examination"),
        ("辩护人", "defense lawyer"),
        ("审判长", "chief judge"),
        ("书记员", "court clerk"),
        ("检察院", "procuratorate"),
        ("入院时间", "admission time"),
        ("初步诊断", "preliminary diagnosis"),
        ("既往史", "past history"),
    ],
)
def test_known_pairs_translate_both_ways(zh, en):
    assert en in translate_terms([zh], "en", per_term=3)[zh]
    assert zh in translate_terms([en], "zh", per_term=3)[en]


def test_glossary_comes_first_then_the_dictionary():
    got = translate_terms(["辩护律师", "审判长", "chief complaint", "auxiliary examination"], "en", per_term=3)
    assert got["辩护律师"][0] == "defense lawyer"
    assert got["审判长"][:2] == ["chief judge", "presiding judge"]  # then CC-CEDICT's own gloss
    assert "chief complaint" not in got  # already English
    got = translate_terms(["chief complaint", "auxiliary examination", "procuratorate"], "zh", per_term=3)
    assert got["chief complaint"] == ["主诉"]  # a label phrase: the glossary's words only
    assert got["auxiliary examination"] == ["辅助检查"]
    assert got["procuratorate"][0] == "检察院"
    # the dictionary's best stays first when the glossary's only lengthens it (被告 in 被告人)
    assert translate_terms(["defendant"], "zh")["defendant"] == ["被告", "被告人"]


def test_english_is_folded_case_plurals_hyphens():
    got = translate_terms(["Chief Complaints", "post-admission course record", "Defense Lawyers"], "zh")
    assert got["Chief Complaints"] == ["主诉"]
    assert got["post-admission course record"] == ["入院后病程记录"]
    assert got["Defense Lawyers"][0] == "辩护人"


def test_longest_glossary_match_inside_a_term():
    assert translate_terms(["patient chief complaint"], "zh", per_term=3)["patient chief complaint"][0] == "主诉"
    got = translate_terms(["辩护律师事务所"], "en", per_term=3)["辩护律师事务所"]
    assert "defense lawyer" in got


def test_a_term_inside_glossary_phrases():
    got = translate_terms(["complaint", "examination", "admission", "result"], "zh", per_term=3)
    assert "主诉" in got["complaint"]  # the head of "chief complaint" only, and CC-CEDICT lacks it
    assert "检查" in got["examination"]  # what physical/auxiliary/specialist examination share
    assert "入院" in got["admission"]  # admission time, admission records, post-admission …
    assert "判决结果" not in got["result"]  # the dictionary's 结果 says it already
    got = translate_terms(["入院", "辩护"], "en", per_term=3)
    assert "admission" in got["入院"]
    assert "defense lawyer" in got["辩护"]
    # "chief" is in "chief complaint" and "chief judge", which share nothing: of what? nothing added
    assert translate_terms(["chief"], "zh", per_term=3) == translate_terms(["chief"], "zh", per_term=3, glossary=False)


@pytest.mark.parametrize(
    ("terms", "target"),
    [
        (["医院", "补助", "伙食补助", "法院", "北京", "货币"], "en"),
        (["hospital", "currency", "supreme court", "court of law", "sentenced", "Einstein"], "zh"),
    ],
)
def test_terms_the_glossary_does_not_know_translate_as_before(terms, target):
    assert translate_terms(terms, target, per_term=3) == translate_terms(terms, target, per_term=3, glossary=False)


def test_dictionary_glosses_is_the_dictionary_alone():
    assert bilingual.dictionary_glosses("医院") == ("hospital",)
    assert "external" in bilingual.dictionary_glosses("外")  # a stopword for search, still an entry
    assert bilingual.dictionary_glosses("主诉")[0] != "chief complaint"
    assert bilingual.dictionary_glosses("书记员") == ()


# ---------------------------------------------------------------- learning it

EN_RECORD = """\
# Lexington General Hospital: {name}

Hospitalization Record

Basic Information:
Name: {name}
Gender: {gender}
Age: {age}
Admission Time: {day}
Hospital Name: Lexington General Hospital

Chief Complaint:
{complaint} for two weeks; the patient came to Lexington General Hospital.

Present Illness:
The patient reports {complaint}. No other symptom. Physician on duty examined the patient.

Auxiliary Examination:
Chest examination and blood tests.

Preliminary Diagnosis:
{diagnosis}

Discharge Records:
The patient left the hospital after treatment; diagnosis confirmed.
"""

ZH_RECORD = """\
# 银杏市人民医院：{name}

住院病历

基本信息：
姓名：{name}
性别：{gender}
年龄：{age}岁
入院时间：{day}
医院名称：银杏市人民医院

主诉：
{complaint}两周。患者到银杏市人民医院就诊。

现病史：
患者自述{complaint}，无其他症状。

辅助检查：
胸部检查及血常规检查。

初步诊断：
{diagnosis}

出院记录：
患者治疗后出院，诊断明确。
"""

EN_PEOPLE = [("Q. Reyes", "Female", 87, "5th, August", "Cough", "Pneumonia"),
             ("J. Brooks", "Male", 45, "1st, May", "Fever", "Influenza"),
             ("A. Davis", "Male", 60, "9th, March", "Chest pain", "Angina")]
ZH_PEOPLE = [("马某某", "女", 28, "2月4日", "咳嗽", "肺炎"),
             ("葛某某", "男", 50, "3月1日", "发热", "流感"),
             ("蓝某某", "男", 66, "7月9日", "胸痛", "心绞痛")]


@pytest.fixture
def parallel(tmp_path: Path) -> tuple[Path, Path]:
    en, zh = tmp_path / "en", tmp_path / "zh"
    en.mkdir()
    zh.mkdir()
    for i, (name, gender, age, day, complaint, diagnosis) in enumerate(EN_PEOPLE):
        (en / f"{i}_record.md").write_text(EN_RECORD.format(name=name, gender=gender, age=age, day=day,
                                                            complaint=complaint, diagnosis=diagnosis))
    for i, (name, gender, age, day, complaint, diagnosis) in enumerate(ZH_PEOPLE):
        (zh / f"{i}_住院病历.md").write_text(ZH_RECORD.format(name=name, gender=gender, age=age, day=day,
                                                             complaint=complaint, diagnosis=diagnosis),
                                            encoding="utf-8")
    (en / "notes.pdf").write_bytes(b"%PDF-1.4")  # not text: skipped, said so
    return en, zh


def test_labels_of_reads_every_label_form():
    en = "\n".join([
        "# Quarryville Court", "**I. Court and Prosecutor Information**", "**Court**: Quarryville Court\\",
        "**Chief Judge:** J. Phillips", "- **Name:** N. Adams",
        "1. **Case Filing and Investigation: March 15, 2023**\\",
        "Chief Complaint:", "The patient said: it hurts.", "| Name: | table |",
    ])
    assert glossary.labels_of(en, "en") == [
        "quarryville court", "court and prosecutor information", "court", "chief judge", "name",
        "case filing and investigation", "chief complaint",
    ]
    zh = "\n".join(["## 案情陈述", "**公诉机关**：银杏市人民检察院。", "交（接）班记录：无", "一、审判长：岑某某",
                   "经审理查明：", "2023年5月1日，某某说：是。"])
    assert glossary.labels_of(zh, "zh") == ["案情陈述", "公诉机关", "交接班记录", "审判长", "经审理查明"]


def test_learning_aligns_the_labels_of_two_tiny_parallel_folders(parallel, tmp_path, capsys):
    en, zh = parallel
    out = tmp_path / "glossary.tsv"
    assert glossary.main(["--en", str(en), "--zh", str(zh), "--out", str(out), "--min-docs", "2"]) == 0
    printed = capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# DropQA glossary") and "--min-docs 2" in text and str(tmp_path) not in text
    learned: dict[str, set[str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("# "):
            section = line[2:]
        elif not line.startswith("#"):
            zh_label, en_label = line.split("\t")
            if section == "record":
                learned.setdefault(zh_label, set()).add(en_label)
    assert learned["主诉"] == {"chief complaint"}
    assert learned["现病史"] == {"present illness"}
    assert learned["辅助检查"] == {"auxiliary examination"}
    assert learned["初步诊断"] == {"preliminary diagnosis"}
    assert learned["姓名"] == {"name"}
    assert learned["性别"] == {"gender"}
    assert learned["入院时间"] == {"admission time"}
    assert learned["医院名称"] == {"hospital name"}
    assert learned["出院记录"] == {"discharge records"}
    # the hospital heading is in every document, yet a name: never a pair, and said so
    assert not any("市" in z or "lexington" in e for z, es in learned.items() for e in es)
    assert "zh labels with a name in them: 银杏市人民医院 (3)" in printed
    assert "en labels with a name in them: lexington general hospital (3)" in printed
    assert "notes.pdf: not text" in printed
    # the hand review's pairs follow the learned ones
    assert "# added by hand" in text and "辩护律师\tdefense lawyer" in text


def test_the_dictionary_check_and_the_name_check():
    assert glossary.strong("主诉", "chief complaint") is False  # half of it: "complain of"
    assert glossary.support("主诉", "chief complaint") >= 0.5
    assert glossary.strong("初步诊断", "preliminary diagnosis")
    assert glossary.support("辩护人", "birthdate") == 0.0
    assert not glossary._same_word("defend", "defendant")
    assert glossary._same_word("complaint", "complain") and glossary._same_word("diagnosis", "diagnose")
    names = glossary.proper_nouns(["He was taken to Quarryville hospital by the Chief Judge.", "the chief"])
    assert names == {"quarryville"}
    assert glossary.looks_like_name("quarryville court", "en", names)
    assert glossary.looks_like_name("银杏市人民医院", "zh") and not glossary.looks_like_name("医院名称", "zh")
    # a place CC-CEDICT knows, but only as a name
    assert bilingual.dictionary_knows_only_as_a_name("Lexington")
    assert not bilingual.dictionary_knows_only_as_a_name("chief")
    assert glossary.proper_nouns(["He was taken to Lexington hospital."]) == {"lexington"}
