"""The parts of a question that each need their own evidence (offline decomposition).

"According to the judgments of A Court and B Court, whose sentence is longer?", "Compare the
revenue of Acme and Beta", "what happened to X in 2019 and in 2021": one search ranks the
part it matches best and starves the others, so each part is searched on its own and the
answer cites a passage for each.

Two kinds of part are recognised without a chat model:

- **documents the question names** — a document has several names: its file name, title, first
  heading and the subjects found in its text (the court, hospital, patient or company it is about:
  ``retrieval.names``); it is named when the question holds most of the idf mass of one of them,
  idf taken over all documents' names, so "Court" or "Hospital", shared by every name, counts for
  little and "Riverside" or "Glenwood" for much; two or more named documents are two or more parts,
  each searched inside its document;
- **alternatives joined by and / or / vs / 和 / 与 / 还是**: years ("in 2019 and 2021") or
  short names ("Acme vs Beta"); each part is the question with the other alternatives
  removed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from dropqa.text.asked import capitalised_words, name_phrases
from dropqa.text.entities import YEAR, YEAR_DIGITS, name_body, short_names, years_in
from dropqa.text.segment import has_han, name_start, query_terms
from dropqa.text.subjects import is_document_kind, is_generic_name, is_placeholder, withheld_names

_JOIN = r"\s*(?:,|，|、|and|or|vs\.?|versus|和|与|及|跟|同|还是|或)\s*"
_YEARS = re.compile(rf"(?<!\d)({YEAR_DIGITS})(?:\s*年)?(?:{_JOIN}(?:{YEAR_DIGITS})(?:\s*年)?)+", re.I)
_NAMES = re.compile(
    r"\b([A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})\s+(?:vs\.?|versus|and|or)\s+([A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})\b"
)
# an ordering number opening a file name ("112_judgement.md", "01-intro.md") — not a year, which is part of the name
# ("2022-winter-olympics.md", "2024年度绩效考核.xlsx": the 2018 games' page is another)
_LEADING_NUMBER = re.compile(r"^(?!(?:19|20)\d\d(?!\d))\d+[_\-\s.]*")
_QUESTION_WORD = re.compile(r"^(?:Compare|Comparing|Between|What|Which|Who|Whose|How|Did|Does|Do|Is|Are|Was|Were|When|"
                            r"Where|Why|Both|Either|According to|In|For)\s+")


@dataclass(frozen=True)
class Part:
    label: str  # what this part is about: a document's name, a year, an entity
    query: str  # the search text for this part
    document_id: str | None = None  # search only this document

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _names(row: dict[str, Any]) -> tuple[frozenset[str], ...]:
    """Each name of a document (file name, title, first heading, subjects) as its set of terms. A document
    whose first heading names it ("Riverton, Hamilton, Court", "Xinghe Technology Information Security
    Policy") is named by that; the names found in its text count only for a document without one (a plain
    .txt report: "嘉沐冷链物流股份有限公司（以下简称“公司”）…") — a policy that mentions the company that
    wrote it is not the document for every question about that company."""
    return tuple(terms for _, terms in _named_texts(row))


def _named_texts(row: dict[str, Any]) -> tuple[tuple[str, frozenset[str]], ...]:
    """:func:`_names` with the text each name is written as (a file stem keeps its "_" between names)."""
    filename = str(row.get("filename") or "")
    stem = _LEADING_NUMBER.sub("", PurePath(filename).stem)
    heading = str(row.get("heading") or "")
    found = () if heading and not is_generic_name(heading) else tuple(row.get("subjects") or ())
    # a document without a title of its own is titled by its file name, whose stem is read already ("年报_3.txt"
    # would name it by "txt")
    title = str(row.get("title") or "")
    title = stem if title == filename else title
    out: dict[frozenset[str], str] = {}
    for text in (stem, title, heading, *found):
        terms = _terms_of(text.replace("_", " "))
        if terms:
            out.setdefault(terms, text)
        for short in short_names(text):  # "恒屿" names 恒屿冷链物流股份有限公司's report
            out.setdefault(frozenset({short}), short)
        if body := name_body(text):  # and "通衢物流" names 湖北通衢物流股份有限公司's
            out.setdefault(frozenset({body}), body)
    return tuple((text, terms) for terms, text in out.items())


# A company's full name as a question writes it: the short name opening another company's full name ("恒钧电子股份
# 有限公司" is not 恒钧精密制造股份有限公司, whose short name is 恒钧) names that other company, not this one
_FULL_NAME_AT = re.compile(r"[\u4e00-\u9fff]{2,14}?(?:股份有限公司|有限责任公司|有限公司|集团)")


def _writes_short_name(question: str, short: str, full: Collection[str]) -> bool:
    """``question`` writes ``short`` as a name on its own, or opening one of the company's ``full`` names."""
    for m in re.finditer(re.escape(short), question):
        written = _FULL_NAME_AT.match(question, m.start())
        if written is None or written.group(0) in full:
            return True
    return False


