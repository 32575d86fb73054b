"""Learn a bilingual glossary of field labels and section headings from parallel corpora.

    python -m dropqa.evals.glossary --en DIR --zh DIR --out dropqa/text/glossary.tsv

The two folders hold the same kinds of documents, one in English, one in Chinese, written
by the same generator: the same field labels and section headings, different people and
places (the dragonball dev corpora: court judgements and hospitalization records). The
script

1. reads every ``.md``/``.txt`` file (its language checked by its share of Han characters);
2. tells its kind from its words (:data:`KINDS`: judgement or record; other documents are
   left out: their labels have nothing to be aligned with);
3. collects its labels and headings, in order: ``Label: value``, ``**Label**: value``,
   ``**Label:** value``, ``- **Label:**``, ``标签：内容``, Markdown headings, lines all in
   bold; numbering (``I.``, ``3.``, ``一、``) and bold markers are taken off;
4. per language and kind, keeps the labels found in enough documents (``--min-docs``: a name
   of a person, court or hospital is in one or two documents; a label with a place in it, 市 or
   区, or an English word CC-CEDICT does not know, Quarryville, is a name) with their typical
   (median) relative position in the document; those in a good share of them (``--min-share``)
   make the common order;
5. aligns the English and the Chinese labels of a kind in order — a monotone alignment of
   the two common orders (dynamic programming) scored by how close their positions are and
   how much of the two labels CC-CEDICT translates into each other (single words and
   characters: 主诉 "complain of" ↔ "chief complaint");
6. keeps only the confident pairs: both the dictionary and the position agree, or the
   dictionary agrees strongly, or a pair is the only thing left between two confident
   neighbours at the same place (a label CC-CEDICT cannot read, 书记员 ↔ "court clerk");
   every dropped label and pair is printed with the reason;
7. applies :data:`OVERRIDES` and :data:`REMOVE` (the hand review) and writes ``zh<TAB>en`` lines.

Deterministic: the same folders give the same file. The result is read by
:mod:`dropqa.text.bilingual` (``translate_terms`` looks terms up in it before CC-CEDICT).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dropqa.text.bilingual import dictionary_glosses, translate_terms

# ---------------------------------------------------------------- the hand review

# Pairs the corpora cannot teach, added after reviewing the output. Each says why.
OVERRIDES: tuple[tuple[str, str, str], ...] = (
    # The Chinese judgements name the procuratorate (…人民检察院) under the label 公诉机关,
    # so 检察院 is never a label; the English ones label it "Procuratorate".
    ("检察院", "procuratorate", "the zh label is 公诉机关; the institution itself"),
    ("人民检察院", "procuratorate", "the institution's full name in the zh judgements"),
    # The zh judgements say 辩护人 ("defender"); questions say 辩护律师 just as often.
    ("辩护律师", "defense lawyer", "the usual word in questions; the corpus label is 辩护人"),
)
# Learned pairs the review found wrong, with the reason: (zh, en, why).
REMOVE: tuple[tuple[str, str, str], ...] = ()

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
_NUMBERING = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:(?:[IVXLC]+|\d+(?:\.\d+)*|[A-Za-z])[.)]\s+|\d+[、.]\s*|[一二三四五六七八九十]+[、.]\s*"
    r"|[（(][一二三四五六七八九十\d]+[)）]\s*|第[一二三四五六七八九十\d]+[章节条部分]\s*)"
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
    if not words or len(words) > MAX_EN_WORDS or words[-1].lower() in _EN_SMALL:
        return None
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
    never in lower case anywhere and unknown to CC-CEDICT: the names of the English corpus
    (lower-cased). "the Chief Judge" makes no name of "chief": the dictionary knows it."""
    capital: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        capital.update(m.lower() for m in re.findall(r"\b[a-z]+[ \t]+([A-Z][a-z]+)\b", text))
        lower.update(re.findall(r"\b[a-z]{2,}\b", text))
    return frozenset(w for w in capital - lower if not translate_terms([w], "zh", per_term=1, glossary=False))


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
_ENDINGS = frozenset(
    ["", "e", "s", "es", "ed", "d", "t", "y", "ies", "ing", "ion", "ions", "tion", "ation", "ations", "al", "l", "ic", "tic", "ical", "is", "ment", "ments", "er", "ers", "or", "ors", "ian", "ery", "ive", "se"]
)


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
AGREE = 0.5  # dictionary support that, at the same place, makes a pair


@dataclass
class Pair:
    zh: Label
    en: Label
    support: float
    why: str = ""

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


