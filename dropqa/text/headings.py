"""The one table of heading and numbering rules (第3章, 第2节, 一、, （一）, 3.2.1, 1、, 附录 A, Chapter 4).

Every reader of numbered text — the plain-text and Word parsers, the PDF layout
pass, OCR line joining and title normalisation — takes its patterns from
:data:`RULES` instead of writing its own regex. The callers do not all want the
same thing: the text parser wants ``第三章`` followed by a space, colon or the
line's end; the PDF pass wants a title character after ``一、``; normalisation
wants ``一、`` *alone* on the line. Those differences are the options of
:meth:`HeadingRule.pattern` (which numerals, which suffix characters, which
boundary after the number, how many digits), named here once as constants.

Nothing here decides levels in context (that is the caller's document logic);
``HeadingRule.level`` is only the default level the rule implies (None: the
level follows from the numbering depth or the enclosing heading).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# Chinese numerals: the full set (一 … 两), the units 一 … 十 only, and the units with 百.
CN_NUMERALS = "一二三四五六七八九十百零〇两"
CN_UNITS = "一二三四五六七八九十"
CN_UNITS_HUNDRED = "一二三四五六七八九十百"

# What may follow a number (options ``tail`` / ``sep``), named once.
WORD_END = r"(?:\s|$|[：:、])"  # a space, a colon, 、 or the end of the line
NOT_DIGIT = r"(?!\d)"  # 1.2 is a number, not the item "1." followed by 2
TITLE_FOLLOWS = r"\s*\S"  # some title text after the marker
ALONE = r"\s*$"  # the marker is the whole line (a title that says nothing)
ANY_SEP = r"[、．.]"  # 一、 一． 一.


@dataclass(frozen=True)
class HeadingRule:
    """One named numbering rule: a regex template with ``{option}`` slots and their defaults."""

    name: str
    template: str
    level: int | None  # default outline level the rule implies (None: by depth or context)
    defaults: Mapping[str, str] = field(default_factory=dict)
    ignore_case: bool = False

    def pattern(self, **options: str) -> str:
        """The regex body (not anchored), with ``options`` replacing the default slot values."""
        unknown = set(options) - set(self.defaults)
        if unknown:
            raise TypeError(f"heading rule {self.name!r} has no option {sorted(unknown)}")
        return self.template.format(**{**self.defaults, **options})

    def compile(self, *, ignore_case: bool | None = None, **options: str) -> re.Pattern[str]:
        """The rule anchored at the start of the text (``^…``)."""
        flags = re.IGNORECASE if (self.ignore_case if ignore_case is None else ignore_case) else 0
        return re.compile("^" + self.pattern(**options), flags)


def _rule(name: str, template: str, level: int | None, ignore_case: bool = False, **defaults: str) -> HeadingRule:
    return HeadingRule(name, template, level, MappingProxyType(defaults), ignore_case)


RULES: Mapping[str, HeadingRule] = MappingProxyType({r.name: r for r in (
    # 第3章 / 第三篇 / 第二部分; ``kinds`` widens it (OCR: 章节篇部条), ``tail`` bounds it.
    _rule("chapter", r"第[{numerals}\d]+{kinds}{tail}", 1, numerals=CN_NUMERALS, kinds="[章篇部]", tail=""),
    # 第2节
    _rule("cn_section", r"第[{numerals}\d]+节{tail}", 2, numerals=CN_NUMERALS, tail=""),
    # 一、 一． 一.
    _rule("cn_item", r"[{numerals}]+{sep}{tail}", 1, numerals=CN_NUMERALS, sep=ANY_SEP, tail=""),
    # （一） (一)
    _rule("cn_paren", r"[（(][{numerals}]{count}[）)]{tail}", 2, numerals=CN_NUMERALS, count="+", tail=""),
    # 1.2 / 1.2.3 (group 1: the number; its dots give the depth)
    _rule("decimal", r"({digits}(?:\.{digits}){repeat}){tail}", None, digits=r"\d{1,2}", repeat="+", tail=""),
    # 1、 1. 1．
    _rule("arabic_item", r"\d{{1,2}}{sep}{tail}", None, sep=ANY_SEP, tail=NOT_DIGIT),
    # "3 基础设施": a single number, spaces, a title
    _rule("arabic_top", r"\d{{1,2}}\s+{tail}", 1, tail=r"[^\d\s]"),
    # 附录 A / 附件1 / 附表 / Appendix / Annex
    _rule("appendix", r"{words}{tail}", 1, ignore_case=True,
          words="(?:附录|附件|附表|Appendix|Annex)", tail=""),
    # Chapter 4 / Part II
    _rule("en_chapter", r"{words}\s+{tail}", 1, ignore_case=True, words="(?:chapter|part)", tail=r"[\dIVXLC]+\b"),
)})


def rule(name: str) -> HeadingRule:
    return RULES[name]


def depth_of(number: str) -> int:
    """``3`` → 1, ``3.2`` → 2, ``3.2.1.`` → 3."""
    return number.rstrip(".").count(".") + 1
