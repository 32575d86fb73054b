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

_CN = "一二三四五六七八九十百零〇两"
_NUM = rf"[{_CN}\d]+"


@dataclass(frozen=True)
class HeadingPattern:
    kind: str
    level: int | None = None  # fixed outline level, when the pattern implies one
    rank: int | None = None  # position in the Chinese numbering hierarchy, for relative levels


_RULES: list[tuple[re.Pattern[str], str, int | None, int | None]] = [
    (re.compile(rf"^第{_NUM}[编篇部章]"), "chapter", 1, 1),
    (re.compile(r"^(?:附录|附件)\s*[A-Za-z\d一二三四五六七八九十]*(?:\s|$|[、：:．.])"), "appendix", 1, 1),
    (re.compile(r"^(?:chapter|part|appendix)\s+[\w.]+", re.IGNORECASE), "chapter", 1, 1),
    (re.compile(rf"^第{_NUM}节"), "cn_section", None, 2),
    (re.compile(rf"^[{_CN}]+、"), "cn_item", None, 3),
    (re.compile(rf"^[（(][{_CN}]+[）)]"), "cn_paren", None, 4),
    (re.compile(r"^\d{1,3}(?:\.\d{1,3}){1,5}\.?(?=\s|[^\d.%]|$)"), "decimal", None, None),
    (re.compile(r"^\d{1,2}[、．.](?!\d)"), "arabic_item", None, 5),
    (re.compile(r"^\d{1,2}\s+(?=[^\d\s%])"), "arabic_top", 1, None),
]


def match_heading_pattern(text: str) -> HeadingPattern | None:
    """The numbering pattern ``text`` starts with, or None for ordinary text."""
    stripped = text.strip()
    for regex, kind, level, rank in _RULES:
        m = regex.match(stripped)
        if not m:
            continue
        if kind == "decimal":
            depth = m.group(0).rstrip(".").count(".") + 1
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
