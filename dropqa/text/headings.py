"""The one table of heading and numbering rules (第3章, 第2节, 一、, （一）, 3.2.1, 1、, 附录 A, Chapter 4),
and the one heading classifier built on it.

:func:`classify_heading` says whether a short line is a numbered heading and of which kind; the
plain-text and Word parsers both use it (:class:`LevelResolver` turns kinds into outline levels
within one document). Questions use the same rules: :func:`chapter_named` finds "第3章" /
"chapter 3" in a question, :func:`is_chapter_title` finds that chapter's heading, and
:func:`without_chapter_refs` drops the reference from a search text.

Every other reader of numbered text — the PDF layout pass, OCR line joining and title
normalisation — takes its patterns from :data:`RULES` instead of writing its own regex. The callers do not all want the
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
from typing import Literal

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


# ----------------------------------------------------------------------------- the classifier

MAX_HEADING_CHARS = 50  # a numbered line longer than this is body text
_ENDS_SENTENCE = re.compile(r"[。；;！!？?，,：:]$")

HeadingKind = Literal["chapter", "appendix", "cn_section", "cn_item", "cn_paren", "decimal", "arabic_item",
                      "arabic_top"]
# The Chinese numbering hierarchy: a kind below another nests under it (第N章 > 第N节 > 一、 > （一） > 1.).
RANKS: Mapping[str, int] = MappingProxyType({"chapter": 1, "appendix": 1, "cn_section": 2, "cn_item": 3,
                                             "cn_paren": 4, "arabic_item": 5})


@dataclass(frozen=True)
class Heading:
    """A numbered heading: its kind, its numbering depth (3.2.1 → 3; 1 for the others), and the outline
    level the numbering fixes by itself (``None``: relative to the enclosing heading, see :data:`RANKS`)."""

    kind: HeadingKind
    depth: int = 1
    level: int | None = None

    @property
    def rank(self) -> int | None:
        return RANKS.get(self.kind)


_CLASSIFIERS: tuple[tuple[re.Pattern[str], HeadingKind], ...] = (
    (rule("chapter").compile(kinds="[编篇部章](?:分)?"), "chapter"),
    (rule("appendix").compile(ignore_case=False, words="(?:附录|附件|附表)",
                              tail=rf"\s*[A-Za-z\d{CN_UNITS}]*(?:\s|$|[、：:．.])"), "appendix"),
    (rule("appendix").compile(words="(?:appendix|annex)", tail=r"(?:\s+[\w.]+)?\b"), "appendix"),
    (rule("en_chapter").compile(tail=r"[\w.]+"), "chapter"),
    (rule("cn_section").compile(), "cn_section"),
    (rule("cn_item").compile(tail=NOT_DIGIT), "cn_item"),
    (rule("cn_paren").compile(), "cn_paren"),
    (rule("decimal").compile(digits=r"\d{1,3}", repeat="{1,5}", tail=r"\.?(?=\s|[^\d.%]|$)"), "decimal"),
    (rule("arabic_item").compile(tail=NOT_DIGIT), "arabic_item"),
    (rule("arabic_top").compile(tail=r"(?=[^\d\s%])"), "arabic_top"),
)
_QUANTITY = re.compile(r"^\d+(\.\d+)?\s*[%％万亿元个年月日]")  # "1.5万元", "2024年": a number, not a heading


def ends_like_sentence(text: str) -> bool:
    return bool(_ENDS_SENTENCE.search(text.strip()))


def looks_like_heading_text(text: str, max_chars: int = MAX_HEADING_CHARS) -> bool:
    """Short, one line, and not a sentence: a numbered line ending in 。 is body text, not a title."""
    s = text.strip()
    return 0 < len(s) <= max_chars and "\n" not in s and not ends_like_sentence(s)


def classify_heading(text: str, *, check_shape: bool = True) -> Heading | None:
    """The numbered heading ``text`` is, or None (body text, or not numbered). ``check_shape=False`` reads
    the numbering of a text already known to be a title (a styled heading, however long)."""
    s = text.strip()
    if (check_shape and not looks_like_heading_text(s)) or _QUANTITY.match(s):
        return None
    for regex, kind in _CLASSIFIERS:
        m = regex.match(s)
        if not m:
            continue
        if kind == "decimal":
            depth = depth_of(m.group(1))
            return Heading(kind, depth, depth)
        return Heading(kind, 1, 1 if kind in ("chapter", "appendix", "arabic_top") else None)
    return None


def title_rank(title: str | None) -> int | None:
    """The rank (:data:`RANKS`) of an existing section title's numbering; None when it is not Chinese-numbered."""
    heading = classify_heading(title, check_shape=False) if title else None
    return heading.rank if heading else None


class LevelResolver:
    """Outline levels for the numbered headings of one plain-text document: the Chinese kinds by their
    rank among the kinds the document uses (a document that uses 第N章 puts 一、 one level below it and
    （一） below that); decimal numbers (and 1. / "1 title") nest by their depth, under a chapter if any."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def level(self, heading: Heading) -> int:
        if heading.rank is None or heading.kind == "arabic_item":
            return (1 if "chapter" in self.seen else 0) + heading.depth
        kind = "chapter" if heading.kind == "appendix" else heading.kind
        if kind not in self.seen:
            self.seen.append(kind)
        return sorted(self.seen, key=RANKS.__getitem__).index(kind) + 1


# ----------------------------------------------------------------------------- chapters named in questions

_CN_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")}
_CN_CHAPTER_REF = rf"第\s*([{CN_UNITS}\d]+)\s*[章节部分篇]"
_CHAPTER_REF = re.compile(rf"{_CN_CHAPTER_REF}|(?i:chapter|section|part)\s+(\d+)")


def cn_number(text: str) -> int | None:
    """``3`` / ``三`` / ``十二`` / ``二十一`` → the number (1–99), else None."""
    if text.isdigit():
        return int(text)
    if len(text) == 1:
        return _CN_DIGITS.get(text) or None
    if text.startswith("十") and len(text) == 2:
        return 10 + _CN_DIGITS.get(text[1], 0)
    if len(text) >= 2 and text[1] == "十":
        return _CN_DIGITS.get(text[0], 0) * 10 + (_CN_DIGITS.get(text[2], 0) if len(text) > 2 else 0)
    return None


def chapter_named(question: str) -> int | None:
    """The chapter (section, part) number a question names: "第三章" → 3, "chapter 4" → 4; None when none."""
    m = _CHAPTER_REF.search(question)
    return cn_number(next(g for g in m.groups() if g)) if m else None


def without_chapter_refs(text: str) -> str:
    """``text`` with its Chinese chapter references ("第3章", "第二部分") taken out (English ones are words
    a caller's stop list drops: "chapter", "section")."""
    return re.sub(_CN_CHAPTER_REF, " ", text)


def is_chapter_title(title: str, n: int) -> bool:
    """Is ``title`` the heading of chapter ``n`` ("第3章 …", "第三章", "3 …", "3. …", "Chapter 3")?"""
    cn = "零一二三四五六七八九十"[n] if n <= 10 else str(n)
    pattern = rf"^\s*(第\s*({n}|{cn})\s*[章节部分篇]|{n}(\s|[.、．]\s*\D)|(chapter|section|part)\s+{n}\b)"
    return re.search(pattern, title, re.I) is not None
