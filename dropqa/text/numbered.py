"""Numbered names: the number that tells one thing of a series from its look-alikes ("加拿大航空621号班机",
"南宁市第三中学", "EXILE的第16张单曲", "the second season of Jessica Jones", "Apollo 13") — and, as
:func:`place_qualifiers`, the region that tells a place from its namesakes ("Rochester, Minnesota").

A question that names one by its number asks about that one: a document about flight 189, the 二中 or the 15th
single answers for a look-alike, however much else of the question it writes. :func:`numbered_names` reads the
numbered names a question writes (the number and what it counts); :func:`writes_numbered` tells whether a text
writes the same one in any of the usual forms — Arabic or Chinese numerals, "第三中学" or "三中", "season 2" or
"second season" — so that only a text about another number of the series fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIGITS = "零〇一二三四五六七八九"
_UNITS = {"十": 10, "百": 100, "千": 1000}
_HAN_CHARS = "零〇一二两三四五六七八九十百千"  # what a number in Chinese numerals is written with
_HAN_NUMBER = rf"[{_HAN_CHARS}]+"
_NUMBER = rf"(?:\d+|{_HAN_NUMBER})"

# what a Chinese ordinal counts when it names one thing of a series: an edition (届), a single or album (张), a
# season (季), a flight or line (号), a generation (代), a term (任), an issue (期), an episode (集), a school (中学)…
# — not a rank (名, 位), nor a time (次: 第二次世界大战 is as often 二战)
_ZH_COUNTERS = ("届", "张", "季", "号", "代", "任", "期", "集", "版", "部", "卷", "册", "辑", "中学", "小学", "军",
                "舰队")
_ZH_ORDINAL = re.compile(rf"第\s*({_NUMBER})\s*({'|'.join(_ZH_COUNTERS)})(?!度)")  # 第一季度: a quarter
_ZH_NUMBER_MARK = re.compile(rf"(?<![\d第.])(\d+|{_HAN_NUMBER})\s*号(?=班机|航班|线|店|楼|馆|站|台风|卫星|飞船)")

_EN_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                "eighteenth", "nineteenth", "twentieth")
_EN_CARDINALS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                 "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi",
          "xvii", "xviii", "xix", "xx")
# what an English ordinal or a number after a word counts when it names one thing of a series
_EN_SERIES = ("season", "series", "volume", "edition", "album", "single", "episode", "installment", "instalment",
              "chapter", "flight", "apollo")
_EN_ORDINAL = re.compile(
    rf"(?i)\b(\d+(?:st|nd|rd|th)|{'|'.join(_EN_ORDINALS)})\s+(?:studio\s+)?({'|'.join(_EN_SERIES)})s?\b")
_EN_AFTER = re.compile(rf"(?i)\b({'|'.join(_EN_SERIES)})\s+(\d+|{'|'.join(_EN_CARDINALS)})\b")


@dataclass(frozen=True)
class Numbered:
    """A numbered name as a question writes it (``text``): which one (``number``) of what (``counter``)."""

    number: int
    counter: str
    text: str


def han_number(text: str) -> int | None:
    """The value of a number written in Arabic or Chinese numerals ("16", "十六", "二十一", "一九零六"), or None."""
    if text.isdigit():
        return int(text)
    text = text.replace("两", "二")
    if not text or any(c not in _DIGITS and c not in _UNITS for c in text):
        return None
    if not any(c in _UNITS for c in text):  # read digit by digit: 一九零六
        return int("".join(str(_digit(c)) for c in text))
    total, digit = 0, 0
    for c in text:
        if c in _UNITS:
            total += (digit or 1) * _UNITS[c]
            digit = 0
        else:
            digit = _digit(c)
    return total + digit


def _digit(c: str) -> int:
    return 0 if c in "零〇" else _DIGITS.index(c) - 1


def _han(number: int) -> str:
    """``number`` (below 10000) in Chinese numerals as a name writes it: 3 三, 16 十六, 21 二十一, 105 一百零五."""
    if number == 0:
        return "零"
    out, pending_zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit, number = divmod(number, value)
        if digit:
            if pending_zero:
                out += "零"
            out += ("" if value == 10 and not out and digit == 1 else _DIGITS[digit + 1]) + unit
            pending_zero = False
        elif out:
            pending_zero = True
    return out


def _english_number(word: str) -> int | None:
    low = word.lower()
    if low.isdigit():
        return int(low)
    if m := re.fullmatch(r"(\d+)(?:st|nd|rd|th)", low):
        return int(m.group(1))
    for table in (_EN_ORDINALS, _EN_CARDINALS, _ROMAN):
        if low in table:
            return table.index(low) + 1
    return None


def numbered_names(question: str) -> list[Numbered]:
    """The numbered names ``question`` writes, in its order: "第16张" (16, 张), "621号班机" (621, 号), "the second
    season" (2, season), "Apollo 13" (13, apollo)."""
    found: list[tuple[int, Numbered]] = []
    for m in _ZH_ORDINAL.finditer(question):
        if (n := han_number(m.group(1))) is not None:
            found.append((m.start(), Numbered(n, m.group(2), m.group(0))))
    for m in _ZH_NUMBER_MARK.finditer(question):
        if (n := han_number(m.group(1))) is not None:
            found.append((m.start(), Numbered(n, "号", m.group(0))))
    for m in _EN_ORDINAL.finditer(question):
        if (n := _english_number(m.group(1))) is not None:
            found.append((m.start(), Numbered(n, m.group(2).lower(), m.group(0))))
    for m in _EN_AFTER.finditer(question):
        if (n := _english_number(m.group(2))) is not None:
            found.append((m.start(), Numbered(n, m.group(1).lower(), m.group(0))))
    # the first of a series goes by other words as often (首届, 首张; "lead single", "debut album", "inaugural
    # season"): it names no look-alike by its number
    return [n for _, n in sorted(found, key=lambda p: p[0]) if n.number != 1 or n.counter not in _EN_SERIES]