def _with_short_names(question: str, asked: set[str], names: Sequence[tuple[tuple[str, frozenset[str]], ...]],
                      ) -> set[str]:
    """``asked`` and the short company names of ``names`` (each document's ``_named_texts``) that the question
    writes: jieba does not know "嘉沐", and cuts "恒屿和嘉沐两家公司" so that no term is 嘉沐."""
    out = set(asked)
    for doc in names:
        full = {text for text, _ in doc}
        bodies = {body for text in full if (body := name_body(text))}  # "通衢物流"; not a word the text found alone
        for text, terms in doc:
            if len(terms) == 1 and text in terms and (len(text) == 2 or text in bodies) and not text.isascii() \
                    and text not in out and _writes_short_name(question, text, full):
                out.add(text)
    return out


def _found_names(row: dict[str, Any]) -> frozenset[frozenset[str]]:
    """The names found in the document's text (its subjects) that are not its file name, title or heading."""
    own = set(_names({k: v for k, v in row.items() if k != "subjects"}))
    return frozenset(n for n in (_terms_of(t) for t in row.get("subjects") or ()) if n and n not in own)


# A company's legal form is not how anyone names it: "嘉沐冷链" names 嘉沐冷链物流股份有限公司, "Xinghe" names
# Xinghe Technology Co., Ltd.; left in, these words would outweigh the name itself in a small collection.
# (Chinese only: "Co., Ltd." is a small part of an English name, and "Xinghe Technology" alone should not
# name the one English document that mentions the company that wrote them all.)
_LEGAL_FORM = frozenset({"公司", "有限", "有限公司", "股份", "股份有限公司", "责任", "有限责任", "集团"})


_QUALIFIER = re.compile(r"\s*[(（][^()（）]*[)）]")  # a title's bracketed qualifier: "(第一届)", "(Ivor Cutler album)"


def _only_qualifier(text: str, hit: Collection[str]) -> bool:
    """Are the words a question uses of the name ``text`` all in its bracketed qualifier — none of the name
    itself?"""
    main = _QUALIFIER.sub(" ", text)
    return main != text and bool(_terms_of(main)) and not set(hit) & _terms_of(main)


# a period of the year (一季度, 第一季度, 上半年, 年度): when a document is of, not what it is about
_PERIOD = re.compile(r"第?[一二三四1-4]季?度?|第?[一二三四1-4]?季度|[上下]?半年度?|年度|全年|月度|月份")


def _only_period(hit: Collection[str]) -> bool:
    """Are the words a question uses of a name all periods ("第一季度" of 技术部第一季度团建 and of
    "2025年一季度经营分析会")? A time names no document: every report of that quarter is of it."""
    return all(_PERIOD.fullmatch(t) for t in hit)


@lru_cache(maxsize=65536)
def _terms_of(name: str) -> frozenset[str]:
    terms = [t for t in query_terms(name) if not t.isdigit() and not is_placeholder(t)]
    return frozenset(t for t in terms if t not in _LEGAL_FORM) or frozenset(terms)


def name_terms(question: str, row: dict[str, Any], terms: Sequence[str] | None = None) -> set[str]:
    """The question's terms (``terms``, else its segmented words) that name the document of ``row`` (any of
    its names): its subject words."""
    texts = _named_texts(row)
    asked = _with_short_names(question, set(terms if terms is not None else query_terms(question)), [texts])
    return {t for _, name in texts for t in name if t in asked}


