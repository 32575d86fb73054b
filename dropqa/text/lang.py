"""Which language a question is in, so the answer follows it."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def detect_language(text: str) -> Language:
    han = len(_HAN.findall(text or ""))
    latin_words = len(re.findall(r"[A-Za-z]+", text or ""))
    # A Chinese "word" is about two characters: compare like with like.
    if han / 2 >= latin_words and han:
        return "zh"
    return "en" if latin_words else "zh" if han else "en"
