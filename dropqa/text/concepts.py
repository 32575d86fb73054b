"""What a text is about, in one vocabulary for both languages: its key terms translated into English.

Topics group documents by subject, not by language (issue 24). Embeddings of the same subject in Chinese and
in English sit apart (the language is the strongest direction in them), so a document is also described by a
bag of **concepts**: its content words — Chinese nouns and verbs by jieba's part-of-speech tags, English
words that also appear in lower case (a word only ever capitalised is a name: a company, a product, a person,
which says nothing about the subject) — with every Chinese word translated into English with CC-CEDICT
(:func:`dropqa.text.bilingual.translate_terms`, its first gloss) and every English word folded to a base form
(``expenses`` → ``expense``). Titles count ``title_weight`` times. "差旅费报销" and "travel expense claims"
then share ``travel``, ``expense``, ``reimburse``.

The dictionary's first gloss is often not the word an English text uses for the same thing (收入 "income"
where English reports say *revenue*, 客户 "client" for *customer*, 产品 "goods" for *product*), so an English
word may give ``english_gloss_share`` of its count to the words a Chinese text's bag would hold for it: the first
gloss of each of its first ``english_translations`` Chinese translations (:func:`english_glosses`: "revenue" →
收入 → income; "customer" → 客户 → client), as the topics' naming already matches a phrase in either language
(:func:`~dropqa.ingestion.topic_clusters.phrase_concepts`). A gloss no other document holds costs nothing: the
topics compare only the concepts two or more documents share.

A Chinese word counts as much as it is a *key* term: its count is scaled by :func:`specificity`, its
rarity in general Chinese (jieba's background IDF). Words every text uses (工作 0.35, 情况 0.34, 重点 0.44,
经营 0.45) otherwise fill a document's bag with the dictionary's first gloss of their most general sense
("job", "circumstance", "focus", "run"), glosses documents of every subject share. English words have no
such table and count fully.

The counts are kept per document at indexing (``concepts`` in the version's metadata); the topics weigh them
across the collection (TF-IDF) when they are recomputed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from dropqa.text.bilingual import translate_terms
from dropqa.text.segment import english_stopwords, initialize, stopwords

_HAN = re.compile(r"[\u4e00-\u9fff]")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*[A-Za-z]")
_GLOSS_WORD = re.compile(r"[a-z]+")
ZH_TAGS = frozenset({"n", "vn", "nz", "nw", "an", "v"})  # person and place names (nr, ns) say nothing of the subject
FILE_WORDS = frozenset({"md", "txt", "csv", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "json", "html", "htm",
                        "png", "jpg", "jpeg"})  # file extensions: never a subject


@lru_cache(maxsize=1)
def _en_stop() -> frozenset[str]:
    return english_stopwords() | FILE_WORDS


def fold(word: str) -> str:
    """A rough English base form, enough to join plural and singular (policies → policy, claims → claim)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def title_text(filename: str, heads: Sequence[str], times: int = 1) -> str:
    """A document's titles as its concepts and candidate names read them: the file name's stem ``times``
    times, then the section titles ``heads``. A lower-case English file name ("aurora_handbook") is left
    out: it would pass names off as common words (a word counts once it is seen in lower case)."""
    stem = Path(filename).stem.replace("_", " ")
    named = [stem] * times if stem != stem.lower() or not stem.isascii() else []
    return "\n".join([*named, *heads])


def concepts(text: str, titles: str = "", *, title_weight: float = 1.0, limit: int = 200,
             english_gloss_share: float = 0.0, english_translations: int = 2) -> dict[str, float]:
    """The concept counts of ``text`` (``titles`` count ``title_weight`` times), at most ``limit``, most first; an
    English word counts ``1 − english_gloss_share`` as itself and ``english_gloss_share`` shared among its
    :func:`english_glosses` (when it has any other than itself)."""
    import jieba.posseg as pseg

    initialize()
    stop, zh_stop = _en_stop(), stopwords()
    lower_seen = {w.lower() for w in _EN_WORD.findall(text + "\n" + titles) if w.islower()}
    out: Counter[str] = Counter()

    def add(part: str, weight: float) -> None:
        if not part:
            return
        zh_words: Counter[str] = Counter()
        if _HAN.search(part):
            for pair in pseg.cut(part):
                word, flag = pair.word, pair.flag
                if len(word) >= 2 and flag in ZH_TAGS and _HAN.search(word) and word not in zh_stop:
                    zh_words[word] += 1
        glosses = translate_terms(sorted(zh_words), "en", per_term=1)
        for word, count in zh_words.items():
            key = specificity(word)  # a key term of the text, or a word any text uses (工作, 情况, 重点)?
            for gloss in glosses.get(word, []):
                for g in _GLOSS_WORD.findall(gloss):
                    if len(g) > 2 and g not in stop:
                        out[fold(g)] += weight * count * key
        for word in _EN_WORD.findall(part):
            w = word.lower()
            if w in lower_seen and len(w) > 2 and w not in stop:
                base = fold(w)
                ways = english_glosses(base, english_translations) if english_gloss_share > 0 else ()
                if not ways:
                    out[base] += weight
                    continue
                out[base] += weight * (1.0 - english_gloss_share)
                for way in ways:
                    for g in way:
                        out[g] += weight * english_gloss_share / len(ways)

    add(text, 1.0)
    add(titles, title_weight)
    return {term: round(count, 2) for term, count in out.most_common(limit)}


@lru_cache(maxsize=65536)
def english_glosses(word: str, translations: int = 2) -> tuple[tuple[str, ...], ...]:
    """What a Chinese text's bag holds for the English ``word`` (folded, lower case): for each of its first
    ``translations`` Chinese translations (CC-CEDICT inverted, :func:`~dropqa.text.bilingual.translate_terms`),
    the content words of that translation's first gloss, folded as :func:`concepts` folds them — each a *way*
    ("revenue" → ((income,),), "customer" → ((client,),) since 顾客's "customer" is the word itself). Ways that are
    the word itself are left out; ``()`` when none is left."""
    stop = _en_stop()
    chinese = translate_terms([word], "zh", per_term=translations).get(word, [])
    glosses = translate_terms(chinese, "en", per_term=1)
    ways = []
    for zh in chinese:
        for gloss in glosses.get(zh, [])[:1]:
            way = tuple(fold(g) for g in _GLOSS_WORD.findall(gloss) if len(g) > 2 and g not in stop)
            if way and way != (word,):
                ways.append(way)
    return tuple(ways)


@lru_cache(maxsize=1)
def _background_idf() -> tuple[dict[str, float], float]:
    """jieba's inverse document frequencies of Chinese words over a large general corpus (shipped in jieba)."""
    import jieba.analyse

    table = jieba.analyse.default_tfidf
    return table.idf_freq, float(table.median_idf)


def specificity(phrase: str) -> float:
    """How specific a Chinese word is in general text, 0-1: its background IDF over the median one, capped
    at 1 (计划 0.42, 服务 0.45, 平台 0.52, 报销 0.71, 备份 0.84, 差旅费 0.95). Compounds jieba's table lacks
    (伙食补助) and English phrases count as specific (1)."""
    if not _HAN.search(phrase):
        return 1.0
    idf, median = _background_idf()
    value = idf.get(phrase)
    return 1.0 if value is None else min(1.0, value / median)
