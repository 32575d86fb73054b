"""Learn a bilingual glossary of field labels and section headings from parallel corpora.

    python -m dropqa.evals.glossary --en DIR --zh DIR --out dropqa/text/glossary.tsv

The two folders hold the same kinds of documents, one in English, one in Chinese, written
by the same generator: the same field labels and section headings, different people and
places (the dragonball dev corpora: court judgements and hospitalization records). The
script

1. reads every ``.md``/``.txt`` file (``--en``/``--zh`` may repeat; a file not in the folder's
   language, by its share of Han characters, is skipped and said so);
2. tells its kind from its words (:data:`KINDS`: judgement or record; other documents are
   left out: their labels have nothing to be aligned with);
3. collects its labels and headings, in order, each once: ``Label: value``, ``**Label**: value``,
   ``**Label:** value``, ``- **Label:**``, ``标签：内容``, Markdown headings, lines all in bold;
   bullets, numbering (``I.``, ``3.``, ``一、``) and bold markers are taken off;
4. per language and kind, keeps the labels found in at least ``--min-docs`` documents (a
   person is in one), and none with a name in it: a place (市, 区…) or a pseudonym (某) in a
   Chinese label, an English word the corpus only ever capitalises after a lower-case word
   and CC-CEDICT does not know (Lexington, Quarryville) — a hospital in every document is
   still a name. Labels in ``--min-share`` of the documents make the common order;
5. finds anchors: pairs CC-CEDICT vouches for (most of both labels explained by its words
   and characters, both ways: 初步诊断 ↔ "preliminary diagnosis"), each label the other's clear
   best, in the same order in both languages. Every label gets its place on that common
   scale (the k-th anchor at k, a label between two anchors of its document in proportion),
   so that documents with more or fewer labels line up;
6. aligns the two common orders (a monotone alignment, dynamic programming) scored by how
   close the labels' places are and how much of them CC-CEDICT explains;
7. keeps only the confident pairs — the dictionary vouches for it; or it explains half of
   it at the same place (主诉 "complain of" ↔ "chief complaint"); or the pair is the only one
   left between two confident ones, at the same place (婚姻状况 ↔ "marital status": no
   dictionary word for "marital") — then labels left out: a pair the dictionary vouches for
   at the same place, typically or in a good share of the documents (审判长 ↔ "chief judge":
   the zh judgements sign at their end, some at their start too), and unpaired neighbours it
   half explains, each the other's best (辩护人 ↔ "defense lawyer"). Every dropped label and
   pair is printed with the reason;
8. applies :data:`REMOVE` and :data:`OVERRIDES` (the hand review, each line explained) and
   writes ``zh<TAB>en`` lines under a comment header, a section per kind.

Deterministic: the same folders give the same file. The result is read by
:mod:`dropqa.text.bilingual` (``translate_terms`` looks terms up in it before CC-CEDICT).
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dropqa.text.bilingual import dictionary_glosses, dictionary_knows_only_as_a_name, translate_terms

# ---------------------------------------------------------------- the hand review

# Pairs the corpora cannot teach, added after reviewing the output: (zh, en, why).
OVERRIDES: tuple[tuple[str, str, str], ...] = (
    ("公诉机关", "procuratorate",
     "the zh label for the prosecuting procuratorate, at the place of the en 'Procuratorate'; "
     "CC-CEDICT knows 公诉 only as 'public prosecution' and 机关 as 'organ'"),
    ("人民检察院", "procuratorate", "the institution's full name, which the zh judgements write under 公诉机关"),
    ("辩护律师", "defense lawyer", "what questions say; the zh judgements' label is 辩护人 (learned)"),
    ("书记员", "court clerk",
     "the en judgements label the clerk 'Clerk' (learned) or 'Court Clerk'; CC-CEDICT lacks 书记员"),
    ("婚育史及家族史", "marital and family history", "the heading over both; CC-CEDICT has neither 婚育 nor 'marital'"),
    ("住院病历", "hospitalization record",
     "the record's title, written as a plain line (no label) in the zh records, so never collected"),
)
# Learned pairs the review found wrong: (zh, en, why).
REMOVE: tuple[tuple[str, str, str], ...] = (
    ("被告人及辩护人信息", "defendant information",
     "the zh heading covers the defense lawyer too: its pair is 'defendant and defense lawyer information'"),
    ("日期", "dated", "the verb of a signature line; 日期 ↔ 'date' is the pair"),
)

# ---------------------------------------------------------------- kinds

# A document's kind is the one whose words it uses most (at least MIN_KIND_HITS times).
KINDS: dict[str, dict[str, tuple[str, ...]]] = {
    "judgement": {
        "en": ("court", "defendant", "judgment", "judgement", "procuratorate", "sentence", "verdict", "prosecut"),
        "zh": ("法院", "被告人", "判决", "检察院", "公诉", "刑事", "审判"),
    },
    "record": {
        "en": ("hospital", "patient", "diagnosis", "admission", "symptom", "physician", "examination"),
        "zh": ("医院", "患者", "诊断", "入院", "症状", "病历", "检查"),
    },
}
MIN_KIND_HITS = 5

# ---------------------------------------------------------------- labels

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_NUMBERING = re.compile(  # a list bullet, then numbering: "- ", "I. ", "3. ", "一、", "（二）", "第三条"
    r"^\s*(?:[-*+]\s+)?(?:(?:[IVXLC]+|\d+(?:\.\d+)*|[A-Za-z])[.)]\s+|\d+[、.]\s*|[一二三四五六七八九十]+[、.]\s*"
    r"|[（(][一二三四五六七八九十\d]+[)）]\s*|第[一二三四五六七八九十\d]+[章节条部分]\s*)?"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\S+[.、]\s*)?\*\*([^*]+)\*\*\s*\\?\s*$")
_LABEL_LINE = re.compile(r"^([^:：]{1,60}?)\s*[:：]\s*(.*)$")
_EN_LABEL = re.compile(r"[A-Za-z][A-Za-z'’&/\- ]*[A-Za-z)]?")
_ZH_LABEL = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,12}")
_EN_SMALL = frozenset(
    ["a", "an", "and", "or", "of", "the", "in", "on", "at", "to", "for", "with", "by", "from", "as", "v", "vs"]
)
MAX_EN_WORDS = 6


def language(text: str) -> str:
    """'zh' when at least a fifth of the letters are Han characters, else 'en'."""
    han = len(_HAN.findall(text))
    latin = sum(c.isascii() and c.isalpha() for c in text)
    return "zh" if han and han * 5 >= han + latin else "en"


def kind_of(text: str, lang: str) -> str | None:
    low = text.lower()
    hits = {kind: sum(low.count(w) for w in words[lang]) for kind, words in KINDS.items()}
    kind, n = max(hits.items(), key=lambda kv: (kv[1], kv[0]))
    return kind if n >= MIN_KIND_HITS else None


def _clean_label(raw: str, lang: str) -> str | None:
    """Label text as it goes into the glossary, or None when it is no label (a sentence, a date, a name)."""
    text = raw.replace("**", "").replace("__", "").strip().rstrip("\\").strip()
    text = _NUMBERING.sub("", text, count=1).strip()
    text = text.rstrip(":：").strip()
    if lang == "zh":
        text = re.sub(r"[（(]([\u4e00-\u9fff]{1,2})[)）]", r"\1", text)  # 交（接）班记录 → 交接班记录
        if not _ZH_LABEL.fullmatch(text):
            return None
        return text
    text = text.replace("’", "'")
    if not _EN_LABEL.fullmatch(text) or not text[0].isupper():
        return None
    words = text.split()
    if not words or len(words) > MAX_EN_WORDS or {words[0].lower(), words[-1].lower()} & _EN_SMALL:
        return None  # "The patient said: …" is a sentence, not a label
    return " ".join(words).lower()


def labels_of(text: str, lang: str) -> list[str]:
    """The document's labels and headings in reading order, each once (its first place)."""
    out: dict[str, None] = {}
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line.strip() or line.lstrip().startswith("|"):
            continue
        raw = None
        if (m := _HEADING.match(line)) or (m := _BOLD_LINE.match(line)):
            raw = m[1]
        else:
            plain = line.replace("**", "").strip()
            plain = _NUMBERING.sub("", plain, count=1)
            if m := _LABEL_LINE.match(plain):
                raw = m[1]
        if raw is None:
            continue
        if lang == "en" and ":" in raw.replace("**", "").rstrip(": "):
            raw = raw.split(":", 1)[0]  # **Case Filing and Investigation: March 15, 2023**
        if lang == "zh" and "：" in raw.rstrip("：: "):
            raw = raw.split("：", 1)[0]
        label = _clean_label(raw, lang)
        if label:
            out.setdefault(label, None)
    return list(out)


