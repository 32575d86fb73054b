"""Follow-up questions in a thread: "And in 2023?" is searched as the last question about 2023."""

from __future__ import annotations

import re

from dropqa.text.segment import query_terms

_FOLLOW = re.compile(r"(?i)^\s*(那么?|还有|另外|那在|and\b|what about|how about|same for|also\b)")
_YEAR = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)")


def is_follow_up(question: str, history: list[dict]) -> bool:
    if not history:
        return False
    return bool(_FOLLOW.search(question)) or len(query_terms(question)) <= 2


def complete(question: str, history: list[dict]) -> str:
    """The question to search: a follow-up inherits the previous question's subject."""
    if not is_follow_up(question, history):
        return question
    previous = str(history[-1].get("query") or history[-1].get("question") or "")
    years = _YEAR.findall(question)
    new_years = [m.group(0) for m in _YEAR.finditer(question)]
    if years and _YEAR.search(previous):
        return _YEAR.sub(new_years[0], previous, count=1)
    return f"{previous} {question}".strip()
