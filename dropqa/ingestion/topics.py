"""Topic names: normalised form and near-duplicate test (used by :mod:`topic_clusters`).

Two names are the same topic when one contains the other or they share most character
bigrams / words. Embeddings of short names alone are too coarse for this: "备份" and
"报销" score 0.93, "信息安全" and "网络安全" 0.97.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME_CHARS = 40
_EDGE_PUNCT = re.compile(r"^[\s\W_]+|[\s\W_]+$")
_HAN = re.compile(r"[\u3400-\u9fff]")


def normalize_topic(name: str) -> str:
    text = unicodedata.normalize("NFKC", str(name)).strip().lower()
    text = _EDGE_PUNCT.sub("", " ".join(text.split()))
    return text[:MAX_NAME_CHARS]


def related_names(a: str, b: str) -> bool:
    """Lexical overlap strong enough that two close embeddings mean the same topic."""
    if a == b or (min(len(a), len(b)) >= 2 and (a in b or b in a)):
        return True
    if _HAN.search(a) or _HAN.search(b):
        grams_a, grams_b = _bigrams(a), _bigrams(b)
    else:
        grams_a, grams_b = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    if not grams_a or not grams_b:
        return False
    return len(grams_a & grams_b) / len(grams_a | grams_b) >= 0.5


def _bigrams(s: str) -> set[str]:
    s = re.sub(r"\s+", "", s)
    return {s[i : i + 2] for i in range(len(s) - 1)} or {s}