# ---------------------------------------------------------------- statistics


@dataclass
class Label:
    text: str
    docs: int  # documents of its language and kind that hold it
    share: float  # docs / documents of its language and kind
    position: float  # median relative position (0 = the document's first label, 1 = its last)
    coord: float = 0.0  # median place on the anchor scale (k: the k-th anchor; see place())
    coords: list[float] = field(default_factory=list)  # its place in each document that holds it


@dataclass
class Corpus:
    """Labels per (language, kind), each document's label sequence, and what was left out."""

    labels: dict[tuple[str, str], list[Label]] = field(default_factory=dict)
    sequences: dict[tuple[str, str], list[list[str]]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    rare: dict[tuple[str, str], list[tuple[str, int]]] = field(default_factory=dict)  # below --min-docs
    names: dict[tuple[str, str], list[tuple[str, int]]] = field(default_factory=dict)  # look like names

    def docs(self, lang: str, kind: str) -> int:
        return len(self.sequences.get((lang, kind), ()))


def _files(dirs: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        out += sorted(p for p in Path(d).rglob("*") if p.is_file())
    return out


def proper_nouns(texts: Iterable[str]) -> frozenset[str]:
    """Words written with a capital after a lower-case word ("at Lexington", "the Quarryville"),
    never in lower case anywhere, and unknown to CC-CEDICT or known to it only as a name
    (Lexington): the names of the English corpus, lower-cased. "the Chief Judge" makes no name
    of "chief": the dictionary knows the word."""
    capital: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        capital.update(m.lower() for m in re.findall(r"\b[a-z]+[ \t]+([A-Z][a-z]+)\b", text))
        lower.update(re.findall(r"\b[a-z]{2,}\b", text))
    return frozenset(
        w for w in capital - lower
        if dictionary_knows_only_as_a_name(w) or not translate_terms([w], "zh", per_term=1, glossary=False)
    )


def looks_like_name(label: str, lang: str, names: frozenset[str] = frozenset()) -> bool:
    """A place (…市…区) or a pseudonym (马某某) in a Chinese label; an English label with a name in it."""
    if lang == "zh":
        return bool(_PLACE.search(label)) or "某" in label
    return any(w in names for w in _en_words(label))


def collect(dirs: dict[str, Sequence[Path]], min_docs: int) -> Corpus:
    corpus = Corpus()
    texts: dict[str, list[str]] = defaultdict(list)
    for want, paths in dirs.items():
        for path in _files(paths):
            if path.suffix.lower() not in (".md", ".txt", ".markdown"):
                corpus.skipped.append((str(path), f"not text ({path.suffix})"))
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            lang = language(text)
            if lang != want:
                corpus.skipped.append((str(path), f"written in {lang}, not {want}"))
                continue
            kind = kind_of(text, lang)
            if kind is None:
                corpus.skipped.append((str(path), "neither a judgement nor a record"))
                continue
            texts[lang].append(text)
            corpus.sequences.setdefault((lang, kind), []).append(labels_of(text, lang))
    names = proper_nouns(texts["en"])
    for key, docs in sorted(corpus.sequences.items()):
        where: dict[str, list[float]] = defaultdict(list)
        for labels in docs:
            for i, label in enumerate(labels):
                where[label].append(i / max(1, len(labels) - 1))
        kept, rare, named = [], [], []
        for label, places in where.items():
            if looks_like_name(label, key[0], names):
                named.append((label, len(places)))
            elif len(places) < min_docs:
                rare.append((label, len(places)))
            else:
                kept.append(Label(label, len(places), len(places) / len(docs), statistics.median(places)))
        corpus.labels[key] = sorted(kept, key=lambda lab: (lab.position, lab.text))
        corpus.rare[key] = sorted(rare, key=lambda r: (-r[1], r[0]))
        corpus.names[key] = sorted(named, key=lambda r: (-r[1], r[0]))
    return corpus


# ---------------------------------------------------------------- dictionary support

_ZH_FUNCTION = frozenset("及和与的之或并")  # joining characters: not counted as content to cover
_PLACE = re.compile(r"[市区县省镇村]")  # a place name (银杏市橄榄区人民法院), never a label
# what may follow a shared stem: complain|t, diagnos|is|e, exam|ination|ine, judg|ment|e
_ENDINGS = frozenset((
    "", "e", "s", "es", "ed", "d", "t", "y", "ly", "ies", "ing", "ion", "ions", "tion", "ation", "ations", "al", "l",
    "ic", "tic", "ical", "is", "ia", "ment", "ments", "er", "ers", "or", "ors", "ian", "ery", "ive", "se", "st", "ze",
    "zed",
))  # fmt: skip


def _en_words(label: str) -> list[str]:
    return [w for w in re.split(r"[\s\-/]+", label.replace("'s", "")) if w and w not in _EN_SMALL]


def _same_word(a: str, b: str) -> bool:
    """Equal, or one stem with a usual ending each: complain/complaint, diagnosis/diagnose,
    examination/examine; not defend/defendant."""
    if a == b:
        return True
    n = min(len(a), len(b))
    common = 0
    while common < n and a[common] == b[common]:
        common += 1
    return common >= 4 and a[common:] in _ENDINGS and b[common:] in _ENDINGS


@cache
def shares(zh: str, en: str) -> tuple[float, float]:
    """How much CC-CEDICT explains the pair: (the share of the English words some Chinese word or
    character of ``zh`` translates to, or that translate to (part of) ``zh``; the share of ``zh``'s
    characters so explained, joining characters such as 及 left out)."""
    words = _en_words(en)
    content = [c for c in zh if c not in _ZH_FUNCTION]
    if not words or not content:
        return 0.0, 0.0
    matched: dict[str, float] = {}  # word → 1 (the dictionary's word), 0.8 (same stem), 0.5 (part of it)
    covered: set[int] = set()

    def match(w: str, weight: float) -> None:
        matched[w] = max(weight, matched.get(w, 0.0))

    for i in range(len(zh)):
        for j in range(i + 1, min(len(zh), i + 6) + 1):
            glosses = dictionary_glosses(zh[i:j])
            if not glosses:
                continue
            gloss_words = {g for gloss in glosses for g in re.split(r"[\s\-]+", gloss.replace("'s", ""))}
            for w in words:
                if w in gloss_words or w.rstrip("s") in gloss_words:
                    match(w, 1.0)
                elif any(_same_word(w, g) for g in gloss_words):
                    match(w, 0.8)
                else:
                    continue
                covered.update(range(i, j))
    for w in words:
        for zh_word in translate_terms([w], "zh", per_term=8, glossary=False).get(w, ()):
            if zh_word in zh:
                at = zh.find(zh_word)
                match(w, 1.0)
                covered.update(range(at, at + len(zh_word)))
                continue
            # two characters of it (respiration: 人工呼吸 → 呼吸; duration: 持续时间 → 时间, hence only half)
            part = next((zh_word[k : k + 2] for k in range(len(zh_word) - 1) if zh_word[k : k + 2] in zh), None)
            if part:
                at = zh.find(part)
                match(w, 0.5)
                covered.update(range(at, at + 2))
    en_share = sum(matched.values()) / len(words)
    zh_share = sum(1 for i, c in enumerate(zh) if i in covered and c not in _ZH_FUNCTION) / len(content)
    return en_share, zh_share


def support(zh: str, en: str) -> float:
    """Dictionary support of a pair, 0–1: the mean of its two :func:`shares`."""
    a, b = shares(zh, en)
    return (a + b) / 2


def strong(zh: str, en: str) -> bool:
    """CC-CEDICT alone vouches for the pair: most of both sides explained (so "date" is not 出生日期)."""
    a, b = shares(zh, en)
    return min(a, b) >= 0.6 and (a + b) / 2 >= 0.75


# ---------------------------------------------------------------- alignment

WIDTH = 0.5  # on the anchor scale: labels this far apart are no longer "at the same place"
AGREE = 0.5  # dictionary support that, at the same place, makes a pair (see _fair)


@dataclass
class Pair:
    zh: Label
    en: Label
    support: float
    why: str = ""
    kind: str = ""

    @property
    def gap(self) -> float:
        return abs(self.zh.coord - self.en.coord)


def _increasing(items: list, key: Callable) -> list:
    """The longest subsequence of ``items`` whose ``key`` strictly increases (first such, O(n²))."""
    best: list[list] = []
    for k, item in enumerate(items):
        prev = [best[j] for j in range(k) if key(items[j]) < key(item)]
        best.append([*max(prev, key=len, default=[]), item])
    return max(best, key=len, default=[])


def _best(lab: Label, others: list[Label], pair: Callable[[Label, Label], tuple[str, str]],
          distance: Callable[[Label], float] | None = None,
          good: Callable[[str, str], bool] | None = None) -> Label | None:
    """``lab``'s best match among ``others`` by dictionary support (the closer on a tie: ``distance``, by
    default how far apart their positions are), or None when none is ``good`` (default :func:`strong`)
    or the runner-up is as good (末次月经时间: "last menstruation" and "menstruation duration" alike)."""
    far = distance or (lambda o: abs(o.position - lab.position))
    ranked = sorted(others, key=lambda o: (-support(*pair(lab, o)), far(o), o.text))
    if not ranked or not (good or strong)(*pair(lab, ranked[0])):
        return None
    if len(ranked) > 1 and support(*pair(lab, ranked[1])) > support(*pair(lab, ranked[0])) - 0.05:
        return None
    return ranked[0]


def _zh_en(z: Label, e: Label) -> tuple[str, str]:
    return z.text, e.text


def _en_zh(e: Label, z: Label) -> tuple[str, str]:
    return z.text, e.text


def anchors(zh: list[Label], en: list[Label]) -> list[Pair]:
    """Pairs CC-CEDICT vouches for (:func:`strong`), each label the other's clear best match, in
    the same order in both languages (the longest chain; 审判长 signs a zh judgement at its end, an
    en one at its start: out of order, no anchor)."""
    mutual = []
    for e in sorted(en, key=lambda lab: (lab.position, lab.text)):
        z = _best(e, zh, _en_zh)
        if z is not None and _best(z, en, _zh_en) is e:
            mutual.append(Pair(z, e, support(z.text, e.text)))
    return _increasing(mutual, key=lambda p: p.zh.position)


def place(sequences: list[list[str]], anchor_texts: list[str]) -> dict[str, list[float]]:
    """Each label's places on the anchor scale, a document each: the k-th anchor is at k; a label between two
    anchors of its document, proportionally between them (before the first at 0, after the last at
    K + 1). Documents of both languages so share one scale, whatever labels each lacks or adds."""
    rank = {t: k + 1 for k, t in enumerate(anchor_texts)}
    end = len(anchor_texts) + 1
    where: dict[str, list[float]] = defaultdict(list)
    for seq in sequences:
        marks = _increasing([(i, rank[t]) for i, t in enumerate(seq) if t in rank], key=lambda m: m[1])
        marks = [(-1, 0), *marks, (len(seq), end)]
        for i, t in enumerate(seq):
            for (ia, ka), (ib, kb) in itertools.pairwise(marks):
                if ia <= i <= ib:
                    where[t].append(ka + (kb - ka) * (i - ia) / (ib - ia))
                    break
    return dict(where)


def _closeness(zh: Label, en: Label) -> float:
    return max(0.0, 1.0 - abs(zh.coord - en.coord) / WIDTH)


def align(zh: list[Label], en: list[Label]) -> list[Pair]:
    """Monotone alignment of the two common orders (each list sorted by place) maximising the sum
    of 0.6 × dictionary support + 0.4 × closeness − 0.3 over the aligned pairs."""
    n, m = len(zh), len(en)
    sup = [[support(z.text, e.text) for e in en] for z in zh]
    gain = [[0.6 * sup[i][j] + 0.4 * _closeness(zh[i], en[j]) - 0.3 for j in range(m)] for i in range(n)]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = gain[i][j] + best[i + 1][j + 1] if gain[i][j] > 0 else -1.0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], take)
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if gain[i][j] > 0 and best[i][j] == gain[i][j] + best[i + 1][j + 1]:
            pairs.append(Pair(zh[i], en[j], sup[i][j]))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def judge(zh: list[Label], en: list[Label], pairs: list[Pair]) -> tuple[list[Pair], list[str]]:
    """The confident aligned pairs (``why`` says why each is kept) and a line per dropped one."""
    kept: list[Pair] = []
    dropped: list[str] = []
    def contested(p: Pair) -> bool:  # the dictionary clearly pairs one of them with another label
        return any(b is not None and b is not other
                   for b, other in ((_best(p.zh, en, _zh_en), p.en), (_best(p.en, zh, _en_zh), p.zh)))

    for p in pairs:
        if strong(p.zh.text, p.en.text):
            p.why = "dictionary + order"
        elif _fair(p.zh.text, p.en.text) and p.gap <= WIDTH / 2 and not contested(p):
            p.why = "order + half the words in the dictionary"
    confident = [bool(p.why) for p in pairs]

    def left(labels: list[Label], a: int, b: int, others: list[Label], pair: Callable) -> list[Label]:
        """The labels between places a and b but those the dictionary clearly pairs elsewhere."""
        return [lab for lab in labels[a + 1 : b] if _best(lab, others, pair) is None]

    zi = {lab.text: k for k, lab in enumerate(zh)}
    ei = {lab.text: k for k, lab in enumerate(en)}
    for k, p in enumerate(pairs):
        if confident[k]:
            kept.append(p)
            continue
        # the only label left on each side between two confident pairs, at the same place
        prev = next((pairs[x] for x in range(k - 1, -1, -1) if confident[x]), None)
        nxt = next((pairs[x] for x in range(k + 1, len(pairs)) if confident[x]), None)
        lone = (
            prev is not None and nxt is not None
            and left(zh, zi[prev.zh.text], zi[nxt.zh.text], en, _zh_en) == [p.zh]
            and left(en, ei[prev.en.text], ei[nxt.en.text], zh, _en_zh) == [p.en]
        )  # fmt: skip
        if lone and p.gap <= WIDTH / 2 and not contested(p):
            p.why = "order (alone between confident pairs)"
            kept.append(p)
        else:
            reason = (f"{p.gap:.2f} apart" if p.gap > WIDTH / 2 else "the dictionary pairs one of them elsewhere"
                      ) if lone else "not alone between confident pairs"
            dropped.append(f"pair {p.zh.text} ↔ {p.en.text}: dictionary support {p.support:.2f}, {reason}")
    return kept, dropped


