"""Offline answers by kind of question, made of the documents' own words, each line cited.

Each composer returns ``Composed(lines, citations)`` — ``citations`` index into the
evidence pool — or ``None`` when the evidence does not answer the question.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from dropqa.answering.extractive import (
    Similarity,
    continuation,
    next_passage,
    pick_sentences,
    sentence_units,
    table_cell,
)
from dropqa.answering.intent import Intent
from dropqa.answering.outline import Outline
from dropqa.answering.sections import SectionPick, opens_part
from dropqa.config import AnswerSettings
from dropqa.retrieval.hits import Hit, within_section
from dropqa.text.headings import is_chapter_title
from dropqa.text.messages import render
from dropqa.text.segment import query_terms
from dropqa.text.sentences import clean_markup


@dataclass
class Composed:
    lines: list[str]
    citations: list[int] = field(default_factory=list)
    relevance: dict[int, float] = field(default_factory=dict)  # pool index → relevance to set (outline nodes)
    quoted: list[tuple[int, str]] = field(default_factory=list)  # (pool index, sentence) of each quoted line

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _index(pool: list[Hit], node_id: str) -> int | None:
    return next((i for i, h in enumerate(pool) if h.node_id == node_id), None)


def structure(lang: str, intent: Intent, outline: Outline | None, pool: list[Hit], max_items: int,
              ) -> Composed | None:
    tree = list(outline.tree) if outline else []
    if not outline or not tree:
        return None
    document = tree[0].title if tree[0].depth == 0 else outline.document_id
    body = [t for t in tree if t.depth > 0]
    if not body:
        return None
    lead: str
    if intent.chapter:
        start = next((i for i, t in enumerate(body) if is_chapter_title(t.title or "", intent.chapter)), None)
        if start is None:
            return None
        root = body[start]
        chosen = [root]
        for t in body[start + 1:]:
            if t.depth <= root.depth:
                break
            if t.depth <= root.depth + 2:
                chosen.append(t)
        lead = render(lang, "structure_lead", document=document, section=root.title)
        items, base = chosen[1:] or chosen, root.depth + 1
    else:
        top = min(t.depth for t in body)
        level = [t for t in body if t.depth == top]
        if len(level) == 1:  # a single title heading over everything: list what is under it
            top += 1
        items = [t for t in body if top <= t.depth <= top + 1]
        lead = render(lang, "structure_doc_lead", document=document)
        base = top
    lines, cites, relevance = [lead], [], {}
    for t in items[:max_items]:
        i = _index(pool, t.node_id)
        if i is None:
            continue
        cites.append(i)
        relevance[i] = 0.9
        indent = "  " * max(0, t.depth - base)
        lines.append(render(lang, "structure_item", indent=indent, title=t.title, n=i + 1))
    return Composed(lines, cites, relevance) if cites else None


def page(lang: str, intent: Intent, question: str, outline: Outline | None, pool: list[Hit]) -> Composed | None:
    tree = [t for t in outline.tree if t.depth > 0] if outline else []
    wanted = [q.lower() for q in intent.quoted] or query_terms(question)
    best, best_score = None, 0.0
    for t in tree:
        title = (t.title or "").lower()
        score = sum(len(w) for w in wanted if w in title) / max(1, len(title))
        if score > best_score:
            best, best_score = t, score
    if best is None:
        return None
    i = _index(pool, best.node_id)
    if i is None or pool[i].page is None:
        return None
    hit = pool[i]
    document = hit.document_name
    note = render(lang, "page_estimated") if hit.page_estimated else ""
    text = render(lang, "page_answer", title=best.title, page=hit.page, document=document, estimated=note,
                  n=i + 1)
    return Composed([text], [i], {i: 0.95})


def versions(lang: str, intent: Intent, question: str, terms: list[str], weights: dict[str, float],
             pool: list[Hit], cfg: AnswerSettings) -> Composed | None:
    lines, cites = [render(lang, "versions_lead")], []
    best_doc = pool[0].document_id if pool else None
    for v in intent.versions:
        idx = [i for i, h in enumerate(pool) if h.version == v and h.document_id == best_doc]
        picked = pick_sentences(question, terms, weights, [pool[i] for i in idx], 1, cfg=cfg)
        for p in picked:
            i = idx[p.hit_index]
            cites.append(i)
            lines.append(render(lang, "version_item", version=v, text=clean_markup(p.text), n=i + 1))
    return Composed(lines, cites) if len(cites) >= 2 else None


# The words of a chain question's first hop that ask for the bridge (星图计划的项目负责人), not its subject: dropped
# from what finds the first hop's line; with jieba's piece 责人, none of them names the subject a second-hop line
# must not restate.
_HOP1_ROLE = frozenset({"负责", "负责人", "项目"})
_ROLE_TERMS = _HOP1_ROLE | {"责人"}


def _where(hit: Hit) -> str:
    return hit.section.split(" > ")[-1] if hit.section else hit.document_name


def multi_hop(lang: str, intent: Intent, question: str, bridge: list[str], pool: list[Hit],
              max_items: int) -> Composed | None:
    if not bridge:
        return None
    entity = bridge[0]
    with_entity = [i for i, h in enumerate(pool) if entity in h.content or entity in h.breadcrumb]
    if not with_entity:
        return None
    hop1_terms = [t for t in query_terms(intent.first_hop) if t not in _HOP1_ROLE]
    lines, cites = [render(lang, "multi_lead")], []
    used: set[str] = set()
    quoted: list[tuple[int, str]] = []

    def best_unit(i: int, wanted: list[str]) -> str | None:
        h = pool[i]
        units = [u for u in sentence_units(h) if entity in u or entity in h.breadcrumb]
        scored = sorted(units, key=lambda u: -sum(1 for t in wanted if t in u.lower() or t in h.breadcrumb.lower()))
        return scored[0] if scored else None

    # Hop 1: where the documents name the bridge entity for the subject of the question.
    hop1 = sorted(with_entity, key=lambda i: -sum(1 for t in hop1_terms
                                                    if t in pool[i].content.lower() or t in pool[i].breadcrumb.lower()))
    for i in hop1[:1]:
        unit = best_unit(i, hop1_terms)
        if unit:
            used.add(unit)
            cites.append(i)
            quoted.append((i, unit))
            lines.append(render(lang, "multi_item", where=_where(pool[i]), text=clean_markup(unit), n=i + 1))
    # Hop 2: what the documents say about the entity that the rest of the question asks.
    asked = [t for t in query_terms(intent.rest or question) if t not in hop1_terms]
    rest_terms = [*asked, entity.lower()]
    named = [t for t in hop1_terms if t not in _ROLE_TERMS]  # the first hop's subject (星图计划, 容器化改造)

    def asked_in(unit: str) -> int:
        return sum(1 for t in asked if t in unit.lower())

    def rest_in(i: int) -> int:
        return sum(1 for t in rest_terms if t in pool[i].content.lower() or t in pool[i].breadcrumb.lower())

    hop2 = [(i, unit) for i in sorted(with_entity, key=lambda i: -rest_in(i))
            if (unit := best_unit(i, rest_terms)) and unit not in used]
    # a line naming the first hop's subject again restates the first hop ("项目名称: 星图计划 | 负责人: 林晓峰" for
    # "星图计划的项目负责人还负责过哪些项目"); of the others, the ones holding most of what the rest asks answer it —
    # the appraisal row with 考核得分, not the minutes' "主持人：孙悦" that only names the entity again
    answering = [(i, unit) for i, unit in hop2 if not any(t in unit.lower() for t in named)]
    most = max((asked_in(unit) for _, unit in answering), default=0)
    if not most:  # no other line holds what the rest asks: the lines naming the entity, as they rank
        answering = hop2
    for i, unit in answering:
        if len(cites) >= max_items:
            break
        if asked_in(unit) < most or unit in used:
            continue
        used.add(unit)
        cites.append(i)
        quoted.append((i, unit))
        lines.append(render(lang, "multi_item", where=_where(pool[i]), text=clean_markup(unit), n=i + 1))
    return Composed(lines, cites, quoted=quoted) if len(cites) >= 2 else None


def locate(lang: str, question: str, terms: list[str], weights: dict[str, float],
           pool: list[Hit], translations: dict[str, list[str]] | None = None, *, cfg: AnswerSettings,
           documents: Collection[str] | None = None, similarity: Similarity | None = None) -> Composed | None:
    """"Which section says …?": the section path of the best passage, cited, with the sentence that
    says it (in the documents the question names, when it names any)."""
    picked = pick_sentences(question, terms, weights, pool, 1, cfg.subject_passages if documents else 5,
                            translations=translations, cfg=cfg, documents=documents, similarity=similarity)
    if not picked:
        return None
    i = picked[0].hit_index
    hit = pool[i]
    path = f"{hit.document_name} > {hit.where()}"
    return Composed([render(lang, "locate_answer", path=path, n=i + 1),
                     render(lang, "answer_item", text=clean_markup(picked[0].text), n=i + 1)], [i])


def extractive(lang: str, question: str, terms: list[str], weights: dict[str, float], pool: list[Hit],
               max_sentences: int, translations: dict[str, list[str]] | None = None, *, cfg: AnswerSettings,
               documents: Collection[str] | None = None, similarity: Similarity | None = None,
               linked: Collection[str] = (), subjects: Collection[str] = ()) -> Composed | None:
    """The best sentence, and after it only sentences that hold more of what the question asks — from the
    documents the question names when it names any (``documents``), so a look-alike fact of another
    subject is never appended; or from a document the subject's own names (``linked``: a second hop).
    ``subjects``: the words naming the question's subjects (``Asked.subject``; a name among them — "Northbeam"
    of "the hosting agreement with Northbeam" — picks no line of its own document)."""
    picked = pick_sentences(question, terms, weights, pool, max_sentences, cfg.subject_passages if documents else 5,
                            translations=translations, cfg=cfg, documents=documents, complement=True,
                            similarity=similarity, linked=linked, require_asked=not linked, subjects=subjects)
    if not picked:
        return None
    lines = [render(lang, "answer_lead")]
    cites: set[int] = set()
    quoted = [(p.hit_index, p.text) for p in picked]
    for p in picked:
        text, refs = p.text, [p.hit_index]
        units = sentence_units(pool[p.hit_index])
        if units and units[-1] == p.text:
            cont = continuation(pool, p.hit_index)
            if cont is not None:
                text, refs = f"{text}{cont[1]}", [p.hit_index, cont[0]]
        if pool[p.hit_index].node_type == "table":
            text = table_cell(text, terms, question)
        cites.update(refs)
        extra = "".join(f"[{r + 1}]" for r in refs[1:])  # the continuation's passage, cited right after
        lines.append(render(lang, "answer_item", text=clean_markup(text), n=refs[0] + 1) + extra)
    return Composed(lines, sorted(cites), quoted=quoted)


def _next_in_section(pool: list[Hit], at: int, within: str) -> int | None:
    """The pool's passage right after hits[at] in its document; or, past the heading of another part of section
    ``within`` ("五、犯罪事实" > "详细情况", "Case Procedures" > "Arrest"), that part's first passage."""
    hit = pool[at]
    after = [(other.position, k) for k, other in enumerate(pool)
             if other.document_id == hit.document_id and other.version == hit.version
             and other.position > hit.position and other.node_type not in ("section", "document")]
    if not after:
        return None
    k = min(after)[1]
    nxt = pool[k]
    after_heading = nxt.section != hit.section and within_section(nxt.section, within)
    return k if nxt.position == hit.position + 1 or after_heading else None


