"""Recognise numbered headings in plain text (and OCR text): 第三章, 一、, （一）, 1.2, 附录 …"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dropqa.text.headings import CN_UNITS, NOT_DIGIT, WORD_END, rule

CHAPTER = rule("chapter").compile(kinds="[章篇部](?:分)?", tail=WORD_END)
SECTION_CN = rule("cn_section").compile(tail=WORD_END)
CN_ENUM = rule("cn_item").compile(tail=NOT_DIGIT)
CN_PAREN = rule("cn_paren").compile()
DECIMAL = rule("decimal").compile(repeat="{0,4}", tail=r"(?:[\s、．.]|(?=[^\d\s.]))")
APPENDIX = rule("appendix").compile(tail=rf"\s*[\dA-Z{CN_UNITS}]*")
ENDS_SENTENCE = re.compile(r"[。；;！!？?，,：:]$")


@dataclass(frozen=True)
class HeadingMatch:
    kind: str  # chapter | section_cn | cn_enum | cn_paren | decimal | appendix
    level_hint: int


def match_heading(line: str, *, max_len: int = 40) -> HeadingMatch | None:
    """Classify ``line`` as a numbered heading, or None.

    Only short lines that do not end like a sentence qualify, so a numbered list
    item with a full sentence stays a paragraph.
    """
    s = line.strip()
    if not s or len(s) > max_len or ENDS_SENTENCE.search(s):
        return None
    if CHAPTER.match(s):
        return HeadingMatch("chapter", 1)
    if SECTION_CN.match(s):
        return HeadingMatch("section_cn", 2)
    if APPENDIX.match(s):
        return HeadingMatch("appendix", 1)
    if CN_ENUM.match(s):
        return HeadingMatch("cn_enum", 1)
    if CN_PAREN.match(s):
        return HeadingMatch("cn_paren", 2)
    m = DECIMAL.match(s)
    if m and not re.match(r"^\d+(\.\d+)?\s*[%％万亿元个年月日]", s):
        depth = m.group(1).count(".") + 1
        return HeadingMatch("decimal", depth)
    return None


class LevelResolver:
    """Turn heading kinds into levels consistently within one document.

    A document that uses 第N章 puts 一、 one level below it and （一） below that;
    decimal numbers ``1.2.3`` nest by their dot count under whatever comes first.
    """

    ORDER = ("chapter", "section_cn", "appendix", "cn_enum", "cn_paren")

    def __init__(self) -> None:
        self.seen: list[str] = []

    def level(self, match: HeadingMatch) -> int:
        kind = "chapter" if match.kind == "appendix" else match.kind
        if kind == "decimal":
            base = 1 if "chapter" in self.seen else 0
            return base + match.level_hint
        if kind not in self.seen:
            self.seen.append(kind)
        ranks = sorted(self.seen, key=self.ORDER.index)
        return ranks.index(kind) + 1