def near(a: Label, b: Label) -> float:
    """The share of the documents holding one label that hold it where the other typically is
    (within WIDTH): 书记员 closes most zh judgements but opens some, where "clerk" is."""
    return max(
        sum(abs(c - b.coord) <= WIDTH for c in a.coords) / max(1, len(a.coords)),
        sum(abs(c - a.coord) <= WIDTH for c in b.coords) / max(1, len(b.coords)),
    )


def _fair(zh: str, en: str) -> bool:
    """Half the pair explained by CC-CEDICT, and a good part of each side."""
    a, b = shares(zh, en)
    return (a + b) / 2 >= AGREE and min(a, b) >= 0.3


def rescue(zh: list[Label], en: list[Label], kept: list[Pair]) -> list[Pair]:
    """Pairs for labels the alignment left out (uncommon ones too), in two rounds:

    1. the label's clear best match by CC-CEDICT (:func:`_best`, :func:`strong`) at the same place —
       typically, or in a fair share of the documents (:func:`near`). That label may be paired
       already when this one is all dictionary words ("witness testimony" besides "witness
       testimonies"; not 手术清点记录 besides 手术记录 for "surgery records");
    2. two unpaired labels within 2 × WIDTH of each other that the dictionary half explains
       (:func:`_fair`), each the other's clear best such neighbour (辩护人 ↔ "defense lawyer").
    """
    done = {p.zh.text for p in kept} | {p.en.text for p in kept}
    out: list[Pair] = []
    offers: list[tuple[Label, Label, bool]] = []  # (zh, en, whether the zh label is the one left out)
    for mine, theirs, pair in ((en, zh, _en_zh), (zh, en, _zh_en)):
        for lab in mine:
            if lab.text not in done and (o := _best(lab, theirs, pair)) is not None:
                offers.append((o, lab, False) if mine is en else (lab, o, True))
    # the best explained first: "defendant and defense lawyer information" takes 被告人及辩护人信息
    # before "defendant information" comes asking
    offers.sort(key=lambda t: (-support(t[0].text, t[1].text), abs(t[0].coord - t[1].coord), t[0].text, t[1].text))
    for z, e, zh_left in offers:
        lab, o = (z, e) if zh_left else (e, z)
        if lab.text in done:
            continue
        own = shares(z.text, e.text)[1 if zh_left else 0]
        if o.text in done and own < 0.9:
            continue
        if abs(o.coord - lab.coord) <= 2 * WIDTH:
            why = "dictionary, same place"
        elif near(lab, o) >= 0.25:
            why = f"dictionary, same place in {near(lab, o):.0%} of the documents"
        else:
            continue
        out.append(Pair(z, e, support(z.text, e.text), why))
        done |= {z.text, e.text}

    def neighbour(lab: Label, others: list[Label], pair: Callable[[Label, Label], tuple[str, str]]) -> Label | None:
        near_by = [o for o in others if o.text not in done and abs(o.coord - lab.coord) <= 2 * WIDTH]
        return _best(lab, near_by, pair, distance=lambda o: abs(o.coord - lab.coord), good=_fair)

    for z in zh:
        if z.text in done:
            continue
        e = neighbour(z, en, _zh_en)
        if e is not None and neighbour(e, zh, _en_zh) is z:
            why = "half the dictionary, neighbours, each the other's best"
            out.append(Pair(z, e, support(z.text, e.text), why))
            done |= {z.text, e.text}
    return out


