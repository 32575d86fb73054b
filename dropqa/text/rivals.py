"""Rows about another item: a look-alike of what the question names.

A table row is about the item its first cell names ("岗位: 设计岗 · 显示器型号: BenQ SW272U" is the design
role's row). When the question names a different item of the same sort ("销售岗配的显示器是什么型号？"), the row
answers a look-alike question, not this one: quoting it pads the answer with another item's facts, or answers a
question the documents do not answer (the sales role has no monitor).

Two names are of the same sort when they differ only in their qualifier and the documents write both:

- Chinese: the same length and the same last character (销售岗 / 设计岗, 企业版 / 专业版, 一号楼 / 二号楼);
- English: the same number of words and the same last word ("Enterprise plan" / "Standard plan");
- either: the same text with other digits (3月1日 / 3月2日, Falcon-02 / Falcon-03, Nova 2.0 / Nova 3.0).

The documents must write the question's name too ("known" text): a fragment of the question's wording
that merely ends in the same character ("差的员工") names no item.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"^\s*[^:：|·\n]{1,30}?\s*[:：]\s*([^|·\n]{1,40}?)\s*(?:[|·]|$)")
_CJK_NAME = re.compile(r"^[\u4e00-\u9fff]{2,6}$")
_WORDS = re.compile(r"[a-z][a-z0-9\-]*")
_DIGITS = re.compile(r"\d+")


def row_key(row: str) -> str | None:
    """The value of a rendered table row's first cell ("岗位: 设计岗 · 显示器型号: …" → "设计岗")."""
    m = _KEY.match(row)
    return m.group(1).strip(" *_`") if m else None


def rival_of(key: str, question: str, known: str) -> str | None:
    """The name in ``question`` that ``key`` is a look-alike of (same sort, another item), if any; ``known``:
    the documents' text (lower case) that a name of the question must appear in. ``None`` when the question
    names ``key`` itself."""
    q = question.lower()
    k = key.lower().strip()
    if not k or k in q:
        return None
    if any(c.isdigit() for c in k):
        shape = _DIGITS.sub("#", k)
        if not re.search(r"[^\W\d_]", shape):
            return None  # a bare number ("1", "2.0") is a row's rank or value, not a name
        pattern = re.escape(shape).replace("\\#", r"\d+").replace("#", r"\d+")
        for m in re.finditer(pattern, q):
            if m.group(0) != k:
                return m.group(0)
        return None
    if _CJK_NAME.match(k):
        n = len(k)
        for i in range(len(q) - n + 1):
            cand = q[i:i + n]
            if cand[-1] == k[-1] and cand != k and _CJK_NAME.match(cand) and cand in known:
                return cand
        return None
    words = _WORDS.findall(k)
    if len(words) >= 2:
        tokens = _WORDS.findall(q)
        n = len(words)
        for i in range(len(tokens) - n + 1):
            cand = tokens[i:i + n]
            if cand[-1] == words[-1] and cand != words and " ".join(cand) in known:
                return " ".join(cand)
    return None


def about_another(row: str, question: str, known: str) -> str | None:
    """The item ``question`` names when ``row`` (a rendered table row) is about a look-alike of it, not it."""
    key = row_key(row)
    return rival_of(key, question, known) if key is not None else None
