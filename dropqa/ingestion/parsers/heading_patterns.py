"""Recognise headings written as numbered text (``第3章 …``, ``3.2 …``, ``一、…``).

Many Chinese office documents use bold short paragraphs instead of heading
styles. The numbering tells the level: some patterns fix it outright
(``第N章`` is a chapter, ``3.2.1`` is three deep), others only say "one below
the enclosing numbered heading" (``一、`` under a chapter, ``（一）`` under
``一、``). ``rank`` orders the relative kinds so the outline can find the parent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dropqa.text.headings import CN_UNITS, NOT_DIGIT, depth_of, rule


@dataclass(frozen=True)
class HeadingPattern:
    kind: str
    level: int | None = None  # fixed outline level, when the pattern implies one
    rank: int | None = None  # position in the Chinese numbering hierarchy, for relative levels


_RULES: list[tuple[re.Pattern[str], str, int | None, int | None]] = [
    (rule("chapter").compile(kinds="[编篇部章]"), "chapter", 1, 1),
    (rule("appendix").compile(ignore_case=False, words="(?:附录|附件)",
                              tail=rf"\s*[A-Za-z\d{CN_UNITS}]*(?:\s|$|[、：:．.])"), "appendix", 1, 1),
    (rule("en_chapter").compile(words="(?:chapter|part|appendix)", tail=r"[\w.]+"), "chapter", 1, 1),
    (rule("cn_section").compile(), "cn_section", None, 2),
    (rule("cn_item").compile(sep="、"), "cn_item", None, 3),
    (rule("cn_paren").compile(), "cn_paren", None, 4),
    (rule("decimal").compile(digits=r"\d{1,3}", repeat="{1,5}", tail=r"\.?(?=\s|[^\d.%]|$)"), "decimal", None, None),
    (rule("arabic_item").compile(tail=NOT_DIGIT), "arabic_item", None, 5),
    (rule("arabic_top").compile(tail=r"(?=[^\d\s%])"), "arabic_top", 1, None),
]


def match_heading_pattern(text: str) -> HeadingPattern | None:
    """The numbering pattern ``text`` starts with, or None for ordinary text."""
    stripped = text.strip()
    for regex, kind, level, rank in _RULES:
        m = regex.match(stripped)
        if not m:
            continue
        if kind == "decimal":
            depth = depth_of(m.group(0))
            return HeadingPattern(kind, level=depth)
        return HeadingPattern(kind, level=level, rank=rank)
    return None


def title_rank(title: str | None) -> int | None:
    """Rank of an existing section title in the Chinese hierarchy (None: not Chinese-numbered)."""
    if not title:
        return None
    pattern = match_heading_pattern(title)
    return pattern.rank if pattern else None


_END_PUNCT = tuple("。；;！!？?，,")


def looks_like_heading_text(text: str, max_chars: int = 50) -> bool:
    """Short and not a sentence: a numbered line ending in 。 is body text, not a title."""
    stripped = text.strip()
    return 0 < len(stripped) <= max_chars and "\n" not in stripped and not stripped.endswith(_END_PUNCT)