def resolve(pairs: list[Pair]) -> tuple[list[Pair], list[str]]:
    """A pair CC-CEDICT does not vouch for gives way when one of its labels has one it does."""
    vouched = {p.zh.text for p in pairs if strong(p.zh.text, p.en.text)}
    vouched |= {p.en.text for p in pairs if strong(p.zh.text, p.en.text)}
    kept, dropped = [], []
    for p in pairs:
        if not strong(p.zh.text, p.en.text) and (p.zh.text in vouched or p.en.text in vouched):
            dropped.append(f"pair {p.zh.text} ↔ {p.en.text} ({p.why}): the dictionary vouches for another pair of one")
        else:
            kept.append(p)
    return kept, dropped


# ---------------------------------------------------------------- the whole run


def learn(corpus: Corpus, min_share: float, out: Callable[[str], None] = print, verbose: bool = False) -> list[Pair]:
    """Every kept pair, kind by kind in English order; ``out`` gets what was dropped and why."""
    result: list[Pair] = []
    for kind in KINDS:
        zh_all = corpus.labels.get(("zh", kind), [])
        en_all = corpus.labels.get(("en", kind), [])
        if not zh_all or not en_all:
            out(f"[{kind}] not in both languages: nothing to align")
            continue
        zh = [lab for lab in zh_all if lab.share >= min_share]
        en = [lab for lab in en_all if lab.share >= min_share]
        fixed = anchors(zh, en)
        for lang, labels, side in (("zh", zh_all, "zh"), ("en", en_all, "en")):
            coords = place(corpus.sequences[(lang, kind)], [getattr(p, side).text for p in fixed])
            for lab in labels:
                lab.coords = coords[lab.text]
                lab.coord = statistics.median(lab.coords)
        zh.sort(key=lambda lab: (lab.coord, lab.text))
        en.sort(key=lambda lab: (lab.coord, lab.text))
        kept, dropped = judge(zh, en, align(zh, en))
        pairs_of_order = list(kept)
        kept, gave_way = resolve(kept + rescue(zh_all, en_all, kept))
        paired = {p.zh.text for p in kept} | {p.en.text for p in kept}
        out(f"[{kind}] {corpus.docs('zh', kind)} zh and {corpus.docs('en', kind)} en documents; "
            f"{len(zh_all)} zh and {len(en_all)} en labels, {len(zh)} and {len(en)} of them in the common order; "
            f"{len(fixed)} anchors; {len(kept)} pairs kept")
        for line in dropped + gave_way:
            if line.split(":")[0] not in {f"pair {p.zh.text} ↔ {p.en.text}" for p in kept}:  # not taken up later
                out(f"  dropped {line}")
        for lab in zh_all + en_all:
            if lab.text not in paired:
                tier = "common" if lab.share >= min_share else "uncommon"
                out(f"  dropped {tier} label {lab.text!r} ({lab.docs} docs, at {lab.coord:.2f}): "
                    "no confident counterpart")
        for lang in ("zh", "en"):
            rare = corpus.rare.get((lang, kind), [])
            names = corpus.names.get((lang, kind), [])
            show = rare if verbose else rare[:8]
            out(f"  dropped {len(rare)} {lang} labels in too few documents: "
                + ", ".join(f"{t} ({n})" for t, n in show) + (", …" if len(show) < len(rare) else ""))
            out(f"  dropped {len(names)} {lang} labels with a name in them: "
                + ", ".join(f"{t} ({n})" for t, n in names))
        for p in kept:
            p.kind = kind
        # in the order of the Chinese documents; a label's pair from the alignment before its other
        # ones (刑事判决书: "criminal judgment", then "criminal judgment document"), then the closer
        aligned = {(p.zh.text, p.en.text) for p in pairs_of_order}
        result += sorted(kept, key=lambda p: (p.zh.coord, p.zh.text, (p.zh.text, p.en.text) not in aligned,
                                              p.gap, -p.support, p.en.text))
    return result


