"""Answers that keep to their subject (issue 21): a question whose words name one document of the pool by its
names — "怀疑燃气表计量不准…要交多少校验费" names the gas company's guide by 燃气, which no other document's
names hold — is not answered by lines of a look-alike document that never writes that word (the water company's
"检定合格的，检定费60元由申请用户承担"): those lines are another subject's facts.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from dropqa.retrieval.hits import Hit
from dropqa.text.segment import has_han, holds
from dropqa.text.subjects import is_document_kind


def naming_words(terms: Sequence[str], pool: Sequence[Hit]) -> dict[str, str]:
    """The question's words that name exactly one document of ``pool`` by its names (file name, title, subjects
    found in its text): word → that document's id. None for a pool of one document; not a digit, a document kind
    ("报告", "judgment") or a word of one character."""
    names: dict[str, str] = {}
    for h in pool:
        names.setdefault(h.document_id, h.names())
    if len(names) < 2:
        return {}
    out: dict[str, str] = {}
    for t in terms:
        if len(t) < 2 or t.isdigit() or is_document_kind(t):
            continue
        holders = [doc for doc, text in names.items() if holds(text, t.lower())]
        if len(holders) == 1:
            out[t] = holders[0]
    return out


# "the individual who prepared 'the Grand Model'", "the institution allowing church courts …": a description by a
# clause, whose answer is on the described one's page, which need not write the name the question starts from
_DESCRIBED_BY_CLAUSE = re.compile(r"(?i)\b(?:the|a|an)\s+(?:\w+\s+){1,2}?(?:who|whom|whose|which|that|where)\b|"
                                  r"\b(?:the|a|an)\s+\w+\s+\w+ing\s+\w+")


def describes_by_clause(question: str) -> bool:
    """Does ``question`` describe what it asks about by a relative clause ("the individual who prepared …")?"""
    return _DESCRIBED_BY_CLAUSE.search(question) is not None


def off_subject(terms: Sequence[str], pool: Sequence[Hit], cited: Collection[int]) -> str | None:
    """A word naming the question's subject document — when all the words naming one document name the same one
    — that an answer citing ``cited`` (pool indexes) neither quotes from that document nor writes anywhere it
    cites (nor any other naming word): the answer is about a look-alike. None otherwise. A Chinese word is judged
    only against Chinese passages and an English one against English (a dictionary bridges languages, not a
    name)."""
    words = naming_words(terms, pool)
    if not words or not cited or len(set(words.values())) != 1:
        return None  # no word names one document, or the words name several: no one subject to keep to
    doc = next(iter(words.values()))
    hits = [pool[i] for i in cited if 0 <= i < len(pool)]
    if not hits or any(h.document_id == doc for h in hits):
        return None
    cited_text = "\n".join(f"{h.breadcrumb}\n{h.content}" for h in hits).lower()
    same_language = [w for w in words if has_han(w) == all(has_han(h.content) for h in hits)]
    if not same_language or any(holds(cited_text, w.lower()) for w in words):
        return None
    return same_language[0]