def subject_count(naming: Mapping[str, Collection[str]]) -> int:
    """How many subjects the named documents are (``naming``: document → the question's words naming it): one
    per distinct set of words, less the words naming a kind of document — "184_record.md" is named by
    "record" too, and is no other subject than "179_Parker General Hospital_Y. Evans.md"."""
    return len({frozenset(t for t in words if not is_document_kind(t)) for words in naming.values()})


def _proper_words(question: str) -> set[str] | None:
    """The question's Latin words written as a name is (capitalised or in capitals), lower-cased — a name
    found in a document's text is matched by these only ("the judgment of Riverton, Hamilton, Court …
    counterfeiting currency" names the Riverton judgement, not one whose text names Counterfeiting
    Currency; a title such as "Euro" is matched by "the euro" still) — or
    None when the question capitalises nothing past its first word (typed in lower case: no such clue)."""
    if not capitalised_words(question):
        return None
    return capitalised_words(question, with_first=True)


_NAME_PARTS = re.compile(r"[:：_/|()（）]|\s[-–—]\s")  # between the names one name holds ("Hospital: E. Parker")
_BETWEEN_NAME_WORDS = re.compile(r"[\s,，、.·'’-]*")


def _word_at(low: str, term: str) -> tuple[int, int] | None:
    if not term.isascii():
        at = low.find(term)
        return (at, at + len(term)) if at >= 0 else None
    m = re.search(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])", low)
    return m.span() if m else None


def _coherent(question: str, text: str, hit: Collection[str]) -> bool:
    """Do the question's name words that stand together ("Parker General Hospital") stand together in one
    part of the name written ``text`` too? "Cameron General Hospital: E. Parker" holds parker, general and
    hospital, but in two names: the record of a patient called Parker, not Parker General Hospital's."""
    low = question.lower()
    spans = sorted((at, t) for t in hit if (at := _word_at(low, t)) is not None)
    parts = [_terms_of(p.replace("_", " ")) for p in _NAME_PARTS.split(text)]
    run: set[str] = set()
    for i, (span, term) in enumerate(spans):
        if i and _BETWEEN_NAME_WORDS.fullmatch(low[spans[i - 1][0][1]:span[0]]) is None:
            if len(run) > 1 and not any(run <= p for p in parts):
                return False
            run = set()
        run.add(term)
    return len(run) < 2 or any(run <= p for p in parts)


