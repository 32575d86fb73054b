"""Do the gathered statements agree? Numbers (with their unit) and names, per source.

Pure functions, no database. A *claim* is one quantity a passage states about an
attribute the question asks for ("预算 … 450万元", "可用性为99.9%", a table cell
"预算（万元）: 500"). Two claims conflict when they name the same attribute in the
same unit but give different values and come from different documents or from
different versions of one document — that is what the answer must report ("v2
says 750, v1 said 600"; "A says 500, B says 450") instead of silently picking one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from dropqa.retrieval.hits import Hit
from dropqa.text.entities import about_other_years, years_in
from dropqa.text.segment import holds
from dropqa.text.sentences import split_sentences

# A number, optionally with thousands separators/decimals, then an optional unit.
_UNITS = r"(万元|亿元|千元|元|万台|万人|万|亿|%|％|人|项|台|个|天|小时|分钟|分|次|家|倍|位|GB|TB|ms|s)"
_QUANTITY = re.compile(rf"(?<![\d.,A-Za-z])(\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)\s*{_UNITS}?")
# A table cell rendered by the parsers: "header（unit）: value" or "header: value".
_CELL = re.compile(r"([^|:：]{1,30}?)\s*(?:[（(]([^）)]{1,6})[）)])?\s*[:：]\s*([^|]+)")
_YEAR = re.compile(r"^(19|20)\d\d$")
_WINDOW = 16  # characters before a number searched for the attribute it quantifies
_DATE_AFTER = re.compile(r"^\s*(年|月|日|号|-|/|年度)")


@dataclass(frozen=True)
class Claim:
    attribute: str  # the question term the claim is about (预算, 可用性, budget)
    value: float
    unit: str
    text: str  # the statement, for the answer and the trace
    node_id: str
    document: str
    version: int
    section: str = ""
    label: str = ""  # how the source names the attribute (a table header such as "普通员工")
    about: frozenset[str] = frozenset()  # the question's other words its statement (or section path) holds

    @property
    def source_key(self) -> tuple[str, int]:
        return (self.document, self.version)

    def shown(self) -> str:
        return f"{self.value:,g}{self.unit}"


class ConflictNote(BaseModel):
    """A disagreement as an answer reports it: the quantity, its unit and who says what."""

    attribute: str
    unit: str | None = None
    description: str


@dataclass
class Conflict:
    attribute: str
    unit: str
    claims: list[Claim] = field(default_factory=list)

    @property
    def label(self) -> str:
        return next((c.label for c in self.claims if c.label), self.attribute)

    @property
    def values(self) -> list[float]:
        return sorted({c.value for c in self.claims})

    @property
    def across_versions(self) -> bool:
        return len({c.document for c in self.claims}) == 1

    def describe(self) -> str:
        parts = [f"{c.document} v{c.version} > {c.section}: {c.shown()}" for c in self.claims]
        return f"{self.label} ({self.unit or 'number'}): " + "; ".join(parts)

    def note(self) -> ConflictNote:
        return ConflictNote(attribute=self.attribute, unit=self.unit, description=self.describe())


def _number(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _normal_unit(unit: str | None) -> str:
    unit = (unit or "").strip()
    return {"％": "%"}.get(unit, unit)


def _quantities(text: str) -> list[tuple[int, float, str]]:
    """(position, value, unit) for each number that is not a year or a date part."""
    out = []
    for m in _QUANTITY.finditer(text):
        raw, unit = m.group(1), _normal_unit(m.group(2))
        after = text[m.end(1):]
        if not unit and (_YEAR.match(raw) or _DATE_AFTER.match(after)):
            continue
        if _YEAR.match(raw) and after.lstrip().startswith(("年", "年度")):
            continue
        value = _number(raw)
        if value is not None:
            out.append((m.start(), value, unit))
    return out


def claims_in(hit: Hit, attributes: Sequence[str], subject_terms: Sequence[str] = (),
              naming: Collection[str] = (), distinctive: Collection[str] = (), question: str = "") -> list[Claim]:
    """Claims about ``attributes`` (question terms) stated in one passage.

    A sentence (or table row) counts when it names the attribute and, if given, at
    least one subject term (or its section path does) — so a budget of another
    project in the same table is not taken for this one's. ``naming``: the question's
    words that name its subject ("云栖", "平台"): they say whose claim it is, never what
    it is about ("云栖数据平台3.0" is not a 平台 of 3, "7×24 小时" not one of 7).
    ``distinctive``: the question's rarest words (:func:`distinctive_terms`); a prose claim counts only when
    its sentence or section path holds one besides its attribute and the words ``question`` writes with it
    (:func:`attribute_phrase`: "实际" of "的实际可用性" says which figure, not whose) — "项目总预算为450万元" of
    星图计划's charter shares only the common "项目" with "同城双活数据中心项目的预算", and is no claim about that
    project. A prose sentence naming years, none of them one ``question`` names, is about another period.
    """
    named = {a.lower() for a in naming}
    asked_years = set(years_in(question))
    attributes = [a.lower() for a in attributes if a]
    asked = [a for a in attributes if a not in named]
    subject = [s.lower() for s in subject_terms if s]
    crumb = hit.breadcrumb.lower()
    claims: list[Claim] = []
    units = hit.content.split("\n") if hit.node_type in ("table", "list") else split_sentences(hit.content)
    for unit_text in units:
        low = unit_text.lower()
        if subject and not any(s in low or s in crumb for s in subject):
            continue
        if " | " in unit_text or hit.node_type == "table":
            for cell in unit_text.split(" | "):
                m = _CELL.match(cell.strip())
                if not m:
                    continue
                header, cell_unit, value_text = m.group(1).strip().lower(), m.group(2), m.group(3)
                attr = max((a for a in asked if a in header), key=len, default=None)
                if attr is None:
                    continue
                # A row is about the question's subject when it names another question term
                # that the whole table's path does not (otherwise every row would qualify).
                row_terms = [a for a in attributes if a != attr and a not in crumb and len(a) > 1]
                if row_terms and not any(a in low for a in row_terms):
                    continue
                for _, value, unit in _quantities(value_text)[:1]:
                    claims.append(Claim(attr, value, _normal_unit(unit or cell_unit), unit_text.strip(),
                                        hit.node_id, hit.document_name, hit.version, hit.section,
                                        label=m.group(1).strip(), about=_about(attributes, attr, low, crumb)))
            continue
        # A sentence about another year than the question asks ("我们预测丰穗农业2022年营业收入约为36.10亿元" for
        # 2021's revenue) states another period's figure, which no figure of the asked year contradicts.
        if about_other_years(unit_text, asked_years):
            continue
        # Prose: each quantity belongs to the nearest attribute mentioned shortly before it
        # ("总预算为450万元" → 预算), so other numbers in the sentence are not taken for it.
        for pos, value, unit in _quantities(unit_text):
            window = low[max(0, pos - _WINDOW):pos]
            best = max(((window.rfind(a), a) for a in asked if a in window), default=None)
            if best is None:
                continue
            attr = best[1]
            others = [a for a in attributes if a != attr]
            if others and not any(a in low or a in crumb for a in others):
                continue
            phrase = attribute_phrase(question, attr)
            rare = [d for d in distinctive if d != attr and not holds(phrase, d)]
            if rare and not any(holds(low, d) or holds(crumb, d) for d in rare):
                continue
            claims.append(Claim(attr, value, unit, unit_text.strip(), hit.node_id, hit.document_name,
                                hit.version, hit.section, about=_about(attributes, attr, low, crumb)))
    return claims


def _about(attributes: Sequence[str], attribute: str, text: str, crumb: str) -> frozenset[str]:
    return frozenset(a for a in attributes if a != attribute and len(a) > 1 and (a in text or a in crumb))


def same_thing(a: Claim, b: Claim) -> bool:
    """Two claims on one attribute are figures of one thing unless each statement qualifies it by question words
    the other does not hold: "GPU算力采购280万元" (the project's GPU purchase) and "每年可节省服务器采购成本260万元"
    (servers a migration saves buying) are two purchases, not two accounts of one."""
    return not a.about or not b.about or bool(a.about & b.about)


_OF = re.compile(r"的|之|\bof\b|'s\b|[,，。？?！!；;：:、]", re.IGNORECASE)


def attribute_phrase(question: str, attribute: str) -> str:
    """The part of ``question`` that holds ``attribute``, cut at 的 / of / 's and punctuation: the words written
    with it qualify the figure asked ("的实际可用性", "the actual availability"); the rest names whose it is."""
    low = question.lower()
    return next((part for part in _OF.split(low) if holds(part, attribute)), "")


def distinctive_terms(weights: dict[str, float], share: float) -> list[str]:
    """The question's words weighing at least ``share`` of its heaviest (idf: the rarest in the collection),
    numbers left out: what a statement must name to be about what the question is about."""
    words = {t: w for t, w in weights.items() if not t.isdigit()}
    top = max(words.values(), default=0.0)
    return [t for t, w in words.items() if top > 0 and w >= share * top]


def find_conflicts(claims: Iterable[Claim]) -> list[Conflict]:
    """Groups of claims on one attribute and unit whose values differ across sources."""
    groups: dict[tuple[str, str], list[Claim]] = {}
    for c in claims:
        groups.setdefault((c.attribute, c.unit), []).append(c)
    conflicts = []
    for (attr, unit), group in groups.items():
        by_source: dict[tuple[str, int], Claim] = {}
        for c in group:
            by_source.setdefault(c.source_key, c)
        distinct = list(by_source.values())
        # two sources giving different values for one thing (a pair implies several sources and values)
        if any(x.value != y.value and same_thing(x, y) for i, x in enumerate(distinct) for y in distinct[i + 1:]):
            conflicts.append(Conflict(attr, unit, distinct))
    return conflicts


def subject_of(hit: Hit, named: Collection[str], subject: Collection[str]) -> str:
    """Whose claims a passage makes, for :func:`subject_conflicts`: its document's — or, when the question
    names one subject and the passage of another document names it too (every one of ``subject``'s
    words: a report's table row on 星图计划 beside the project's own charter), that subject's document."""
    if named and hit.document_id not in named and len(named) == 1 and subject:
        text = f"{hit.breadcrumb}\n{hit.content}".lower()
        if all(holds(text, t) for t in subject):
            return next(iter(named))
    return hit.document_id


def subject_conflicts(claims: Iterable[tuple[str, Claim]], named: Collection[str]) -> list[Conflict]:
    """Conflicts among ``(subject, claim)`` pairs (:func:`subject_of`) that speak of one subject: when the
    question names its subjects (``named``: their documents), each one's claims among themselves (its
    versions, the passages elsewhere that name it) — never one company's figure against another's: two
    companies' growth rates differ, they do not conflict. Unnamed, every claim is compared
    (:func:`find_conflicts`)."""
    pairs = list(claims)
    if not named:
        return find_conflicts(c for _, c in pairs)
    return [x for doc in named for x in find_conflicts(c for d, c in pairs if d == doc)]