def section_summary(lang: str, pick: SectionPick, pool: list[Hit], max_sentences: int) -> Composed:
    """A summary question answered by the section it asks for (:func:`dropqa.answering.sections.asked_section`):
    that section's opening sentences, its label first, the passage cited. A label on a passage of its own
    ("**Case Statement**") is followed by the next passage of the pool in document order, cited too; so is an
    opening shorter than ``max_sentences`` ("犯罪罪名：徇私枉法罪" above the part's "详细情况"), while the next passage
    is of the section or a part inside it."""
    cites: list[int] = []
    units: list[str] = []
    at = pick.index
    within = pick.within or pool[pick.index].section
    while at is not None and (not units or (len(units) < max_sentences and not opens_part(pool[at])
                                            and within_section(pool[at].section, within))):
        found = [u for u in sentence_units(pool[at]) if clean_markup(u).strip(" :：*")]
        if not cites and found and clean_markup(found[0]).strip(" *").rstrip(":：").strip() == pick.label:
            found = found[1:]  # the label line alone says nothing: it leads the quote instead
        cites.append(at)
        units += found
        at = next_passage(pool, at) if not units else _next_in_section(pool, at, within)
    if not units:
        return Composed([render(lang, "answer_lead")], [], quoted=[])
    text = " ".join(clean_markup(u) for u in units[:max_sentences])
    sep = "：" if lang == "zh" else ": "
    marks = "".join(f"[{i + 1}]" for i in cites[1:])
    line = render(lang, "answer_item", text=f"{pick.label}{sep}{text}", n=pick.index + 1) + marks
    return Composed([render(lang, "answer_lead"), line], sorted(cites), quoted=[(pick.index, text)])
