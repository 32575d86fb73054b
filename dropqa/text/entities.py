"""Names and years in text, the one way every room finds them.

- :func:`chinese_names`: proper nouns by jieba's part-of-speech tags (``nr`` person, ``ns`` place,
  ``nt`` organisation, ``nz`` other proper noun; ``nrt``/``nrfg`` transliterated names), at least
  two characters long.
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


def chinese_names(text: str, kinds: Collection[str] = PROPER) -> list[str]:
    """The proper nouns of ``text`` whose jieba tag is one of ``kinds``, in order (repeats kept)."""
    initialize()
    return [w for w, flag in pseg.cut(text) if flag in kinds and len(w) >= 2]


def word_frequency(word: str) -> int:
    """How often jieba's dictionary counts ``word`` (0 for a word it does not know): common words are
    frequent, the names of courts, companies and people mostly unknown."""
    initialize()
    return int(jieba.dt.FREQ.get(word) or 0)


def years_in(text: str) -> list[str]:
    """The years ``text`` names, in order."""
    return YEAR.findall(text)
