"""Names and years in text, the one way every room finds them.

- :func:`chinese_names`: proper nouns by jieba's part-of-speech tags (``nr`` person, ``ns`` place,
  ``nt`` organisation, ``nz`` other proper noun; ``nrt``/``nrfg`` transliterated names), at least
  two characters long.
- :func:`chinese_people`: the people a Chinese text names (jieba's person tags, a surname split from its
  given name joined again, a foreign name with its middle dot).
- :func:`short_names`: what a Chinese company is called for short ("嘉沐" for 嘉沐冷链物流股份有限公司).
- :data:`YEAR` / :func:`years_in`: a four-digit year of the 1900s or 2000s standing alone ("2019",
  "2019年"), not part of a longer number.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import jieba
import jieba.posseg as pseg

from dropqa.text.segment import initialize

PERSON = frozenset({"nr"})
PROPER = frozenset({"ns", "nr", "nt", "nz", "nrt", "nrfg"})

YEAR_DIGITS = r"(?:19|20)\d{2}"  # for patterns that build on a year (a list of years, a range)
YEAR = re.compile(rf"(?<!\d){YEAR_DIGITS}(?!\d)")
# any year a text gives, historic ones too ("dates back to 1410", "1804年"), for whether it dates at all
ANY_YEAR = re.compile(r"(?<![\d.,])\d{3,4}(?!\d|[.,]\d)|\d{1,4}\s*[年月日]"  # "January 25, 2023, …"; not 1,000
                      r"|[〇零一二三四五六七八九十]{2,4}年")  # 二〇二二年, 光绪三十二年


def chinese_names(text: str, kinds: Collection[str] = PROPER) -> list[str]:
    """The proper nouns of ``text`` whose jieba tag is one of ``kinds``, in order (repeats kept)."""
    initialize()
    return [w for w, flag in pseg.cut(text) if flag in kinds and len(w) >= 2]


def chinese_people(text: str) -> list[str]:
    """The people ``text`` names in Chinese: jieba's person names (``nr``, and transliterated ``nrt`` / ``nrfg``),
    a surname jieba splits from its given name ("郭" + "明远", "吴" + "德林") joined again, and a foreign name written
    with its middle dot ("伊恩·法兰明")."""
    initialize()
    words = [(w, flag) for w, flag in pseg.cut(text)]
    people = [m.group(0) for m in _FOREIGN_NAME.finditer(text)]
    for i, (w, flag) in enumerate(words):
        if flag in _PERSON_TAGS and len(w) >= 2:
            people.append(w)
        elif flag == "nr" and len(w) == 1 and i + 1 < len(words) and _GIVEN.fullmatch(words[i + 1][0]):
            people.append(w + words[i + 1][0])
    return people


_PERSON_TAGS = PERSON | {"nrfg", "nrt"}  # transliterated names too
_GIVEN = re.compile(r"[\u4e00-\u9fff]{1,2}")
_FOREIGN_NAME = re.compile(r"[\u4e00-\u9fff]{1,6}[·・•][\u4e00-\u9fff]{1,8}")


def word_frequency(word: str) -> int:
    """How often jieba's dictionary counts ``word`` (0 for a word it does not know): common words are
    frequent, the names of courts, companies and people mostly unknown."""
    initialize()
    return int(jieba.dt.FREQ.get(word) or 0)


# A Chinese organisation's full name ends in its legal form, and may open with the place it is registered in
# ("深圳市腾讯计算机系统有限公司"); people call it by the two characters after that place ("腾讯").
# (a bare 公司 ends sentence fragments a text's subjects hold as often as names: "谭振华继续担任公司")
_LEGAL_FORM_END = re.compile(r"(?:股份有限公司|有限责任公司|有限公司|集团)$")
_REGISTERED_IN = re.compile(r"^[\u4e00-\u9fff]{2,3}?[省市县区]")
_HAN2 = re.compile(r"^[\u4e00-\u9fff]{2}")
_HAN_ONLY = re.compile(r"[\u4e00-\u9fff]+")
_COMMON = 5000  # jieba's count above which a word is everyday language (旅游 …), not a name (通衢 1071, 星河 66)
_FULL_NAME_OPENS = re.compile(r"^[\u4e00-\u9fff]{4,20}?(?:股份有限公司|有限责任公司|有限公司|集团)")
# jieba's tags of a word that is itself a name or an abbreviation (华为 nr, 腾讯 nz, 浦发 j): such a word may be a
# company's short name; a common word (星河 n, 平安 a) or a place (中国, 深圳) is not one
_NAME_TAGS = frozenset({"nr", "nt", "nz", "nrt", "nrfg", "j"})


def _company_body(name: str, keep: int) -> str | None:
    """A Chinese organisation's full ``name`` — or the one a title opens with ("杭州嘉沐软件股份有限公司2023年年度报告
    （节选）") — without its legal form and the place it is registered in, with 省/市 (深圳市) or without (杭州嘉沐软件,
    广东鲜邻大药房连锁: a place jieba tags, dropped when ``keep`` characters or more remain); None for anything else."""
    text = name.strip()
    if not _LEGAL_FORM_END.search(text):
        opening = _FULL_NAME_OPENS.match(text)
        return _company_body(opening.group(0), keep) if opening else None
    body = _LEGAL_FORM_END.sub("", _REGISTERED_IN.sub("", text))
    initialize()
    first = next(iter(pseg.cut(body[:4], HMM=False)), None)
    if first is not None and first.flag == "ns" and 2 <= len(first.word) <= 3 and len(body) - len(first.word) >= keep:
        body = body[len(first.word):]
    return body


def short_names(name: str) -> frozenset[str]:
    """What people call the company of the full ``name`` for short: its first two characters after the place
    it is registered in ("恒屿" of 恒屿冷链物流股份有限公司, "腾讯" of 深圳市腾讯计算机系统有限公司) — unless
    those two characters are a common word or a place (星河, 中国), which would name far more than it. Empty
    for a name that is not a Chinese organisation's full name."""
    body = _company_body(name, keep=4)
    m = _HAN2.match(body or "")
    if body is None or m is None or len(body) < 4:  # "某某公司": too short to have a shorter name
        return frozenset()
    tag = pseg.dt.word_tag_tab.get(m.group(0))
    return frozenset({m.group(0)}) if tag is None or tag in _NAME_TAGS else frozenset()


