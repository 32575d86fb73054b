"""Follow-up questions in a thread: "And in 2023?" is searched as the last question about 2023."""

from __future__ import annotations

import re

from pydantic import BaseModel

from dropqa.text.entities import YEAR, years_in
from dropqa.text.segment import query_terms

_FOLLOW = re.compile(r"(?i)^\s*(那么?|还有|另外|那在|and\b|what about|how about|same for|also\b)")


class PastTurn(BaseModel):
    """An earlier question of a conversation: a follow-up is completed from it."""

    question: str
    query: str = ""
    answer: str = ""


def is_follow_up(question: str, history: list[PastTurn]) -> bool:
    if not history:
        return False
    return bool(_FOLLOW.search(question)) or len(query_terms(question)) <= 2


def complete(question: str, history: list[PastTurn]) -> str:
    """The question to search: a follow-up inherits the previous question's subject."""
    if not is_follow_up(question, history):
        return question
    last = history[-1] if isinstance(history[-1], PastTurn) else PastTurn.model_validate(history[-1])  # an older thread
    previous = last.query or last.question
    years = years_in(question)
    if years and YEAR.search(previous):
        return YEAR.sub(years[0], previous, count=1)
    return f"{previous} {question}".strip()