def named_documents(question: str, titles: Sequence[dict[str, Any]], min_share: float,
                    terms: Sequence[str] | None = None) -> list[tuple[dict[str, Any], float]]:
    """Documents the question names — it holds at least ``min_share`` (``Settings.answer.part_name_share``)
    of the idf mass of one of their names, with a word few documents' names share — best first, with that
    share. A document whose named words are all among another named document's is left out (a question
    naming a hospital *and* its patient names that record, not every record of the hospital). ``terms``: the
    question's terms in the collection's words (``retrieval.search.question_terms``), else its segmented words."""
    asked = set(terms if terms is not None else query_terms(question))
    if not asked or not titles:
        return []
    proper = _proper_words(question)
    phrases = [_terms_of(p) for p in name_phrases(question)]
    names = [_named_texts(r) for r in titles]
    asked = _with_short_names(question, asked, names)
    vocab = [frozenset().union(*(terms for _, terms in doc)) for doc in names]
    holders: dict[str, set[int]] = {}
    for i, words in enumerate(vocab):
        for t in words:
            holders.setdefault(t, set()).add(i)
    n = len(titles)
    idf = {t: math.log(1 + n / len(docs)) for t, docs in holders.items()}
    few = max(1, n // 20)
    scored = []
    for i, (row, doc) in enumerate(zip(titles, names, strict=True)):
        best_share = 0.0
        distinctive = coherent = False
        found = _found_names(row) if proper is not None else frozenset()
        matched: set[str] = set()
        full = {text for text, _ in doc}
        for text, name in doc:
            if all(is_document_kind(t) for t in name):
                continue  # "年报_3.txt", "112_judgement.md": a kind of document, which names no one document
            if name == {text} and not text.isascii() and not _writes_short_name(question, text, full):
                continue  # "恒钧" in "恒钧电子股份有限公司": another company's full name
            # a name found in the text ("Counterfeiting Currency") is meant only when written as a name is
            hit = [t for t in name if t in asked and (name not in found or not t.isascii() or t in proper)]
            if hit and _only_qualifier(text, hit):
                continue  # "第一届" of 《绝对SuperStar (第一届)》: the bracket tells it from its namesakes, names none
            if hit and _only_period(hit):
                continue  # "第一季度" of 技术部第一季度团建: the quarter of "2025年一季度经营分析会", not its subject
            if hit and _names_another(hit, name, proper, phrases):
                continue  # "Real world" of "a UNESCO World Heritage Site"
            total = math.fsum(idf[t] for t in name)  # fsum: the same share whatever the set's order
            if not total or not hit:
                continue
            share = math.fsum(idf[t] for t in hit) / total
            # the words the question uses of this name, together, name few documents ("Trenton, Vandalia")
            named_by = set.intersection(*(holders[t] for t in hit))
            if share >= min_share and (len(named_by) <= few or _opens_alone(titles, named_by, i, hit, few)):
                best_share, distinctive = max(best_share, share), True
                matched.update(hit)
                coherent = coherent or _coherent(question, text, hit)
        if distinctive:  # the words of the names that name it (not every name's words the question uses)
            scored.append((row, best_share, frozenset(matched), coherent, _writes_whole(question, full)))
    if proper is not None:
        # words the question writes in lower case ("what time", "body of water", "place of birth") name no
        # document ("Time", "Body of water", "Birth of the Dragon") beside one it names as a name is written
        as_names = [s for s in scored if any(t in proper or not t.isascii() for t in s[2])]
        scored = as_names or scored
    scored.sort(key=lambda x: (-x[1], -math.fsum(idf[t] for t in x[2]), str(x[0].get("filename", ""))))
    if scored:  # names as well matched as the best one (not a near-namesake that shares a word)
        best = scored[0][1]
        scored = [s for s in scored if s[1] >= 0.75 * best]
    # a near-namesake whose name holds the words the question writes together, but in two of its names
    together = frozenset().union(*(words for _, _, words, ok, _ in scored if ok))
    scored = [s for s in scored if s[3] or not s[2] <= together]
    # a Chinese name the question writes whole ("雨城市人民医院") over one that only shares its words as jieba cuts
    # them (钢城市人民医院: 钢 / 城市 / 人民 / 医院, the lone 钢 and 雨 dropped from the terms)
    whole = [words for _, _, words, _, written in scored if written]
    scored = [s for s in scored if s[4] or not any(s[2] <= words for words in whole)]
    # "丝路市人民医院的住院病历，…苏某某…": the hospital's two records are named by its words alike (a withheld name
    # is no search term); the one whose heading or subjects name other withheld people (俞某某) and none of the
    # question's is another patient's
    people = withheld_names(question)
    if people:
        kept = [s for s in scored if not (_people(s[0]) and not _people(s[0]) & people)]
        scored = kept or scored
    # "根据青岚证券研究所的行业研究简报，预测鲜邻零售…": the source the question opens with is the document it asks;
    # a document named only after it (鲜邻零售's own report) is what the source writes about, not a second source
    source = source_span(question).lower()
    if source:
        inside = [s for s in scored if any(_word_at(source, t) for t in s[2])]
        if inside:
            scored = inside
    return [(row, share) for row, share, words, _, _ in scored
            if not any(words < other for _, _, other, _, _ in scored)]


def _names_another(hit: Collection[str], name: frozenset[str], proper: set[str] | None,
                   phrases: Sequence[frozenset[str]]) -> bool:
    """Some words of a Latin name (not all) that the question writes as part of something else: inside a name of
    its own with words this one lacks ("World" of "UNESCO World Heritage Site" is no naming of "Real world";
    "Riverside Court" is one of "Riverside, Glenwood, Court"), or one word alone, in lower case, in a question that
    writes its names capitalised ("the first modern greenhouses … Northwest Africa" names no "Modern history";
    "the hosting agreement with Northbeam" still names "Hosting Services Agreement"). Nor all of it, when its
    capitalised words are written inside another name and the rest in lower case: "Humboldt Peak, … what mountain
    range?" names "Humboldt Peak (Colorado)", not "Humboldt Range"."""
    if not all(t.isascii() for t in name):
        return False
    if set(hit) >= name:  # not "English Lake District" of "Lake District": that name writes all of it
        inside = {t for t in hit if any(t in phrase and not phrase <= name for phrase in phrases)}
        outside = set(hit) - inside
        return bool(inside) and bool(outside) and bool(proper) and not outside & proper
    if proper and len(hit) == 1 and not set(hit) & proper:
        return True
    return any(set(hit) & phrase and not phrase <= name for phrase in phrases)


def _opens_alone(titles: Sequence[dict[str, Any]], named_by: set[int], i: int, hit: Collection[str],
                 few: int) -> bool:
    """A name several documents' texts give names the one whose first words write it (few do): "Quillstone Data
    Systems Inc. ("Quillstone Data" or "the Company") was founded…" opens its report; an analyst's brief that
    mentions it opens with its own title."""
    opens = {j for j in named_by if set(hit) <= _terms_of(str(titles[j].get("opening") or ""))}
    return i in opens and len(opens) <= few


def _people(row: Mapping[str, Any]) -> set[str]:
    """The withheld names (俞某某) a document's heading, file name and subjects write."""
    return withheld_names(" ".join([str(row.get("heading") or ""), str(row.get("filename") or ""),
                                    *(str(x) for x in row.get("subjects") or ())]))


# the source a question opens with: "根据…，", or "According to …," up to the comma before what is asked (names
# such as "Trenton, Vandalia, Court" hold commas of their own)
_SOURCE = re.compile(r"^\s*(?:根据|按照|依据|据)(?P<zh>[^，,。？?]{2,80}?)[，,]|"
                     r"^\s*(?i:according to)(?P<en>[^?]{2,200}?),\s*"
                     r"(?=(?i:who|whom|whose|what|which|when|where|why|how|did|does|do|is|are|was|were|in|on|at|for|"
                     r"by|both)\b)")


def source_span(question: str) -> str:
    """The source a question opens with, or "": "根据青岚证券研究所的行业研究简报，…" → 青岚证券研究所的行业研究简报;
    "According to the judgment of Trenton, Vandalia, Court, who …" → the judgment of Trenton, Vandalia, Court."""
    m = _SOURCE.match(question)
    return (m.group("zh") or m.group("en") or "") if m else ""


def _writes_whole(question: str, names: Collection[str]) -> bool:
    """``question`` writes one of the Chinese ``names`` of a document (or a part of one: "雨城市人民医院" of
    "雨城市人民医院：康某某") whole, as the document writes it — not only the words it segments into."""
    for name in names:
        for part in _NAME_PARTS.split(name):
            part = part.strip()
            if len(part) >= 3 and has_han(part) and part in question and not is_document_kind(part):
                return True
    return False


_PLACE_SUFFIX = frozenset("市省县区镇乡村州")


def subject_spans(question: str, words: Collection[str], *, whole: bool = False) -> list[str]:
    """The stretches of ``question`` that its subject words (``words``, lower-cased, as ``name_terms``
    returns them) are written in, each with the letters and digits that run on from it ("Project Falcon-03",
    "云栖数据平台3.0"): the subject as the question writes it, to find it in a passage of another document.
    ``whole``: words apart only by the 市 or 区 of a place are one stretch ("流水市人民医院", where jieba keeps
    市 out of the terms) — the whole name, which a passage must write to be about the subject (a record at
    "流水街" of 夕照市人民医院 is not); else "流水", "人民医院", whose frames find the subject's siblings
    (``sibling_documents``)."""
    low = question.lower()
    found = sorted((m.start(), m.end()) for w in words if w for m in re.finditer(re.escape(w), low))
    spans: list[tuple[int, int]] = []
    for start, end in found:
        gap = low[spans[-1][1]:start] if spans else ""
        if spans and start <= spans[-1][1] + 1 and (not gap.strip(" -") or (whole and gap in _PLACE_SUFFIX)):
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))  # adjacent or overlapping words: one name
        else:
            spans.append((start, end))
    if whole:  # the lone character jieba leaves out of the terms opens the name: 雨城市人民医院, not 城市人民医院
        spans = [(name_start(low, start) if has_han(low[start]) else start, end) for start, end in spans]
    out = []
    for start, end in spans:
        latin_end = low[end - 1].isascii() and low[end - 1].isalnum()
        if (low[start].isascii() and start and low[start - 1].isascii() and low[start - 1].isalnum()) or \
                (latin_end and low[end:end + 1].isascii() and low[end:end + 1].isalnum()):
            continue  # "falcon" inside "falcons": another word, not this name
        tail = re.match(r"(?:[-.][a-z0-9]+)+" if latin_end else r"[a-z0-9]+(?:[-.][a-z0-9]+)*", low[end:])
        if tail:
            end += len(tail.group(0))
        out.append(re.sub(r"\s+", " ", low[start:end]).strip())
    return [s for s in dict.fromkeys(out) if len(s) >= 2]


