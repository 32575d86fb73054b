"""Other forms of an English word ("occupations" → occupation, "sentencing" → sentence, sentenced), so a
question finds a field label or a sentence that uses another inflection of its word.

The full-text index keeps words as written (the ``simple`` configuration: one index for Chinese and
English), so "occupations" never met "Occupation:". These rules cover the regular inflections; which of
the forms a collection holds is checked against its index (``retrieval.search``) before they are used.
"""

from __future__ import annotations

import re

_VOWEL = re.compile(r"[aeiou]")
# A verb and the noun derived from it, by their regular endings: admit → admission, diagnose → diagnosis,
# decide → decision. A record labels what a question asks with a verb ("when was she admitted") by the noun
# ("Admission Time:"), and the other way round; a report words a question's noun as a verb ("how much compensation"
# → "ordered … to compensate the Company"). Each with the least stem it needs: "state" is no verb of "station".
_DERIVED = (("mit", "mission", 2), ("ose", "osis", 2), ("ide", "ision", 2), ("ate", "ation", 3))
# the shortest adjective an adverb is read back to ("remote"; not "ear" of "early", nor "like" of "likely")
_ADVERB_BASE = 5


def _stems(word: str) -> list[str]:
    out: list[str] = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    elif word.endswith("oses") or word.endswith("yses"):
        out.append(word[:-2] + "is")  # diagnoses → diagnosis, analyses → analysis
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        out.append(word[:-2])
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        out.append(word[:-1])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)]
            if not _VOWEL.search(base):
                continue
            out += [base, base + "e"]
            if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                out.append(base[:-1])  # admitted → admit
            if suffix == "ed" and base.endswith("i"):
                out.append(base[:-1] + "y")  # married → marry
    return out


def derived_forms(word: str) -> list[str]:
    """The noun of a lower-case English verb and the verb of a noun, for ``word`` and its stems ("admitted" →
    admission, "diagnosis" → diagnose), and the adverb of an adjective and back ("remote" → remotely, "monthly" →
    month); none for a Chinese word, a number or a short word."""
    if not _inflects(word):
        return []
    out: dict[str, None] = {}
    # the adverb of an adjective and back: "remote" workers of a handbook writing "working remotely"
    if word.endswith("ly") and len(word) - 2 >= _ADVERB_BASE:
        out[word[:-2]] = None
    elif not word.endswith(("ly", "y")) and len(word) >= _ADVERB_BASE:
        out[word + "ly"] = None
    for stem in (word, *_stems(word)):
        for verb, noun, least in _DERIVED:
            for end, other in ((verb, noun), (noun, verb)):
                if stem.endswith(end) and len(stem) - len(end) >= least:
                    form = stem[: -len(end)] + other
                    if form != word:
                        out.setdefault(form, None)
    return list(out)


def _inflects(word: str) -> bool:
    """``word`` is an English word long enough to inflect (not Chinese, a number or a short word)."""
    return word.isascii() and word.isalpha() and len(word) >= 4


def word_stems(word: str) -> list[str]:
    """The stems of a lower-case English ``word`` ("diagnoses" → diagnosis, "sentencing" → sentenc, sentence);
    none for a Chinese word, a number or a short word."""
    return _stems(word) if _inflects(word) else []


def word_forms(word: str) -> list[str]:
    """Regular inflections of a lower-case English ``word``, itself excluded: its stem(s), the stems' plural
    and past forms and their agent noun (for a Chinese word, a number or a short word: none)."""
    if not _inflects(word):
        return []
    stems = _stems(word) or [word]
    out: dict[str, None] = {}
    for stem in stems:
        agent = stem + "r" if stem.endswith("e") else stem + "er"  # who owns → "Owner:", approves → approver
        for form in (stem, stem + "s", stem + "d" if stem.endswith("e") else stem + "ed", agent):
            if form != word and len(form) >= 3:
                out.setdefault(form, None)
    return list(out)


# The words Chinese writes for "another name of": a question asking 又称之为什么 is answered by a text writing
# 又名 or 别称 — not by 简称, 旧称 or 原名, which are names of a kind of their own.
_ALIAS = ("又称", "称之为", "称为", "又名", "别称", "别名", "俗称", "亦称", "也称", "又叫", "也叫", "叫做", "通称")


# The words for a death: a biography writes "…(1873年)，卒。" or 病逝 for a question's 逝世
_DEATH = ("逝世", "去世", "过世", "病逝", "辞世", "卒", "卒于", "死于", "逝于")
# a first finding before the final one: a record's "Preliminary Diagnosis:" is the question's "initial diagnosis"
_FIRST_FINDING = ("initial", "preliminary")
_FAMILIES = (_ALIAS, _DEATH, _FIRST_FINDING)


def alias_forms(term: str) -> list[str]:
    """The other words of the same meaning when ``term`` is one of a few families of them: "another name of"
    (又称之为 → 又名, 别称 …), a death (逝世 → 去世, 卒 …), a first finding ("initial" → "preliminary"); else none."""
    return next(([w for w in family if w != term] for family in _FAMILIES if term in family), [])