def _best(lab: Label, others: list[Label], pair: Callable[[Label, Label], tuple[str, str]]) -> Label | None:
    """``lab``'s best match among ``others`` by dictionary support (the closer on a tie), or None
    when none is :func:`strong` or the runner-up is as good (末次月经时间: "last menstruation"
    and "menstruation duration" alike)."""
    ranked = sorted(others, key=lambda o: (-support(*pair(lab, o)), abs(o.position - lab.position), o.text))
    if not ranked or not strong(*pair(lab, ranked[0])):
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
            for (ia, ka), (ib, kb) in zip(marks, marks[1:], strict=False):
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
    for p in pairs:
        if strong(p.zh.text, p.en.text):
            p.why = "dictionary + order"
        elif p.support >= AGREE and min(shares(p.zh.text, p.en.text)) >= 0.3 and p.gap <= WIDTH / 2:
            p.why = "order + half the words in the dictionary"
    confident = [bool(p.why) for p in pairs]
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
            and zi[nxt.zh.text] - zi[prev.zh.text] == 2 and ei[nxt.en.text] - ei[prev.en.text] == 2
        )  # fmt: skip
        if lone and p.gap <= WIDTH / 2:
            p.why = "order (alone between confident pairs)"
            kept.append(p)
        else:
            reason = f"{p.gap:.2f} apart" if lone else "not alone between confident pairs"
            dropped.append(f"pair {p.zh.text} ↔ {p.en.text}: dictionary support {p.support:.2f}, {reason}")
    return kept, dropped


def near(a: Label, b: Label) -> float:
    """The share of the documents holding one label that hold it where the other typically is
    (within WIDTH): 书记员 closes most zh judgements but opens some, where "clerk" is."""
    return max(
        sum(abs(c - b.coord) <= WIDTH for c in a.coords) / max(1, len(a.coords)),
        sum(abs(c - a.coord) <= WIDTH for c in b.coords) / max(1, len(b.coords)),
    )


def rescue(zh: list[Label], en: list[Label], kept: list[Pair]) -> list[Pair]:
    """Labels left unpaired (uncommon ones too) whose clear best match by CC-CEDICT (:func:`_best`)
    is at the same place — typically, or in a fair share of the documents (:func:`near`). That
    label may be paired already: "clerk" and "court clerk" are both 书记员."""
    done = {p.zh.text for p in kept} | {p.en.text for p in kept}
    out: list[Pair] = []
    for mine, theirs, pair in ((en, zh, _en_zh), (zh, en, _zh_en)):
        for lab in mine:
            if lab.text in done:
                continue
            o = _best(lab, theirs, pair)
            if o is None:
                continue
            if abs(o.coord - lab.coord) <= 2 * WIDTH:
                why = "dictionary, same place"
            elif near(lab, o) >= 0.25:
                why = f"dictionary, same place in {near(lab, o):.0%} of the documents"
            else:
                continue
            z, e = (o, lab) if mine is en else (lab, o)
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
            dropped.append(f"pair {p.zh.text} ↔ {p.en.text} ({p.why}): one of them has a pair the dictionary vouches for")
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
        kept, gave_way = resolve(kept + rescue(zh_all, en_all, kept))
        paired = {p.zh.text for p in kept} | {p.en.text for p in kept}
        out(f"[{kind}] {corpus.docs('zh', kind)} zh and {corpus.docs('en', kind)} en documents; "
            f"{len(zh_all)} zh and {len(en_all)} en labels, {len(zh)} and {len(en)} of them in the common order; "
            f"{len(fixed)} anchors; {len(kept)} pairs kept")
        for line in dropped + gave_way:
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
            out(f"  dropped {len(names)} {lang} labels with a name in them: " + ", ".join(f"{t} ({n})" for t, n in names))
        result += sorted(kept, key=lambda p: (p.en.coord, p.zh.coord, p.en.text))
    return result


def review(pairs: list[Pair], out: Callable[[str], None] = print) -> list[tuple[str, str]]:
    """Learned pairs minus :data:`REMOVE`, plus :data:`OVERRIDES`; (zh, en) rows, no duplicates."""
    removed = {(zh, en) for zh, en, _ in REMOVE}
    rows: dict[tuple[str, str], None] = {}
    for p in pairs:
        if (p.zh.text, p.en.text) in removed:
            out(f"  removed by review: {p.zh.text} ↔ {p.en.text}")
            continue
        rows.setdefault((p.zh.text, p.en.text), None)
    for zh, en, _ in OVERRIDES:
        rows.setdefault((zh, en), None)
    return list(rows)


HEADER = """\
# DropQA glossary: field labels and section headings, zh<TAB>en, one pair a line.
# Learned from parallel corpora by `python -m dropqa.evals.glossary {args}`:
# labels and headings collected per language and document kind (judgement, record), with
# their typical order; English and Chinese aligned by that order and checked against
# CC-CEDICT; only confident pairs kept, then reviewed by hand (OVERRIDES/REMOVE in the script).
# General vocabulary only: no names of people, courts, hospitals or places.
# Read by dropqa.text.bilingual.translate_terms before CC-CEDICT. Regenerate, do not edit.
"""


def write(rows: list[tuple[str, str]], path: Path, args: str) -> None:
    lines = [HEADER.format(args=args)] + [f"{zh}\t{en}\n" for zh, en in rows]
    path.write_text("".join(lines), encoding="utf-8")


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
    rows = review(pairs)
    shown = " ".join(f"--en {p.name}" for p in a.en) + " " + " ".join(f"--zh {p.name}" for p in a.zh)
    write(rows, a.out, f"{shown} --min-docs {a.min_docs} --min-share {a.min_share}")
    print(f"{len(rows)} pairs ({len(pairs)} learned, {len(OVERRIDES)} added by hand) → {a.out}")
    for p in pairs:
        print(f"  {p.zh.text}\t{p.en.text}\t{p.support:.2f}\t{p.zh.coord:.2f}/{p.en.coord:.2f}\t{p.why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
