"""``verify``: every citation must point at a passage that supports the sentence citing it, and
sources that disagree are reported in the answer instead of one being silently picked.

Support: the sentence's numbers all occur in the cited passage, and enough of its
words do (character bigrams for Chinese, words for English). An unsupported citation
is repaired (moved to another gathered passage that supports the sentence) or dropped.
Conflicts: numbers stated for the same attribute by different documents or versions.

A model's answer (``model_wrote``) is checked sentence by sentence: a sentence stays only when a gathered
passage supports it (its own citation, a repaired one, or — when it cites nothing — the first passage that
does); the others are left out, and when none is left the offline answer is given instead (``degraded``:
the model's answer could not be used). Whatever the model writes, what the user reads is grounded.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from dropqa.answering.arithmetic import worked
from dropqa.answering.chain import describes_link
from dropqa.answering.consistency import Conflict, claims_in, distinctive_terms, subject_conflicts, subject_of
from dropqa.blocking import in_thread
from dropqa.config import AnswerSettings
from dropqa.graph.nodes.answer import abstain, compose_offline
from dropqa.graph.nodes.common import step
from dropqa.graph.state import State
from dropqa.retrieval.hits import Hit
from dropqa.services import Context, Services
from dropqa.store import search as store_search
from dropqa.store.scope import Scope
from dropqa.text.messages import render
from dropqa.text.numbered import Numbered, counter_words, numbered_names, place_qualifiers, writes_numbered
from dropqa.text.segment import han_bigrams, has_han, proper_words

_CITE = re.compile(r"\[(\d+)\]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z0-9]{3,}")
# Labels the answer adds around a statement (version, page) are not claims about the passage.
_LABEL = re.compile(r"(?i)第\s*\d+\s*版|\bv(?:ersion)?\s*\d+\b|第\s*\d+\s*页|\bpage \d+\b")


def _grams(text: str) -> set[str]:
    """Character bigrams of the Chinese text plus the English words (3+ letters) — comparable
    across passages that mix both."""
    low = text.lower()
    return han_bigrams(low) | set(_WORD.findall(low))


def _strip_where(body: str, hit: Hit, label_share: float) -> str:
    """Drop a leading "section: " label when it names where the passage sits (not a claim)."""
    for sep in ("：", ": "):
        head, found, tail = body.partition(sep)
        if found and 0 < len(head) <= 80:
            label = _grams(head)
            if label and len(label & _grams(hit.breadcrumb)) / len(label) >= label_share:
                return tail
    return body


def supports(sentence: str, hit: Hit, cfg: AnswerSettings) -> bool:
    """Does ``hit`` support ``sentence``? Every number the sentence states must be in the passage,
    and enough of its wording: a paraphrase shares fewer words than a quotation, so when the
    numbers already match less overlap is asked for."""
    body = _LABEL.sub(" ", _strip_where(_CITE.sub("", sentence), hit, cfg.label_share))
    passage = f"{hit.breadcrumb}\n{hit.content}\np.{hit.page or ''}"
    flat = passage.replace(",", "")
    numbers = _NUMBER.findall(body)
    for num in numbers:
        if num.replace(",", "") not in flat:
            return False
    grams = _grams(body)
    if not grams:
        return True
    needed = cfg.support_share_numbers if numbers else cfg.support_share
    return len(grams & _grams(passage)) / len(grams) >= needed


def continues(line: str, i: int, marks: list[int], pool: list[Hit], cfg: AnswerSettings) -> bool:
    """Is pool[i] the rest of a sentence a page break cut, quoted whole on ``line`` beside the passage it
    continues? ("…RPO不超过15分钟，" | "RTO不超过30分钟。"): the two passages, read as one, support the line; neither
    does alone."""
    hit = pool[i]
    for j in marks:
        if j == i or not 0 <= j < len(pool):
            continue
        other = pool[j]
        if other.document_id != hit.document_id or other.version != hit.version \
                or abs(other.position - hit.position) != 1:
            continue
        first, second = (other, hit) if other.position < hit.position else (hit, other)
        if supports(line, first.model_copy(update={"content": f"{first.content}{second.content}"}), cfg):
            return True
    return False


def shares_quote(line: str, i: int, marks: list[int], pool: list[Hit], cfg: AnswerSettings) -> bool:
    """Is pool[i] one of several passages of one document that ``line`` quotes in turn (a section's opening
    followed into its parts: "Case Procedures: On 14th February … On 20th February … [3][13][1]")? It supports a
    sentence of the line alone, and the passages the line cites in that document, read in order, support all
    of it."""
    hit = pool[i]
    same = [pool[j] for j in dict.fromkeys(marks) if 0 <= j < len(pool) and pool[j].document_id == hit.document_id
            and pool[j].version == hit.version]
    if len(same) < 2 or not any(supports(sentence, hit, cfg) for sentence in sentences_of(line)):
        return False
    together = "\n".join(h.content for h in sorted(same, key=lambda h: h.position))
    return supports(line, hit.model_copy(update={"content": together}), cfg)


def check_citations(answer: str, pool: list[Hit], cfg: AnswerSettings) -> tuple[str, list[int], int, int, int]:
    """Returns (answer, cited indexes, checked, dropped, repaired). Markers are rewritten in place."""
    counts = {"checked": 0, "dropped": 0, "repaired": 0}
    out_lines = []
    for line in answer.split("\n"):
        used: set[int] = set()
        marks = [int(n) - 1 for n in _CITE.findall(line)]

        def check(m: re.Match[str], line: str = line, used: set[int] = used, marks: list[int] = marks) -> str:
            i = int(m.group(1)) - 1
            counts["checked"] += 1
            if 0 <= i < len(pool) and (supports(line, pool[i], cfg) or continues(line, i, marks, pool, cfg)
                                       or shares_quote(line, i, marks, pool, cfg)):
                keep = i
            else:
                keep = next((k for k, h in enumerate(pool[:cfg.repair_passages])
                             if k not in used and supports(line, h, cfg)), None)
                counts["repaired" if keep is not None else "dropped"] += 1
            if keep is None or keep in used:
                return ""
            used.add(keep)
            return f"[{keep + 1}]"

        def replace(m: re.Match[str], check=check) -> str:
            marker = check(m)
            return f" {marker}" if marker and m.group(0).startswith(" ") else marker

        out_lines.append(re.sub(r"\s?\[(\d+)\]", replace, line).rstrip())
    text = "\n".join(out_lines)
    cited = sorted({int(n) - 1 for n in _CITE.findall(text)})
    return text, cited, counts["checked"], counts["dropped"], counts["repaired"]


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)(?=\s)")
_SPACE_BEFORE_STOP = re.compile(r"\s+([。！？!?.,;；，、])")
_LEADING_MARKS = re.compile(r"^\s*((?:\[\d+\]\s*)+)")


def sentences_of(line: str) -> list[str]:
    """``line`` cut into sentences; citation markers written after the full stop stay with their sentence."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(line):
        m = _LEADING_MARKS.match(piece)
        if m and out:
            out[-1] = out[-1].rstrip() + " " + m.group(1).strip()
            piece = piece[m.end():]
        if piece.strip():
            out.append(piece)
    return out


