"""Word segmentation with jieba (search mode), the same for indexing and for queries.

PostgreSQL has no Chinese parser here, so text is segmented in Python, joined with
spaces and stored as a ``simple``-config tsvector. Queries go through the very
same function, so both sides agree on the tokens.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import jieba

from dropqa.text.forms import derived_forms, word_forms, word_stems

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


def _word_list(name: str) -> frozenset[str]:
    text = resources.files("dropqa.text").joinpath(name).read_text(encoding="utf-8")
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip() and not w.startswith("#"))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """Question words and function words dropped from queries, both languages (stopwords.txt)."""
    return _word_list("stopwords.txt")


@lru_cache(maxsize=1)
def english_stopwords() -> frozenset[str]:
    """The general English stop word list of key terms and topic names (en_stopwords.txt: scikit-learn's)."""
    return _word_list("en_stopwords.txt")


@lru_cache(maxsize=1)
def english_function_words() -> frozenset[str]:
    """English words that name nothing a question may ask: pronouns, auxiliaries, conjunctions, frame words and
    contraction pieces (en_function_words.txt)."""
    return _word_list("en_function_words.txt")


# A Latin word with a letter beyond ASCII ("Janáček", "Zürich", "São"): jieba's English words are ASCII only, so it
# cuts "Janáček" into "Jan", "á", "č", "ek" — and the question about Leoš Janáček named Jan Garbarek's page
ACCENTED = "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"  # Latin letters beyond ASCII (not × or ÷), for a character class
_ACCENTED_WORD = re.compile(rf"[A-Za-z0-9{ACCENTED}]*[{ACCENTED}][A-Za-z0-9{ACCENTED}]*")


def tokens(text: str) -> list[str]:
    """All search-mode tokens of ``text``, lower-cased, punctuation dropped; a Latin word with accented letters
    is one token, as written ("janáček")."""
    if not text:
        return []
    initialize()
    out: list[str] = []
    start = 0
    for m in _ACCENTED_WORD.finditer(text):
        out += _jieba_tokens(text[start:m.start()])
        out.append(m.group(0).lower())
        start = m.end()
    return out + _jieba_tokens(text[start:])


def _jieba_tokens(text: str) -> list[str]:
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


def whole_terms(terms: Sequence[str], among: Sequence[str] | None = None) -> list[str]:
    """``terms`` without those inside a longer one of ``among`` (default: ``terms``): jieba's search mode gives
    a word and its pieces ("服务器", "服务", "务器"), which stand for the word, said once. In their order."""
    among = terms if among is None else among
    return [t for t in terms if not any(t != o and t in o for o in among)]


def compound_parts(term: str) -> list[str]:
    """The words of two or more characters a Chinese compound of three or more is made of ("时间段" → 时间,
    "注意事项" → 注意, 事项): a text that writes them speaks of it in other words. None for anything else."""
    if len(term) < 3 or not has_han(term):
        return []
    initialize()
    return [w for w in jieba.cut_for_search(term) if len(w) >= 2 and w != term]


_THING_TAGS = ("n", "s", "t", "a")  # jieba: nouns (nr, ns, nt, nz…), places, times, adjectives (爱好)


def names_a_thing(term: str) -> bool:
    """Whether ``term`` names a thing a document would write down (海外, 年薪, 零售价, 企业版, 卧室) rather than
    an action a document may word otherwise (抢走 for 抢劫, 是从): the part of speech jieba gives its last
    word is a noun, place, time, adjective or verbal noun (零售). English, without a tagger: a word that is no
    adverb in -ly and no stop word, plural or not ("goes", "far", "quickly" frame a question; "phone",
    "warranty", "RPO" are asked); a name or code always."""
    if not has_han(term):
        word = term.lower()
        if " " in word or not word.isalpha():
            return True  # a name or code ("orion x2", "heron-02")
        stems = {word, word.removesuffix("s"), word.removesuffix("es")}
        return (len(word) >= 3 and not word.endswith("ly") and not stems & english_stopwords()
                and not stems & stopwords() and not is_action_word(word))
    flag = _last_tag(term)
    return flag.startswith(_THING_TAGS) or flag in ("vn", "eng")


def _last_tag(term: str) -> str:
    """The part of speech jieba gives the last word of ``term`` ("" for none)."""
    initialize()
    import jieba.posseg as pseg

    words = list(pseg.cut(term, HMM=False))
    return words[-1].flag if words else ""


def tagged_verb(term: str) -> bool:
    """Whether jieba tags the Chinese ``term`` (its last word) a verb: 弄丢, 访客 (which is a noun: its tags err)."""
    return _last_tag(term) == "v"


# Past participles that do not end in -ed ("Why was the container stuck at Felixstowe?", "Where was it held?").
_PARTICIPLES = frozenset((
    "stuck", "held", "made", "taken", "given", "sent", "built", "paid", "sold", "told", "found", "left", "kept",
    "brought", "bought", "caught", "taught", "thought", "won", "lost", "met", "spent", "led", "fed", "struck",
    "hung", "begun", "done", "seen", "known", "grown", "shown", "thrown", "drawn", "flown", "worn", "torn",
    "chosen", "frozen", "spoken", "broken", "stolen", "written", "driven", "risen", "hidden", "fallen", "forgotten",
    "meant", "gone", "gotten", "heard", "sat", "stood", "understood", "bent", "burnt", "dealt", "dug", "fought",
    "forgiven", "laid", "lent", "ridden", "rung", "shaken", "slept", "swept", "sworn", "swum", "woken", "withdrawn",
    "overseen", "undertaken", "proven", "sought", "bitten", "beaten", "forbidden", "mistaken", "arisen"))


def is_action_word(word: str) -> bool:
    """Whether the English ``word`` (lower case) names an action, which a document may word otherwise ("Where do
    staff gather" of "go to Assembly Point B", "Why was the container stuck" of "selected for a physical
    examination", "rebooked" of "your new delivery slot"): a past form (-ed, not -eed: "speed"; "stuck", "held"),
    or a word CC-CEDICT glosses as a verb ("to gather") several times and more than twice as often as a noun
    (``bilingual.gloss_heads``: gather 39 to 5; not "title" 8 to 38, "fast" 20 to 17, "turnover" 0 to 9)."""
    if word in _PARTICIPLES or (len(word) >= 5 and word.endswith("ed") and not word.endswith("eed")
                                and word not in ("hundred", "kindred")):
        return True
    from dropqa.text.bilingual import gloss_heads

    nouns, verbs = gloss_heads(word)
    return verbs >= 3 and verbs > 2 * nouns


def is_dictionary_word(term: str) -> bool:
    """Whether jieba's dictionary holds ``term`` (a word it did not coin from context: "岗配" in "销售岗配的",
    "链增长" in "嘉沐冷链增长" are coined)."""
    initialize()
    return bool(jieba.dt.FREQ.get(term))


def coined_spans(question: str, terms: list[str]) -> list[tuple[int, int, str]]:
    """Where the question's words are jieba's guesses: (start, end, text), in order — a Han word of
    ``terms`` that is not a dictionary word (coined from context), and a run of single Han characters
    jieba could not group ("嘉", "沐" in "和嘉沐冷链": a name it does not know)."""
    initialize()
    low = question.lower()
    out: list[tuple[int, int, str]] = []
    singles: list[tuple[int, int]] = []
    wanted = set(terms)

    def close_run() -> None:
        if len(singles) >= 2:
            out.append((singles[0][0], singles[-1][1], low[singles[0][0]: singles[-1][1]]))
        singles.clear()

    for word, start, end in jieba.tokenize(low):
        if len(word) == 1 and _HAN.match(word):
            singles.append((start, end))
            continue
        close_run()
        if word in wanted and _HAN.match(word) and len(word) >= 2 and not is_dictionary_word(word):
            out.append((start, end, word))
    close_run()
    return out


def single_runs(question: str) -> list[str]:
    """The stretches of two or more Han characters that jieba cut one by one in ``question`` and that are no
    stop words (年会 of "公司今年的年会在哪里举办", cut 年 / 会; not 的 or 在 around it): where its dictionary
    lacked a word the question uses."""
    initialize()
    stop = stopwords()
    runs: list[str] = []
    run: list[str] = []
    for word in [*jieba.cut(question.lower()), ""]:
        if len(word) == 1 and _HAN.match(word) and word not in stop:
            run.append(word)
            continue
        if len(run) >= 2:
            runs.append("".join(run))
        run = []
    return runs


def name_start(text: str, at: int) -> int:
    """Where a name that ``text`` writes from ``at`` on really starts: at the one-character word jieba cuts right
    before it (the 雨 of 雨城市人民医院, cut 雨 / 城市 / 人民 / 医院, which the question's terms drop), unless that
    character is a stopword (的, 和); else at ``at``."""
    initialize()
    low = text.lower()
    for word, start, end in jieba.tokenize(low[:at]):
        if end == at:
            return start if len(word) == 1 and _HAN.match(word) and word not in stopwords() else at
    return at


def covering_candidates(question: str, spans: list[tuple[int, int, str]], longest: int = 8) -> list[str]:
    """Han substrings (2..``longest`` characters) of the question that overlap a coined term's span: the
    words the collection may have for that stretch ("嘉沐冷链" for "嘉沐冷" + "链增长")."""
    out: dict[str, None] = {}
    for m in re.finditer(r"[\u4e00-\u9fff]+", question):
        a, b = m.span()
        for start, end, _ in spans:
            if end <= a or start >= b:
                continue
            for i in range(max(a, start - longest + 1), min(end, b)):
                for j in range(max(i + 2, start + 1), min(b, i + longest) + 1):
                    out.setdefault(question[i:j], None)
    return list(out)


def resegment(question: str, terms: list[str], known: set[str]) -> list[str]:
    """``terms`` with the coined Han terms the collection does not hold replaced by the longest words it
    does hold over the same stretch of the question. jieba
    coins words from context, differently in a question and in a document ("嘉沐冷链增长" → 嘉沐冷 / 链增长,
    "嘉沐冷链物流" → 嘉沐冷链 / 物流): the index's own words decide. A coined term the collection's words
    cover in part is dropped — it is not a word the question asks about — and so is an absent word across a
    stretch the chosen words cover ("链增长" once "嘉沐冷链" stands for 嘉沐冷链). A coined term no word of the
    collection overlaps stays when jieba tags it as a name, as an absent dictionary word stays: that the
    documents lack it says something ("澄湖" of a company no document names, "滞纳金"; not "哪块", nor "日晚" of
    "3月1日晚").
    ``known``: the terms and candidates the index holds."""
    spans = coined_spans(question, [t for t in terms if t not in known])
    if not spans:
        return terms
    low = question.lower()
    chosen: list[tuple[int, int]] = []
    added: list[str] = []
    for word in sorted(known, key=lambda w: (-len(w), low.find(w))):
        at = low.find(word)
        if at < 0 or word in terms or any(not (at + len(word) <= a or at >= b) for a, b in chosen):
            continue
        if any(not (at + len(word) <= s or at >= e) for s, e, _ in spans):
            chosen.append((at, at + len(word)))
            added.append(word)
    coined = {t for _, _, t in spans if t in terms}

    def overlapped(t: str) -> bool:  # an absent word across a stretch the collection's words now cover
        at = low.find(t)
        return at >= 0 and any(not (at + len(t) <= a or at >= b) for a, b in chosen)

    kept = {t for t in coined if not overlapped(t) and not t.startswith(_DEMONSTRATIVES)}
    if kept:  # a coined word jieba tags as a name, not one it coins from a date ("日晚" of "3月1日晚")
        kept &= proper_words(question)
    return [t for t in terms if (t not in coined and (t in known or not _HAN.match(t) or not overlapped(t)))
            or t in kept] + added


_PROPER_TAGS = ("nr", "ns", "nt", "nz")  # jieba's tags of a person's, place's, organisation's or other name
# a coined word that starts with one is a pointer and its measure word, not a name ("那家子" of "那家子公司")
_DEMONSTRATIVES = ("那", "这", "哪", "该", "此", "其", "某", "每", "各", "本")


def proper_words(text: str) -> set[str]:
    """The words of ``text`` jieba tags as proper names, in context ("澄湖" of 澄湖食品股份有限公司, 巴尔喀什湖)."""
    initialize()
    import jieba.posseg as pseg

    return {w.lower() for w, flag in pseg.cut(text) if flag.startswith(_PROPER_TAGS)}


def noun_words(text: str) -> set[str]:
    """The words of ``text`` jieba tags as nouns, proper or common, in context (森马 of "森马服饰是…", a brand its
    dictionary lacks and tags ``n``)."""
    initialize()
    import jieba.posseg as pseg

    return {w.lower() for w, flag in pseg.cut(text) if flag.startswith("n")}


def index_text(text: str) -> str:
    """Space-joined tokens for ``to_tsvector('simple', …)``."""
    return " ".join(tokens(text))


# A pointer and its measure word ("那家", "这位", "哪个", jieba's dictionary word "那家子" of "那家子公司"): it
# points at what the question names elsewhere; no document writes it.
_POINTER = re.compile(r"^[那这哪][个只位家些种样次件条份项名所座间台辆批类款].?$")


_HOW_FRAME = frozenset(("long", "old", "far", "big", "large", "high", "tall", "wide", "deep", "soon", "late",
                        "early", "heavy", "fast", "quick", "quickly", "often", "frequently", "expensive", "cheap",
                        "close", "near", "hot", "cold", "warm", "strong"))


# "有多深", "多远", "有多高": jieba keeps the question's frame and its measure as one word, which no text writes
_HOW_MEASURE = re.compile(r"有?多([深高长远大重宽厚粗细快慢])")


# A Chinese question's frame, which says what kind of answer it asks ("多长时间": a length of time, "几点": a time of
# day, "几块钱": an amount) in words no document writes where it answers: cut before segmenting, so no piece of it
# (时间 of 多长时间) counts as a word of what is asked.
_ZH_FRAME = re.compile(r"多长的?时间|多少时间|几点钟?|几块钱?|多少块钱?|多少钱|哪一?(?:年|天|日|个月|月)|"
                       r"几(?:天|个月|年|周|个星期|小时|分钟)(?!假)|叫(?:做)?什么名字|(?:的)?名字(?:是|叫)(?:什么|啥)|"
                       r"几月几[号日]|几号")


# A capital letter that labels what the word before it names ("Zone B", "Assembly Point B", "Plan A"): the one word
# that tells the row or the place asked from its look-alikes. Not "I", nor an initial ("Q. Ruiz").
_LETTER_LABEL = re.compile(r"\b[A-Z][a-z]+\s+([A-HJ-Z])\b(?![.'’&-])")


def query_terms(text: str) -> list[str]:
    """Distinct meaningful tokens of a question (stopwords and 1-char Latin/noise removed)."""
    stop = stopwords()
    text = _ZH_FRAME.sub("，", text)
    labels = {m.group(1).lower() for m in _LETTER_LABEL.finditer(text)}
    seen: dict[str, None] = {}
    toks = tokens(text)
    pointers = [t for t in toks if _POINTER.match(t)]
    for k, tok in enumerate(toks):
        # a stop word (but a label: "Plan A"), a pointer, or a piece of one (家子 of 那家子)
        if (tok in stop and tok not in labels) or any(tok in p for p in pointers):
            continue
        if tok in _HOW_FRAME and k > 0 and toks[k - 1] == "how":  # tokens() drops spaces and punctuation
            continue  # "how long", "how old": the kind of answer asked (a length of time, an age), not a word of it
        if len(tok) == 1 and not _HAN.match(tok) and not tok.isdigit() and tok not in labels:
            continue
        measure = _HOW_MEASURE.fullmatch(tok)  # "有多深": how deep — the measure asked (深), not words a text writes
        seen.setdefault(measure.group(1) if measure else tok, None)
    terms = list(seen)
    # Single Han characters (年, 项, 人) match almost everything; keep them only when
    # the question has little else to go on.
    if sum(1 for t in terms if len(t) > 1) >= 3:
        terms = [t for t in terms if len(t) > 1 or t.isdigit() or t in labels]
    return terms


@lru_cache(maxsize=16384)
def _word_pattern(term: str) -> re.Pattern[str]:
    # the shorter forms, every stem ("diagnoses" → "diagnosis", as long as the word), and the noun of a verb or
    # the verb of a noun ("admitted" → admission, "diagnosis" → diagnose)
    stems = sorted({term, *(f for f in word_forms(term) if len(f) < len(term)), *word_stems(term),
                    *derived_forms(term)}, key=len, reverse=True)
    words = "|".join(re.escape(x) for x in stems)
    return re.compile(rf"(?<![a-z0-9])(?:{words})(?:s|es|ed|d|ing)?(?![a-z0-9])")


def holds(text: str, term: str) -> bool:
    """Does lower-cased ``text`` hold the (lower-cased) search term? Chinese terms as written; a Latin
    term as a word, with its plural or past endings or its stem ("age" is in "Age: 52" and "ages", not in
    "dosage"; "examination" is in "examinations"; "occupations" in "Occupation:", "sentencing" in
    "sentenced")."""
    if not term:
        return False
    if _HAN.search(term) or not term.isascii():
        return term in text
    return _word_pattern(term).search(text) is not None


def has_han(text: str) -> bool:
    return bool(_HAN.search(text))


def han_bigrams(text: str) -> set[str]:
    """Character bigrams of ``text``'s Han characters, the others dropped ("云平台 建设" → 云平, 平台,
    台建, 建设): a word-order-free overlap measure for Chinese, where words are not space-separated."""
    han = "".join(_HAN.findall(text))
    return {han[i:i + 2] for i in range(len(han) - 1)}