def review(pairs: list[Pair], out: Callable[[str], None] = print) -> dict[str, list[tuple[str, str]]]:
    """Learned pairs minus :data:`REMOVE`, per kind, plus :data:`OVERRIDES` ("added by hand");
    (zh, en) rows, each once."""
    removed = {(zh, en) for zh, en, _ in REMOVE}
    seen: set[tuple[str, str]] = set()
    sections: dict[str, list[tuple[str, str]]] = {}
    for p in pairs:
        row = (p.zh.text, p.en.text)
        if row in removed:
            out(f"  removed by review: {row[0]} ↔ {row[1]}")
        elif row not in seen:
            seen.add(row)
            sections.setdefault(p.kind, []).append(row)
    for zh, en, _ in OVERRIDES:
        if (zh, en) not in seen:
            seen.add((zh, en))
            sections.setdefault("added by hand", []).append((zh, en))
    return sections


HEADER = """\
# DropQA glossary: field labels and section headings, zh<TAB>en, one pair a line.
# Learned from parallel corpora by `python -m dropqa.evals.glossary {args}`:
# labels and headings collected per language and document kind (judgement, record) with their
# typical order, English and Chinese aligned by that order and checked against CC-CEDICT; only
# confident pairs kept, then reviewed by hand (OVERRIDES and REMOVE in the script, each explained).
# General vocabulary only: no names of people, courts, hospitals or places.
# Read by dropqa.text.bilingual.translate_terms before CC-CEDICT. Regenerate it; do not edit it.
"""