def ground_sentences(answer: str, pool: list[Hit], cfg: AnswerSettings) -> tuple[str, int, int, int, int]:
    """A model's answer with only the sentences a passage supports, each citing it. Returns
    ``(answer, checked, dropped citations, repaired citations, sentences left out)``."""
    checked = dropped = repaired = removed = 0
    lines = []
    for line in answer.split("\n"):
        kept = []
        for sentence in sentences_of(line):
            body = _SPACE_BEFORE_STOP.sub(r"\1", _CITE.sub("", sentence)).strip()
            if not _grams(body):  # punctuation, a list bullet: no claim
                kept.append(_CITE.sub("", sentence).rstrip())
                continue
            marks = [int(n) - 1 for n in _CITE.findall(sentence)]
            good = [i for i in marks if 0 <= i < len(pool) and supports(body, pool[i], cfg)]
            checked += len(marks)
            dropped += len(marks) - len(good)
            if not good:
                found = next((k for k, h in enumerate(pool[:cfg.repair_passages]) if supports(body, h, cfg)), None)
                if found is not None:
                    repaired += 1 if marks else 0
                    good = [found]
            if not good:
                removed += 1
                continue
            marker = "".join(f"[{i + 1}]" for i in dict.fromkeys(good))
            end = body[-1] if body[-1] in "。！？!?.；;" else ""
            if end in ("。", "！", "？", "；"):
                kept.append(f"{body[:-1]}{marker}{end}")
            elif end:
                kept.append(f"{body[:-1].rstrip()} {marker}{end}")
            else:
                kept.append(f"{body} {marker}")
        joined = "".join(kept) if any("\u4e00" <= ch <= "\u9fff" for ch in line) else " ".join(
            k.strip() for k in kept)
        if joined.strip() or not line.strip():
            lines.append(joined.rstrip())
    text = "\n".join(lines).strip()
    return text, checked, dropped, repaired, removed