def _pattern(name: Numbered) -> re.Pattern[str]:
    """Every usual way of writing ``name``: 第16张 / 第十六张; 621号 / 六百二十一号; 第三中学 / 三中 / 3中;
    season 2 / season two / second season / 2nd season / season II."""
    n, counter = name.number, name.counter
    if counter in _EN_SERIES:
        words = [str(n)]
        ordinals = [f"{n}(?:st|nd|rd|th)"]
        if n <= len(_EN_ORDINALS):
            words += [_EN_CARDINALS[n - 1], _ROMAN[n - 1]]
            ordinals.append(_EN_ORDINALS[n - 1])
        after = rf"\b{counter}s?\s+(?:{'|'.join(words)})\b"
        before = rf"(?<![\w-])(?:{'|'.join(ordinals)})\s+(?:\w+\s+)?{counter}s?\b"
        return re.compile(rf"(?i){after}|{before}")
    number = rf"(?:(?<!\d){n}(?!\d)|(?<![{_HAN_CHARS}]){_han(n)}(?![{_HAN_CHARS}]))"
    if n == 1:
        number = rf"(?:{number}|首)"
    if counter in ("中学", "小学"):
        return re.compile(rf"{number}\s*{counter[0]}")  # 第三中学, 三中, 3中
    return re.compile(rf"{number}\s*{counter}")


def writes_numbered(text: str, name: Numbered) -> bool:
    """Does ``text`` write the numbered name ``name`` in any of its usual forms?"""
    return _pattern(name).search(text) is not None


def counter_words(name: Numbered) -> list[str]:
    """Words a text writing ``name`` holds as they are (for a scan that narrows the passages to read)."""
    return [name.counter[0]] if name.counter not in _EN_SERIES else [name.counter]


# "Rochester, Minnesota", "Ann Arbor, Michigan": a place and, after a comma, the region that tells it from its
# namesakes (Rochester, New York) — one or two capitalised words closing the name: not a list going on, a longer
# name ("Morgan Freeman, Robert De Niro"), a title ("Albert, King of …")
_PLACE_QUALIFIER = re.compile(r"\b[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)*,\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b"
                              r"(?!\s*,|\s+(?:and|or|of)\b|\s+[A-Z]|[\w'’-])")


def place_qualifiers(question: str) -> list[str]:
    """The regions ``question`` writes after a place's name and a comma ("Minnesota" of "the population of
    Rochester, Minnesota"), as written."""
    return [m.group(1) for m in _PLACE_QUALIFIER.finditer(question)]