def mentions(text: str, spans: Sequence[str], question: str = "") -> bool:
    """``text`` writes every one of ``spans`` (the question's subject), spacing aside: a Latin one as a word
    (not "brand" inside "branding"), and as ``question`` writes it when it writes it as a name, capitalised:
    "the author of Brand" is about the play, not a station's "on-air brand name"; otherwise ignoring case."""
    if not spans:
        return False
    flat = re.sub(r"\s+", "", text.lower())
    for span in spans:
        if not span.isascii():
            if re.sub(r"\s+", "", span) not in flat:
                return False
            continue
        at = question.lower().find(span) if question else -1
        as_written = question[at:at + len(span)] if at >= 0 else span
        named = any(c.isupper() for c in as_written)
        words = r"\s*".join(re.escape(w) for w in (as_written if named else span).split())
        if re.search(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", text if named else text.lower()) is None:
            return False
    return True


_NAME_FRAME = re.compile(r"[\W_]+")
_YEAR_END = re.compile(r"(?:19|20)\d\d$")


_EXTENSION = re.compile(r"\.[a-z][a-z0-9]{1,4}$")  # ".md", ".docx" — not the ".0" of "Nova 3.0"


def _flat_name(name: str) -> str:
    """A name without case, spaces, punctuation or file extension: "Acme Corp., Ltd." → "acmecorpltd",
    "peter-bonetti.md" → "peterbonetti", "Nova 3.0" → "nova30". A file name's extension is no part of its
    subject's name: kept, every other ``.md`` file would look like a sibling ("…md")."""
    return _NAME_FRAME.sub("", _EXTENSION.sub("", name.lower()))


# An English company's legal form, which the question writes as part of its name ("Velmont Harvest Foods Corp."):
# any other name ending in one is another company's
_EN_LEGAL_FORMS = ("corp", "corporation", "inc", "incorporated", "ltd", "limited", "llc", "plc", "co")
_EN_LEGAL_FORM = re.compile(rf"(?i)\b(?:{'|'.join(_EN_LEGAL_FORMS)})\.?$")


def writes_a_name(question: str, names: Collection[str]) -> bool:
    """``question`` writes one of ``names`` out whole (case, spaces and punctuation aside): a name of at least
    two words, or of four Chinese characters ("Quillstone Data Systems Inc", "嘉沐冷链")."""
    flat = _flat_name(question)
    return any(len(f) >= 4 and f in flat for n in names if len(n.split()) >= 2 or not n.isascii()
               for f in [_flat_name(n)])


def sibling_documents(spans: Sequence[str], own: Collection[str], others: Mapping[str, Collection[str]]) -> set[str]:
    """Documents of the same kind as the subject's, about another subject: a name of theirs is one of the
    subject's names (``own``) with the question's subject (``spans``, as ``subject_spans`` finds it) swapped for
    another — "恒屿冷链物流股份有限公司" beside "嘉沐冷链物流股份有限公司" for a question about 嘉沐冷链,
    "Globex Corporation Annual Report" beside "Acme Corporation Annual Report" for one about Acme. What they
    write is what the question asks of *another* subject, never the missing part of this one's answer.
    ``others``: document id → its names (title, file name, subjects). A year the question writes after the
    subject ("嘉沐冷链2024年") is not part of its name. A subject the question names with its English legal form
    ("Velmont Harvest Foods Corp.") has every other company for a sibling ("Oxley Machinery Group Corp")."""
    flat_spans = {_flat_name(s) for s in spans}
    flat_spans = (flat_spans | {_YEAR_END.sub("", s) for s in flat_spans}) - {""}
    frames: set[tuple[str, str]] = set()
    if any(_EN_LEGAL_FORM.search(s) for s in spans):  # "Velmont Harvest Foods Corp.": other companies' names
        frames |= {("tail", form) for form in _EN_LEGAL_FORMS}
    for span in flat_spans:
        for name in map(_flat_name, own):
            at = name.find(span)
            if at < 0:
                continue
            head, tail = name[:at], name[at + len(span):]
            frames |= {("tail", tail)} if len(tail) >= 2 else set()
            frames |= {("head", head)} if len(head) >= 2 else set()
    flat_own = {_flat_name(n) for n in own}
    out = set()
    for doc, names in others.items():
        for name in map(_flat_name, names):
            if name in flat_own or any(s in name for s in flat_spans):
                continue  # the subject's own name, or a document that writes the subject out
            if any(len(name) > len(f) and (name.endswith(f) if side == "tail" else name.startswith(f))
                   for side, f in frames):
                out.add(doc)
                break
    return out


def _without(question: str, keep: str, alternatives: Sequence[str]) -> str:
    out = question
    for other in alternatives:
        if other != keep:
            alt = re.escape(other) + (r"(?:\s*年)?" if YEAR.fullmatch(other) else "")
            out = re.sub(rf"{_JOIN}{alt}|{alt}{_JOIN}", " ", out, count=1, flags=re.I)
    return re.sub(r"\s+([?？.,，])", r"\1", re.sub(r"\s+", " ", out)).strip()


def alternatives(question: str) -> list[str]:
    """Years or names the question joins as alternatives, in order ([] when there are none)."""
    m = _YEARS.search(question)
    if m and not re.search(r"(?i)(between|from|从|自)\s*$", question[: m.start()]):  # a range, not two parts
        years = list(dict.fromkeys(years_in(m.group(0))))
        if len(years) >= 2:
            return years
    m = _NAMES.search(question)
    if m:
        first = _QUESTION_WORD.sub("", m.group(1))
        if first and first.lower() != m.group(2).lower():
            return [first, m.group(2)]
    return []


def decompose(question: str, titles: Sequence[dict[str, Any]], min_share: float, max_parts: int,
              terms: Sequence[str] | None = None) -> list[Part]:
    """The parts of ``question`` (at most ``max_parts``), or [] when it is one question."""
    named = named_documents(question, titles, min_share, terms)
    if 2 <= len(named) <= max_parts:
        # in the order the question names them ("金丝市雨燕区人民法院和苹果市珠港区人民法院": 87's, then 80's): each
        # part's passages lead the pool in turn, and the answer tells the documents in that order
        low = question.lower()
        first = [min((k for t in name_terms(question, row, terms) if (k := low.find(t.lower())) >= 0),
                     default=len(low)) for row, _ in named]
        named = [named[i] for i in sorted(range(len(named)), key=lambda i: (first[i], i))]
        return [Part(label=PurePath(str(row["filename"])).stem, query=question, document_id=str(row["document_id"]))
                for row, _ in named]
    alts = alternatives(question)
    if 2 <= len(alts) <= max_parts:
        doc = str(named[0][0]["document_id"]) if len(named) == 1 else None
        return [Part(label=a, query=_without(question, a, alts), document_id=doc) for a in alts]
    return []
