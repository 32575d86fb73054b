"""split_sentences on tricky English, Chinese and mixed text; clean_markup on Markdown inline markup."""

from __future__ import annotations

import pytest

from dropqa.text.sentences import clean_markup, ends_mid_sentence, split_sentences, truncate

ENGLISH: list[tuple[str, list[str]]] = [
    ("Acme Tourism Ltd. signed the deal in 2021. The price was fixed.",
     ["Acme Tourism Ltd. signed the deal in 2021.", "The price was fixed."]),
    ("The office is at No. 5 Street. Visit us.", ["The office is at No. 5 Street.", "Visit us."]),
    ("Dr. Smith approved it. Mr. Lee did not.", ["Dr. Smith approved it.", "Mr. Lee did not."]),
    ("Revenue rose to 3.5 million. Costs fell 2.4% in Q3.", ["Revenue rose to 3.5 million.", "Costs fell 2.4% in Q3."]),
    ("Use a token, e.g. an API key. Then retry.", ["Use a token, e.g. an API key.", "Then retry."]),
    ("Use the CLI, i.e. the dropqa command. It is fast.", ["Use the CLI, i.e. the dropqa command.", "It is fast."]),
    ("The U.S. Army won. The U.K. team lost.", ["The U.S. Army won.", "The U.K. team lost."]),
    ("J. Hall and R. Johnson met. They agreed.", ["J. Hall and R. Johnson met.", "They agreed."]),
    ("The report was signed by X. Morgan on Friday. It was filed.",
     ["The report was signed by X. Morgan on Friday.", "It was filed."]),
    ("Version 2.1 is out. Next one?", ["Version 2.1 is out.", "Next one?"]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("The price rose to $3.50 today! Really? Yes.", ["The price rose to $3.50 today!", "Really?", "Yes."]),
    ("See Vol. 3 and approx. 5 units. Done.", ["See Vol. 3 and approx. 5 units.", "Done."]),
    ("Aurora Analytics Ltd. · Handbook version 3.0", ["Aurora Analytics Ltd. · Handbook version 3.0"]),
]

ENUMERATIONS: list[tuple[str, list[str]]] = [
    ("Steps: 1. First item 2. Second item 3. Third item",
     ["Steps:", "1. First item", "2. Second item", "3. Third item"]),
    ("1. First item.\n2. Second item.", ["1. First item.", "2. Second item."]),
    ("## 2. Leave\nStaff get 25 days.", ["## 2. Leave", "Staff get 25 days."]),
    ("- Dr. Smith owns it. Mr. Lee helps.", ["- Dr. Smith owns it.", "Mr. Lee helps."]),
    # a sentence ending in a lone small number is not an enumeration
    ("The team has 12. Next year it grows.", ["The team has 12.", "Next year it grows."]),
]

LINES: list[tuple[str, list[str]]] = [
    ("Title without period\nBody text here. More text.", ["Title without period", "Body text here.", "More text."]),
    # Markdown hard break: the line still ends the unit, the backslash stays with its sentence
    ("First line ends here\\\nSecond line continues. Done.",
     ["First line ends here\\", "Second line continues.", "Done."]),
    ("Acme Ltd. is the vendor.\\\nIts CEO is Dr. Smith.", ["Acme Ltd. is the vendor.\\", "Its CEO is Dr. Smith."]),
    ("Line one.  \nLine two", ["Line one.", "Line two"]),
    ("a\r\nb\n\n\nc", ["a", "b", "c"]),
]

CHINESE: list[tuple[str, list[str]]] = [
    ("第一句。第二句！第三句？第四句；第五句", ["第一句。", "第二句！", "第三句？", "第四句；", "第五句"]),
    ("他说：“明天见。”然后走了。", ["他说：“明天见。”", "然后走了。"]),
    ("增长了3.5%。营收为12.8亿元。", ["增长了3.5%。", "营收为12.8亿元。"]),
    ("真的吗？！当然。", ["真的吗？！", "当然。"]),
    ("第一条\n第二条。第三条", ["第一条", "第二条。", "第三条"]),
    ("1. 第一项\n2. 第二项。", ["1. 第一项", "2. 第二项。"]),
    ("第一句!第二句?", ["第一句!", "第二句?"]),
    ("他犹豫了……然后离开。", ["他犹豫了……然后离开。"]),
]

MIXED: list[tuple[str, list[str]]] = [
    ("第一句。第二句！Version 2.1 is out. Next one?", ["第一句。", "第二句！", "Version 2.1 is out.", "Next one?"]),
    ("系统使用 PostgreSQL 16.2 版本。Dr. Smith 负责运维！详见附录。",
     ["系统使用 PostgreSQL 16.2 版本。", "Dr. Smith 负责运维！", "详见附录。"]),
    ("请联系 Dr. Wang。电话是 010-1234。", ["请联系 Dr. Wang。", "电话是 010-1234。"]),
    ("The project is called 星图计划。It started in 2021. Budget is 3.5 million.",
     ["The project is called 星图计划。", "It started in 2021.", "Budget is 3.5 million."]),
    ("负责人是 J. Hall，合作方为 Acme Ltd. 公司。", ["负责人是 J. Hall，合作方为 Acme Ltd. 公司。"]),
    # initials written right after a Chinese character, or one after another, stay with the name they open
    ("伊丽莎白港机场前称H. F. Verwoerd机场，位于南非。这个机场由南非机场公司运营。",
     ["伊丽莎白港机场前称H. F. Verwoerd机场，位于南非。", "这个机场由南非机场公司运营。"]),
    ("He chose Plan B. The next day he left.", ["He chose Plan B.", "The next day he left."]),
    # as with 他说：“明天见。”然后…: an English sentence closed inside quotes ends there too
    ("他说：“Done.”然后（见附录。）结束", ["他说：“Done.”", "然后（见附录。）", "结束"]),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH + ENUMERATIONS + LINES + CHINESE + MIXED)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_split_sentences_empty_and_blank() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\t\n") == []
    assert split_sentences("-") == ["-"]


def test_every_unit_is_verbatim_text() -> None:
    text = "## 1. Scope\nAcme Ltd. signed in 2021. 星图计划于2024年启动。预算为3.5亿元！Dr. Smith 负责。\\\n- Item one."
    for unit in split_sentences(text):
        assert unit in text


def test_a_long_mixed_text_is_split_without_losing_text() -> None:
    passage = ("Acme Tourism Ltd. signed the deal in 2021. Dr. Smith and J. Hall met at No. 5 Street. "
               "星图计划于2024年启动，预算为3.5亿元。负责人是 X. Morgan！"
               "Revenue rose to 3.5 million, e.g. in the U.S.\n") * 200
    units = split_sentences(passage)
    assert len(units) == 5 * 200
    assert "".join(units).replace(" ", "") == passage.replace(" ", "").replace("\n", "")


def test_ends_mid_sentence_and_truncate_unchanged() -> None:
    assert ends_mid_sentence("The budget is")
    assert not ends_mid_sentence("The budget is 5 EUR.")
    assert not ends_mid_sentence("预算为3.5亿元。 ")
    assert truncate("a  b\n c", 10) == "a b c"
    assert truncate("x" * 20, 10) == "x" * 9 + "…"


@pytest.mark.parametrize(("text", "expected"), [
    ("**Bold** text and __also bold__.", "Bold text and also bold."),
    ("__bold__", "bold"),
    ("An *emphasised* word and _this_ one.", "An emphasised word and this one."),
    ("***both***", "both"),
    ("my_var_name and some_other_var stay.", "my_var_name and some_other_var stay."),
    ("file_name.txt and _private", "file_name.txt and _private"),
    ("call obj.__init__() first", "call obj.__init__() first"),
    ("2*3*4 = 24 and a * b * c", "2*3*4 = 24 and a * b * c"),
    ("Price: 3.5 * 2 = 7.", "Price: 3.5 * 2 = 7."),
    ("Run `dropqa ingest` now.", "Run dropqa ingest now."),
    ("`a_b_c` and `*x*` stay inside code", "a_b_c and *x* stay inside code"),
    ("Use ``code with ` tick``.", "Use code with ` tick."),
    ("Line with hard break\\", "Line with hard break"),
    ("Two trailing spaces  ", "Two trailing spaces"),
    ("Text with a break  \nnext line\\\nlast", "Text with a break\nnext line\nlast"),
    ("- bullet item", "bullet item"),
    ("* star item", "star item"),
    ("1. First item", "First item"),
    ("Costs fell 2.4% in Q3. 1. is not at line start", "Costs fell 2.4% in Q3. 1. is not at line start"),
    ("a - b - c", "a - b - c"),
    ("## Heading ##", "Heading"),
    ("# Title", "Title"),
    ("#hashtag stays", "#hashtag stays"),
    ('See [the docs](https://example.com/a_b "T") here.', "See the docs here."),
    ("![diagram](img.png)", "diagram"),
    ("\\*not em\\*", "*not em*"),
    ("C:\\Users\\me", "C:\\Users\\me"),
    ("这是**重点**内容。", "这是重点内容。"),
    ("这是*强调*文字，_下划线_。", "这是强调文字，下划线。"),
    ("1. 第一项：**3.5亿元**", "第一项：3.5亿元"),
    ("预算为3.5亿元（2024年）；增长12%！", "预算为3.5亿元（2024年）；增长12%！"),
    ("Acme Tourism Ltd. signed the deal in 2021, e.g. for $3.50/unit.",
     "Acme Tourism Ltd. signed the deal in 2021, e.g. for $3.50/unit."),
])
def test_clean_markup(text: str, expected: str) -> None:
    assert clean_markup(text) == expected


def test_clean_markup_of_split_units() -> None:
    text = "## 1. Scope\n- **Owner:** Dr. Smith. See [policy](p.md).\\\n星图计划的*预算*为3.5亿元。"
    assert [clean_markup(s) for s in split_sentences(text)] == [
        "1. Scope", "Owner: Dr. Smith.", "See policy.", "星图计划的预算为3.5亿元。"]