def write(sections: dict[str, list[tuple[str, str]]], path: Path, args: str) -> None:
    lines = [HEADER.format(args=args)]
    for name, rows in sections.items():
        lines.append(f"# {name}\n")
        lines += [f"{zh}\t{en}\n" for zh, en in rows]
    path.write_text("".join(lines), encoding="utf-8")


def _short(path: Path) -> str:
    """The folder's last two parts (dragonball-dev-en/corpus): no machine paths in the glossary."""
    return "/".join(path.resolve().parts[-2:])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dropqa.evals.glossary", description=__doc__.split("\n\n")[0])
    ap.add_argument("--en", type=Path, action="append", required=True, help="folder of English documents")
    ap.add_argument("--zh", type=Path, action="append", required=True, help="folder of Chinese documents")
    ap.add_argument("--out", type=Path, required=True, help="the glossary to write (zh<TAB>en)")
    ap.add_argument("--min-docs", type=int, default=3, help="a label is in at least this many documents")
    ap.add_argument("--min-share", type=float, default=0.15,
                    help="labels in this share of their kind's documents make the common order")
    ap.add_argument("--verbose", action="store_true", help="list every label dropped as too rare")
    a = ap.parse_args(argv)
    corpus = collect({"en": a.en, "zh": a.zh}, a.min_docs)
    for path, why in corpus.skipped:
        print(f"skipped {path}: {why}")
    pairs = learn(corpus, a.min_share, verbose=a.verbose)
    sections = review(pairs)
    shown = " ".join([*(f"--en {_short(p)}" for p in a.en), *(f"--zh {_short(p)}" for p in a.zh)])
    write(sections, a.out, f"{shown} --min-docs {a.min_docs} --min-share {a.min_share}")
    n = sum(len(rows) for rows in sections.values())
    added = len(sections.get("added by hand", []))
    print(f"{n} pairs ({len(pairs)} learned, {len(pairs) + added - n} removed and {added} added by review) → {a.out}")
    for p in pairs:
        print(f"  {p.zh.text}\t{p.en.text}\t{p.support:.2f}\t{p.zh.coord:.2f}/{p.en.coord:.2f}\t{p.why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