def conflict_note(lang: str, conflict: Conflict, pool: list[Hit]) -> tuple[str, list[int]]:
    index = {h.node_id: i for i, h in enumerate(pool)}
    cites = [index[c.node_id] for c in conflict.claims if c.node_id in index]
    if conflict.across_versions:
        parts = [render(lang, "version_part", version=c.version, value=c.shown(), n=index[c.node_id] + 1)
                 for c in sorted(conflict.claims, key=lambda c: -c.version) if c.node_id in index]
        sep = "；" if lang == "zh" else "; "
        return render(lang, "conflict_versions", document=conflict.claims[0].document,
                      attribute=conflict.label, details=sep.join(parts),
                      latest=max(c.version for c in conflict.claims)), cites
    parts = [render(lang, "conflict_part", document=c.document, section=c.section or "—",
                    value=c.shown(), n=index[c.node_id] + 1)
             for c in conflict.claims if c.node_id in index]
    sep = "；" if lang == "zh" else "; "
    return render(lang, "conflict_note", attribute=conflict.label, details=sep.join(parts)), cites


async def verify(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    lang = state.language
    pool = state.hits
    text = state.answer
    if not state.answerable:
        return {"conflicts": [], "reasoning_trace": [step(state, "verification", render(
            lang, "verify_summary", checked=0, dropped=0, repaired=0, conflicts=0))]}
    svc = runtime.context.services
    cfg = svc.settings.answer
    notes_before: list[Any] = []
    if state.model_wrote:
        text, checked, dropped, repaired, removed = ground_sentences(text, pool, cfg)
        cited = sorted({int(n) - 1 for n in _CITE.findall(text)})
        if removed:
            notes_before.append(step(state, "verification", render(lang, "verify_unsupported", dropped=removed)))
        if not cited:
            return await _offline_instead(state, svc)
    else:
        text, cited, checked, dropped, repaired = check_citations(text, pool, cfg)
    terms = [t for t in state.terms if not t.isdigit()]
    # Compare what the cited passages and the best other passages say about what the question asks.
    considered = sorted(set(cited) | set(range(min(cfg.claim_passages, len(pool)))))
    floor = cfg.claim_relevance_share * (pool[0].relevance if pool else 0)
    named, subject = state.intent.named, state.quality.asked.subject
    rare = (distinctive_terms(state.quality.weights, cfg.conflict_term_share)
            if cfg.conflict_term_share is not None else [])
    claims = [(subject_of(pool[i], named, subject), c) for i in considered if pool[i].relevance >= floor
              for c in claims_in(pool[i], terms, naming=subject, distinctive=rare,
                                 question=state.search_text)]
    conflicts = subject_conflicts(claims, named)
    version_asked = state.version is not None
    notes = []
    for conflict in conflicts[:cfg.max_conflict_notes]:
        if conflict.across_versions and version_asked:
            continue  # the question named the version it wants
        note, cites = conflict_note(lang, conflict, pool)
        notes.append(note)
        cited = sorted(set(cited) | set(cites))
    if not notes and (sums := arithmetic(lang, state.question, text, pool)) is not None:
        notes.append(sums)  # "合计/少多少" of two quoted figures: worked out beside them, their citations kept
    if notes:
        text = text + "\n" + "\n".join(notes)
    summary = render(lang, "verify_summary", checked=checked, dropped=dropped, repaired=repaired,
                     conflicts=len(notes))
    update: dict[str, Any] = {
        "answer": text, "citations": cited,
        "conflicts": [c.note() for c in conflicts],
        "reasoning_trace": [*notes_before, step(state, "verification", summary)],
    }
    if not cited and checked:
        # Nothing the answer cites supports it: say so rather than show an unsupported answer.
        return {**update, **abstain(state)}
    question = state.search_text
    names, places = numbered_names(question), place_qualifiers(question)
    people = question_names(question) if state.intent.kind == "fact" and not describes_link(question) else []
    if state.intent.kind == "fact" and (names or places or people):
        scope = runtime.context.scope(state.version)
        hits = [pool[i] for i in cited]
        if names and await in_thread(numbered_elsewhere, svc, scope, names, hits, question):
            # "加拿大航空621号班机…" answered from flight 189's page: it is about a look-alike
            return {**update, **abstain(state, numbered=[n.text for n in names])}
        if places and (unwritten := await in_thread(places_unwritten, svc, scope, places, hits, question)):
            # "the population of Rochester, Minnesota" answered from Rochester, New York's page
            return {**update, **abstain(state, numbered=unwritten)}
        if people and (unwritten := await in_thread(names_elsewhere, svc, scope, people, hits, question)):
            # "晋哀帝的皇后王穆之是在哪一年被册立为皇后的？" answered from 何法倪's page, which never writes 王穆之
            return {**update, **abstain(state, numbered=unwritten)}
    return update


_JOINING = ("和", "与", "及", "跟", "同", "或")  # a word jieba starts with one of these joins two names


def question_names(question: str) -> list[str]:
    """The names of three characters or more jieba tags in a Chinese question (王穆之, 晋哀帝, 黑龙江省): who or
    what it asks about, which the documents an answer cites must write somewhere. Not a withheld name (柏某) nor
    jieba's guess across a conjunction ("和柏某", "和紫霞" of "…人民法院和紫霞市…"). (``text.entities.chinese_names``
    finds the names a passage writes, by another rule.)"""
    if not has_han(question):
        return []
    return sorted(w for w in proper_words(question) if len(w) >= 3 and has_han(w) and "某" not in w
                  and not w.startswith(_JOINING))


def names_elsewhere(svc: Services, scope: Scope, names: list[str], cited: list[Hit], question: str) -> list[str]:
    """The names a question gives (``question_names``) that the documents an answer cites write nowhere though
    another document does: the answer is about someone else (何法倪's page for 王穆之, whom 王法慧's names).
    A name no document writes is the written-nowhere check's (``retrieval.search.written_nowhere``)."""
    missing = places_unwritten(svc, scope, names, cited, question)
    if not missing:
        return []
    written = store_search.written_terms(svc.db, missing, scope)
    return [n for n in missing if n in written]


def places_unwritten(svc: Services, scope: Scope, places: list[str], cited: list[Hit], question: str) -> list[str]:
    """The regions a question names a place by ("Minnesota" of "Rochester, Minnesota":
    ``text.numbered.place_qualifiers``) that the documents an answer cites write nowhere: they are about a
    namesake. Judged only where a cited passage is in the question's language."""
    if not _judged(cited, question):
        return []
    text = "\n".join(f"{h.breadcrumb}\n{h.content}" for h in cited).lower()
    missing = [p for p in places if p.lower() not in text]
    if not missing:
        return []
    written = store_search.written_terms(svc.db, missing, _documents_of(scope, cited))
    return [p for p in missing if p not in written]


def numbered_elsewhere(svc: Services, scope: Scope, names: list[Numbered], cited: list[Hit], question: str) -> bool:
    """Do the documents an answer cites write none of the numbered names its question asks about ("621号",
    "第三中学", "the second season": ``text.numbered``) — in the cited passages or anywhere else in them? Then
    they are about another of the series (flight 189, the 二中, the first season). Judged only where a cited
    passage is in the question's language: a translation writes a number in words of its own."""
    if not _judged(cited, question):
        return False
    if any(writes_numbered(f"{h.breadcrumb}\n{h.content}", n) for h in cited for n in names):
        return False
    words = sorted({w for n in names for w in counter_words(n)})
    texts = store_search.passages_writing(svc.db, words, _documents_of(scope, cited),
                                          svc.settings.answer.numbered_passages)
    return not any(writes_numbered(t, n) for t in texts for n in names)


def _judged(cited: list[Hit], question: str) -> bool:
    """Is a look-alike judged by the words of the cited passages — one of them is in the question's language?"""
    return any(has_han(h.content) == has_han(question) for h in cited)


def _documents_of(scope: Scope, cited: list[Hit]) -> Scope:
    """``scope`` narrowed to the documents of the cited passages."""
    return replace(scope, document_ids=tuple(sorted({uuid.UUID(h.document_id) for h in cited})))


def arithmetic(lang: str, question: str, text: str, pool: list[Hit]) -> str | None:
    """The sum or difference the question asks of two figures the answer quotes, as a note citing them
    (``answering.arithmetic``); None when it asks none, the figures are not exactly its two operands, or the
    answer states the result already."""
    lines = []
    for line in text.splitlines():
        cites = [int(n) for n in _CITE.findall(line) if 0 < int(n) <= len(pool)]
        if cites:
            lines.append((line, cites, pool[cites[0] - 1].document_id))
    done = worked(question, lines)
    if done is None or done[0].rsplit("= ", 1)[-1] in text:
        return None
    expr, cites = done
    return render(lang, "arithmetic_note", expr=expr, cites="".join(f"[{n}]" for n in cites))


async def _offline_instead(state: State, svc: Services) -> dict[str, Any]:
    """Nothing the model wrote holds: the offline answer, checked like any other (``degraded`` when it
    answers; an abstention is what the model's answer would have come to as well)."""
    lang = state.language
    note = step(state, "verification", render(lang, "verify_fallback"))
    offline = await in_thread(compose_offline, state, svc)
    pool = offline.get("hits") or state.hits
    update: dict[str, Any] = {**offline, "model_wrote": False, "conflicts": []}
    if offline.get("answerable"):
        text, cited, *_ = check_citations(offline["answer"], pool, svc.settings.answer)
        if cited:
            update.update(answer=text, citations=cited, degraded=True)
        else:
            update.update(abstain(state))
    summary = step(state, "verification", render(lang, "verify_summary", checked=len(update.get("citations", [])),
                                                 dropped=0, repaired=0, conflicts=0))
    update["reasoning_trace"] = [note, *offline.get("reasoning_trace", []), summary]
    return update