def name_body(name: str) -> str:
    """A Chinese organisation's full name without its place of registration and legal form ("通衢物流" of
    湖北通衢物流股份有限公司, also opening a report's title), which people write as its name whatever its first two
    characters are (通衢 is a common word, so no short name); "" for anything else, or a body shorter than three
    characters."""
    body = _company_body(name, keep=3)
    if body is None:
        return ""
    head = next(iter(pseg.cut(body, HMM=False)), None)
    if head is None or head.flag[:1] in ("p", "v", "c", "d", "u", "r") or word_frequency(head.word) > _COMMON:
        return ""  # "关于收购捷运物流…" opens a notice, not a name; "旅游发展" of 黄山旅游发展 is everyday words
    return body if 3 <= len(body) <= 10 and _HAN_ONLY.fullmatch(body) else ""


def years_in(text: str) -> list[str]:
    """The years ``text`` names, in order."""
    return YEAR.findall(text)


# A day or a month of a year ("2025-01-10", "2025年1月10日", "10 January 2025"): when something happened, not the
# period a line is about — an approval row dated 2025-01-10 is of the 2024 appraisal
MONTH_NAME = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
              r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")  # an English month, written out or short
_DAY = re.compile(rf"(?i){YEAR_DIGITS}\s*年\s*\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*[日号])?|"
                  rf"{YEAR_DIGITS}[-/.]\d{{1,2}}(?:[-/.]\d{{1,2}})?(?![\d.]|\s*[万亿])|"
                  rf"\b\d{{1,2}}\s+{MONTH_NAME}\.?,?\s+{YEAR_DIGITS}|"
                  rf"\b{MONTH_NAME}\.?\s+(?:\d{{1,2}},?\s+)?{YEAR_DIGITS}")
# a year a figure is compared with ("较2022年增长12%", "grew 12% over 2020"): the line is about the year asked
_COMPARED = re.compile(rf"(?i)(?:较|比|同比|相比|对比|上年|than|over|compared (?:with|to)|versus|vs\.?|from)\s*"
                       rf"(?:the\s+)?(?:fiscal\s+|fy\s*)?{YEAR_DIGITS}")


def about_other_periods(sentence: str, asked_years: set[str]) -> bool:
    """:func:`about_other_years` of a sentence's periods — its years but those of a day or month it dates
    ("2022年度公司曾向全体股东每10股派发…" is about 2022; "签字人: 周明远 | 日期: 2025-01-10" is about no year), and
    never of a sentence dated in a year asked ("On 14 May 2021, the Company held its annual general meeting for
    2020" happened in 2021)."""
    if any(set(years_in(m.group(0))) & asked_years for m in _DAY.finditer(sentence)):
        return False
    return about_other_years(_COMPARED.sub(" ", _DAY.sub(" ", sentence)), asked_years)


def about_other_years(text: str, asked_years: set[str]) -> bool:
    """``text`` names years, none of them one of ``asked_years`` (the question's; never when it names none): it
    speaks of another period ("Looking ahead to 2022, …" of a question about fiscal 2021)."""
    return bool(asked_years) and bool(said := set(years_in(text))) and not said & asked_years
