"""The one heading-rule table and the one heading classifier: named rules, explicit options, one reading
of a numbered line for every parser, and the same rules for chapters named in questions."""
import pytest

from dropqa.ingestion.normalize import is_meaningless_title
from dropqa.ingestion.ocr import starts_with_marker
from dropqa.ingestion.parsers.pdf_layout import pattern_level
from dropqa.text.headings import (
    ALONE,
    RULES,
    WORD_END,
    Heading,
    LevelResolver,
    chapter_named,
    classify_heading,
    depth_of,
    is_chapter_title,
    rule,
    title_rank,
    without_chapter_refs,
)


def test_table_names_every_rule_with_a_default_level() -> None:
    assert set(RULES) == {"chapter", "cn_section", "cn_item", "cn_paren", "decimal", "arabic_item", "arabic_top",
                          "appendix", "en_chapter"}
    assert rule("chapter").level == 1 and rule("cn_section").level == 2 and rule("decimal").level is None


def test_options_change_the_boundary_not_the_rule() -> None:
    bare, bounded, alone = (rule("chapter").compile(), rule("chapter").compile(tail=WORD_END),
                            rule("chapter").compile(tail=ALONE))
    assert bare.match("第三章总则") and not bounded.match("第三章总则") and bounded.match("第三章：总则")
    assert alone.match("第三章 ") and not alone.match("第三章 总则")
    assert rule("decimal").compile(digits=r"\d{1,3}").match("123.4") and not rule("decimal").compile().match("123.4")


def test_an_unknown_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="cn_item"):
        rule("cn_item").pattern(digits="x")


def test_appendix_case_is_an_option() -> None:
    assert rule("appendix").compile().match("appendix B")
    assert not rule("appendix").compile(ignore_case=False).match("appendix B")


def test_depth_of_counts_the_dots() -> None:
    assert [depth_of(n) for n in ("3", "3.2", "3.2.1.")] == [1, 2, 3]


def test_one_classifier_reads_a_numbered_line_the_same_for_every_parser() -> None:
    # 第三章总则 (no separator) is a chapter for text, Word, PDF and OCR alike
    assert classify_heading("第三章总则") == Heading("chapter", 1, 1)
    assert pattern_level("第三章总则") == 1 and starts_with_marker("第三章总则")
    # 一、 alone is a title that says nothing; 一、总则 is not
    assert is_meaningless_title("一、") and not is_meaningless_title("一、总则")
    # 第5条: only OCR's marker list knows articles
    assert starts_with_marker("第5条 保密") and pattern_level("第5条 保密") is None


@pytest.mark.parametrize(("line", "kind", "level", "rank"), [
    ("第一章 概述", "chapter", 1, 1), ("第二部分 实施", "chapter", 1, 1), ("Chapter 4 Results", "chapter", 1, 1),
    ("附录A 术语", "appendix", 1, 1), ("Appendix B", "appendix", 1, 1), ("第2节 范围", "cn_section", None, 2),
    ("一、背景", "cn_item", None, 3), ("一．背景", "cn_item", None, 3), ("（一）目标", "cn_paren", None, 4),
    ("3.2 云平台", "decimal", 2, None), ("3.2.1 存储", "decimal", 3, None), ("1. 总则", "arabic_item", None, 5),
    ("1 总则", "arabic_top", 1, None),
])
def test_kinds_levels_and_ranks(line: str, kind: str, level: int | None, rank: int | None) -> None:
    heading = classify_heading(line)
    assert heading is not None and (heading.kind, heading.level, heading.rank) == (kind, level, rank)


@pytest.mark.parametrize("line", ["1.5万元的预算", "2024年度", "一、背景：", "第三章讲了系统的总体设计。",
                                  "5G网络", "3.14%", "x" * 51, ""])
def test_quantities_sentences_and_long_lines_are_not_headings(line: str) -> None:
    assert classify_heading(line) is None


def test_a_styled_title_keeps_its_numbering_whatever_its_length() -> None:
    long_title = "一、" + "关于加强数据安全管理" * 6
    assert classify_heading(long_title) is None and title_rank(long_title) == 3


def test_plain_text_levels_follow_the_kinds_a_document_uses() -> None:
    resolver = LevelResolver()
    lines = ("第一章 总则", "一、目的", "（一）范围", "第二章 要求", "2.1 细则")
    levels = [resolver.level(classify_heading(t)) for t in lines]
    assert levels == [1, 2, 3, 1, 3]
    alone = LevelResolver()
    assert [alone.level(classify_heading(t)) for t in ("一、目的", "（一）范围", "1 范围", "1.1 细则")] == [1, 2, 1, 2]


def test_chapters_named_in_questions_use_the_same_rules() -> None:
    assert chapter_named("第三章讲了什么？") == 3 and chapter_named("What does chapter 12 say?") == 12
    assert chapter_named("第十一节") == 11 and chapter_named("年度目标是什么") is None
    assert is_chapter_title("第3章 基础设施", 3) and is_chapter_title("第三章", 3) and is_chapter_title("3. Infra", 3)
    assert not is_chapter_title("3.2 云平台", 3) and not is_chapter_title("第4章", 3)
    assert without_chapter_refs("第3章讲了什么").strip() == "讲了什么"
