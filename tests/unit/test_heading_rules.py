"""The one heading-rule table: named rules, explicit options, and the callers' differing boundaries."""
import pytest

from dropqa.ingestion.headings import match_heading
from dropqa.ingestion.normalize import is_meaningless_title
from dropqa.ingestion.ocr import starts_with_marker
from dropqa.ingestion.parsers.heading_patterns import match_heading_pattern
from dropqa.ingestion.parsers.pdf_layout import pattern_level
from dropqa.text.headings import ALONE, RULES, WORD_END, depth_of, rule


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


def test_each_caller_keeps_its_own_reading_of_the_same_line() -> None:
    # 第三章总则 (no separator): the text parser wants a boundary, Word, PDF and OCR do not
    assert match_heading("第三章总则") is None
    assert match_heading_pattern("第三章总则").kind == "chapter"  # type: ignore[union-attr]
    assert pattern_level("第三章总则") == 1 and starts_with_marker("第三章总则")
    # 一、 alone is a title that says nothing; 一、总则 is not
    assert is_meaningless_title("一、") and not is_meaningless_title("一、总则")
    # 第5条: only OCR's marker list knows articles
    assert starts_with_marker("第5条 保密") and pattern_level("第5条 保密") is None
