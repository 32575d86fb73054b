"""Word segmentation with jieba (search mode), the same for indexing and for queries.

PostgreSQL has no Chinese parser here, so text is segmented in Python, joined with
spaces and stored as a ``simple``-config tsvector. Queries go through the very
same function, so both sides agree on the tokens.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache
from importlib import resources

import jieba

_init_lock = threading.Lock()
_initialized = False
_WORD = re.compile(r"\w", re.UNICODE)
_HAN = re.compile(r"[\u4e00-\u9fff]")


def initialize() -> None:
    """Build jieba's prefix dictionary once per process (~0.8 s), quietly."""
    global _initialized
    if _initialized:
        return
    with _init_lock:
        if not _initialized:
            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _initialized = True


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    text = resources.files("dropqa.text").joinpath("stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip() and not w.startswith("#"))


def tokens(text: str) -> list[str]:
    """All search-mode tokens of ``text``, lower-cased, punctuation dropped."""
    if not text:
        return []
    initialize()
    out = []
    for tok in jieba.cut_for_search(text):
        tok = tok.strip().lower()
        if tok and _WORD.search(tok):
            out.append(tok)
    return out


def segment_words(text: str) -> list[str]:
    """``text`` cut into words (jieba's precise mode: no overlapping pieces), punctuation dropped."""
    if not text:
        return []
    initialize()
    return [w for w in jieba.cut(text) if _WORD.search(w)]


def index_text(text: str) -> str:
    """Space-joined tokens for ``to_tsvector('simple', …)``."""
    return " ".join(tokens(text))


def query_terms(text: str) -> list[str]:
    """Distinct meaningful tokens of a question (stopwords and 1-char Latin/noise removed)."""
    stop = stopwords()
    seen: dict[str, None] = {}
    for tok in tokens(text):
        if tok in stop:
            continue
        if len(tok) == 1 and not _HAN.match(tok) and not tok.isdigit():
            continue
        seen.setdefault(tok, None)
    terms = list(seen)
    # Single Han characters (年, 项, 人) match almost everything; keep them only when
    # the question has little else to go on.
    if sum(1 for t in terms if len(t) > 1) >= 3:
        terms = [t for t in terms if len(t) > 1 or t.isdigit()]
    return terms


@lru_cache(maxsize=16384)
def _word_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){re.escape(term)}(?:s|es|ed|d|ing)?(?![a-z0-9])")


def holds(text: str, term: str) -> bool:
    """Does lower-cased ``text`` hold the (lower-cased) search term? Chinese terms as written; a Latin
    term as a word, with its plural or past endings ("age" is in "Age: 52" and "ages", not in "dosage";
    "examination" is in "examinations")."""
    if not term:
        return False
    if _HAN.search(term) or not term.isascii():
        return term in text
    return term in text and _word_pattern(term).search(text) is not None


def has_han(text: str) -> bool:
    return bool(_HAN.search(text))


def han_bigrams(text: str) -> set[str]:
    """Character bigrams of ``text``'s Han characters, the others dropped ("云平台 建设" → 云平, 平台,
    台建, 建设): a word-order-free overlap measure for Chinese, where words are not space-separated."""
    han = "".join(_HAN.findall(text))
    return {han[i:i + 2] for i in range(len(han) - 1)}
