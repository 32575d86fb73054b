"""Offline answers: quote the best sentences of the best passages, each with its citation.

No language model is involved; the answer is made of the documents' own words,
chosen by how much of the question's (idf-weighted) vocabulary a sentence holds
and how relevant its passage is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from dropqa.config import AnswerSettings
from dropqa.retrieval.fusion import coverage
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import (
    VALUE_KINDS,
    asks_document_date,
    asks_for_summary,
    asks_several,
    asks_target,
    capitalised_words,
    counted_measure,
    counted_noun,
    counts_by_listing,
    dates_its_document,
    expected_kind,
    gives_age,
    gives_measure,
    holds_kind_for,
    role_words,
    states_target,
)
from dropqa.text.entities import about_other_periods, about_other_years, chinese_people, years_in
from dropqa.text.rivals import about_another, rival_of
from dropqa.text.segment import has_han, holds
from dropqa.text.sentences import ends_mid_sentence, split_sentences
from dropqa.text.subjects import is_document_kind, is_stated_of_a_person, withheld_names

_QUANTITY = re.compile(
    r"多少|几|how (many|much|long)|what (percentage|share)|number of|\bwhen\b|哪天|何时|什么时候|多久"
)
_DIGIT = re.compile(r"\d")
_CELL = re.compile(r"^\s*([^:|]{1,60}):\s*(.+?)\s*$")
_LABEL = re.compile(r"^[\W_]*([^:：\n]{1,40}?)\s*\**\s*[:：][\s*_]*[^\s*_]")  # a labelled value: "Pulse: 90 bpm"


@dataclass
class Extract:
    text: str
    hit_index: int
    score: float
    asked: frozenset[str] = frozenset()  # the question's terms it holds that do not merely name its document
    of_kind: bool = False  # it holds an answer of the kind the question asks (a price for "多少钱")
    held: frozenset[str] = frozenset()  # every term of the question it holds, the words naming its document too
    labelled: bool = False  # it states what is asked under its label ("过敏史：对青霉素过敏。" for "allergic to")


REPLY_OPENING_CHARS = 6  # a chat message's first sentence this short ("查到了。", "OK.") is said with the next
_SPEAKER = re.compile(r"^[^：:\n]{1,30}[（(][^）)]*[）)][：:]\s*")  # "王磊（08:53）：", as the chat parser writes it
_NUMERIC = re.compile(r"^[\d.,%％\s]+[\u4e00-\u9fffA-Za-z%]{0,6}$")


def _pair_label_runs(lines: list[str]) -> list[str]:
    """OCR of a dashboard reads labels, then their values ("全年平均PUE", "年度节电量", "1.32",
    "243万千瓦时"): pair a run of labels with the run of values that follows when the counts match."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and not _NUMERIC.match(lines[j]):
            j += 1
        k = j
        while k < len(lines) and _NUMERIC.match(lines[k]):
            k += 1
        labels, values = lines[i:j], lines[j:k]
        if values and len(values) <= len(labels):
            paired = labels[len(labels) - len(values):]
            out += labels[: len(labels) - len(values)]
            out += [f"{label}：{value}" for label, value in zip(paired, values, strict=True)]
        else:
            out += labels + values
        i = max(k, i + 1)
    return out


def sentence_units(hit: Hit) -> list[str]:
    if hit.node_type in ("table", "list"):
        lines = [line.strip(" -") for line in hit.content.split("\n") if line.strip(" -")]
        if hit.node_type == "table" and len(lines) > 1 and ":" not in lines[0] \
                and lines[1].startswith(lines[0].split(" | ")[0].strip() + ":"):
            lines = lines[1:]  # the header row ("岗位 | 显示器型号"): its rows say each header's value
        return lines
    if (hit.metadata or {}).get("speaker"):
        units = split_sentences(hit.content)
        if len(units) > 1 and len(_SPEAKER.sub("", units[0])) <= REPLY_OPENING_CHARS:
            units[:2] = [f"{units[0]}{units[1]}"]  # "王磊（08:53）：查到了。" opens the reply that says what was found
        return units
    if (hit.metadata or {}).get("segment_type") == "ocr":
        return _pair_label_runs([line.strip() for line in hit.content.split("\n") if line.strip()])
    return split_sentences(hit.content)


def _with_continuation(units: list[str], i: int, terms: list[str] | None = None, limit: int = 240) -> str:
    """A unit ending in a colon introduces what follows ("值班安排如下：…"): keep it with the item
    that best matches the question (else the next one)."""
    text = units[i]
    if not re.sub(r"[*_`\s]+$", "", text).endswith(("：", ":")) or i + 1 >= len(units):  # "**Label:**" too
        return text
    following = units[i + 1: i + 9]
    best = max(range(len(following)), key=lambda k: (sum(1 for t in terms or [] if t in following[k].lower()), -k))
    return f"{text} {following[best]}"[: limit * 2]


_LEADING_LABEL = re.compile(r"^\s*[^:：\n]{1,40}[:：]\s*")
_WORDY = re.compile(r"[^\W_]")


def states_nothing(line: str) -> bool:
    """A line of labels without a value ("Specialist Examination: Auxiliary Examination:", "体格检查：") says
    nothing, however well its labels match the question."""
    text = re.sub(r"[*_`#]+", "", line).strip()
    while (m := _LEADING_LABEL.match(text)) and m.end() > 0:
        text = text[m.end():]
    return not _WORDY.search(text)


# A sentence about the document itself: what it summarises or sets out, not any of it ("This report summarises
# the Company's operations, significant events and financial performance for fiscal 2021", "本报告概述了公司2021年的
# 经营情况").
_ABOUT_ITSELF = re.compile(
    r"(?i)^\W*(?:this|the present|the following)\s+(?:annual\s+)?(?:report|document|section|chapter|summary|paper|"
    r"policy|manual|guide|handbook|overview)\s+(?:summari[sz]es|describes|sets out|presents|outlines|covers|provides|"
    r"reviews|gives)\b|^\W*本(?:年度)?(?:报告|文件|文档|章|节|部分|手册|制度|办法|指南|纪要)(?:主要|将|简要)?"
    r"(?:总结|介绍|概述|阐述|说明|汇总|描述|回顾|列出)")


def about_itself(sentence: str) -> bool:
    """Does ``sentence`` say what its document covers rather than anything it reports? It is no summary of the
    events a question asks to be summed up, however many of its words it shares."""
    return _ABOUT_ITSELF.search(sentence) is not None


# Where a judgement's appended statute text starts ("Reference Article is below：Article 384 State personnel who
# …", "参考法条如下：第二百九十三条 有下列寻衅滋事行为之一…", "附：相关法律条文"): the law in general, not what the case
# says — quoted only to a question about the law itself (:data:`_ASKS_LAW`)
_STATUTE = re.compile(r"(?i)reference articles? (?:is|are) (?:as follows|below)|参考法条|"
                      r"(?:相关|适用的?|所依据的?)法律条文")
_ASKS_LAW = re.compile(r"(?i)法条|法律条文|条款|法律依据|第[一二三四五六七八九十百千\d]+条|刑法|\barticles?\b|"
                       r"\bstatutes?\b|\blaws?\b|\blegal basis\b|\bprovisions?\b|\bcriminal code\b")


# A sentence of a statute, wherever it stands (the appended text cut from its marker by a passage's end): "Those
# who … shall be sentenced to fixed-term imprisonment of not more than three years", "…情节恶劣的，处五年以下有期徒刑"
# (criminal penalties only: a policy's "violations shall be punished" is what the policy says)
_STATES_LAW = re.compile(r"(?i)\bshall be sentenced to\b|\bshall be punished (?:by|with) (?:fixed-term )?imprisonment|"
                         r"的[，,]\s*(?:处|并处)[^。；;]{0,30}?(?:有期徒刑|拘役|管制|罚金|死刑)")


def states_law(sentence: str) -> bool:
    """Is ``sentence`` a statute's (what the law provides for whoever does something), not a case's?"""
    return _STATES_LAW.search(sentence) is not None


def statute_start(text: str) -> int | None:
    """Where the statute text appended to ``text`` starts, if it holds any."""
    m = _STATUTE.search(text)
    return m.start() if m else None


def asks_law(question: str) -> bool:
    """Does ``question`` ask about the law itself (an article, what the statute provides)?"""
    return _ASKS_LAW.search(question) is not None


def value_labels(line: str, row: bool, asked: Collection[str]) -> list[str]:
    """The labels of the values ``line`` states: its leading label ("Defendant: G. Torres" → "Defendant"); and
    in a table row about something the question asks (its first cell holds one of ``asked``), every cell's
    header ("Project: Falcon-03 | Budget code: CC-4215-036" → "Budget code"). A label holding what the question
    asks marks the line that states it; another row's "型号" column (the headset's) does not."""
    label = _LABEL.match(line)
    labels = [label.group(1)] if label else []
    if row:
        cells = [m for cell in re.split(r" \| | · ", line) if (m := _CELL.match(cell))]
        if cells and any(holds(cells[0].group(2).lower(), t) for t in asked):
            labels += [m.group(1) for m in cells[1:]]
    return labels


def next_passage(hits: list[Hit], i: int) -> int | None:
    """The index in ``hits`` of the passage that follows hits[i] in its document (same version, next position;
    not a section or document node), if ``hits`` holds it."""
    hit = hits[i]
    return next((k for k, other in enumerate(hits)
                 if other.document_id == hit.document_id and other.version == hit.version
                 and other.position == hit.position + 1 and other.node_type not in ("section", "document")), None)


_ASKING = re.compile(r"[？?]\s*$")


def asked_before(hits: list[Hit], i: int) -> str:
    """The chat message hits[i] replies to, when it follows one that asks ("赵宏（08:49）：收到。原因查到了吗？" before
    "王磊（08:53）：查到了。…日志盘写满了"): a reply answers in none of the question's words, its question holds
    them. "" for any other passage, or when ``hits`` lacks the message before it."""
    hit = hits[i]
    if not (hit.metadata or {}).get("speaker"):
        return ""
    before = next((other for other in hits if other.document_id == hit.document_id and other.version == hit.version
                   and other.position == hit.position - 1 and (other.metadata or {}).get("speaker")), None)
    return before.content if before is not None and _ASKING.search(before.content) else ""


def continuation(hits: list[Hit], i: int) -> tuple[int, str] | None:
    """The passage of ``hits`` that continues hits[i] when it stops mid-sentence (a page break in a PDF), and
    its first sentence. A table or list ends where its last row does."""
    hit = hits[i]
    if hit.node_type in ("table", "list") or not ends_mid_sentence(hit.content):
        return None
    k = next_passage(hits, i)
    if k is None:
        return None
    units = sentence_units(hits[k])
    return (k, units[0]) if units else None


def asked_terms(hit: Hit, weights: dict[str, float], subject_weight: float,
                naming: Collection[str] = (), translations: dict[str, list[str]] | None = None) -> dict[str, float]:
    """The question's term weights with the terms that name ``hit``'s document (its file name or
    root title) discounted to ``subject_weight``: they hold for every sentence of it, so the rest of
    the question picks. ``naming``: more words naming the question's subjects (the role a name is given: "the
    defendants Q. Ruiz and M. Ward"), discounted alike; and so is the kind of document the question names
    ("According to the hospitalization records of …": "Emergency Records: None … Consultation Records: …" is not
    more of an answer to "what are the diagnoses" than "Preliminary Diagnosis: Acute Schistosomiasis").
    ``translations``: a term names the document in the other language too (法院 of "Ashland, Charleston法院" is the
    "Court" of "Ashland, Charleston, Court": "Court Clerk: …" is no line stating what is asked) — pass only the
    terms the question writes as part of a name (:func:`naming_translations`)."""
    root = hit.names()
    other = {t for t in weights if any(has_han(x) != has_han(t) and holds(root, x.lower())
                                       for x in (translations or {}).get(t, ()))}
    return {t: w * subject_weight if t in root or t in naming or t in other or is_document_kind(t) else w
            for t, w in weights.items()}


# The words a Chinese question writes right before what it asks: "…每个月的费用是多少", "…的职业是什么".
_ASKED_HEAD = re.compile(r"([\u4e00-\u9fff]{2,8}?)(?:是|为|有)?(?:多少|什么|几|哪|谁|何)")


def naming_translations(question: str, translations: dict[str, list[str]]) -> dict[str, list[str]]:
    """The translations of the terms that may name the document in the other language — all but the word a Chinese
    question writes right before what it asks (费用 of "主机托管服务合同每个月的费用是多少？"): a contract that
    defines its "Monthly Fee" is about its fee, and the fee is still what is asked of it. 交通肇事 of "交通肇事案中，
    被告…被判处几年有期徒刑？" names the case, as the judgement's "Crime of Traffic Accident" does."""
    head = _ASKED_HEAD.search(question)
    asked = head.group(1) if head else ""
    return {t: xs for t, xs in translations.items() if not (asked and has_han(t) and asked.endswith(t))}


def _asks(term: str, ask: dict[str, float], weights: dict[str, float]) -> bool:
    """``term`` is something the question asks of a passage (``ask``: its ``asked_terms``): not a word naming the
    passage's document, nor the kind of document ("judgment", "判决书")."""
    return ask.get(term, 0.0) >= weights.get(term, 0.0) > 0 and not is_document_kind(term)


def _context_asked(hit: Hit, terms: list[str], weights: dict[str, float], cfg: AnswerSettings,
                   naming: Collection[str], translations: dict[str, list[str]] | None = None) -> set[str]:
    """What the question asks that ``hit``'s heading path or first line (a table's caption or header) holds:
    what every row of the passage is about."""
    ask = asked_terms(hit, weights, cfg.subject_weight, naming, translations)
    text = _context(hit)
    return {t for t in terms if _asks(t, ask, weights) and holds(text, t)}


def _context(hit: Hit) -> str:
    """``hit``'s heading path and first line (a table's caption or header), lower-cased: what every line of the
    passage is about."""
    return f"{hit.breadcrumb} {hit.content.split(chr(10), 1)[0]}".lower()


def _names_counted(extract: Extract, hit: Hit, counted: str, translations: dict[str, list[str]]) -> bool:
    """Does ``extract`` — or its passage's heading path or first line (a table's caption or header, which every
    row is about) — name what the question counts (``counted``, or a translation of it)?"""
    text = f"{extract.text.lower()}\n{_context(hit)}"
    return any(holds(text, w) for w in (counted, *translations.get(counted, ())))


# values a line gives without naming what they are of: not a count, which any line may give
_BARE_KINDS = tuple(k for k in VALUE_KINDS if k != "number")


# the line introducing a person in a Chinese judgement or record: "被告人：罗某，男，1966年8月8日出生，…，现无业。" (an
# English one labels each fact on a line of its own, "Occupation: Unemployed", which the labels find)
_INTRODUCTION = re.compile(r"[，,]\s*[男女]\s*[，,]")


def _introduces(sentence: str, people: set[str]) -> bool:
    """``sentence`` introduces a person the question names by a withheld name (or any, when it names none)."""
    if not _INTRODUCTION.search(sentence):
        return False
    return not people or any(p in sentence for p in people)


def _look_alike(question: str, hits: list[Hit], c: Extract, chosen: list[Extract]) -> bool:
    """A line of another document than the quoted ones, for a question naming none and asking one thing (not "…,
    and how many hours …", whose second part another document may answer), all in the question's language:
    it matches some words the quoted lines lack, but is about something else ("NSB El 13 is a Norwegian electric
    locomotive" beside the line on non-condensing locomotives in Sweden and Britain; the Oath of Citizenship beside
    the United Kingdom's opening line). Across languages a dictionary's glosses pick the first line as often as not,
    and the line of the other document may be the answer ("the minimum password length" first matched the guest
    Wi-Fi's "Security: WPA2, password shown on the screen"; the policy's 密码长度不少于12位 came second)."""
    if any(hits[c.hit_index].document_id == hits[x.hit_index].document_id for x in chosen):
        return False
    lang = has_han(question)
    return all(has_han(t) == lang for t in (c.text, *(x.text for x in chosen)))


def _lighter_across(hits: list[Hit], c: Extract, chosen: list[Extract], covered: set[str],
                    weights: dict[str, float]) -> bool:
    """A line of another document, in the other language than the first quoted line, that adds less of what is
    asked than that line holds: padding ("2024年公司新招聘员工318人" for its 员工 beside "Accounts of leavers are
    disabled by the end of their last working day", which holds 离职, 账号 and 禁用 through their translations). A
    line adding more stays: the first line may be the look-alike ("Security: WPA2, password shown on the screen"
    before the policy's 密码长度不少于12位, ``_look_alike``)."""
    if any(hits[c.hit_index].document_id == hits[x.hit_index].document_id for x in chosen):
        return False
    if has_han(c.text) == has_han(chosen[0].text):
        return False
    adds = sum(weights.get(t, 0.0) for t in c.asked - covered)
    return adds < sum(weights.get(t, 0.0) for t in chosen[0].asked)


def pick_sentences(question: str, terms: list[str], weights: dict[str, float], hits: list[Hit],
                   max_sentences: int, max_passages: int = 5,
                   translations: dict[str, list[str]] | None = None, *, cfg: AnswerSettings,
                   documents: Collection[str] | None = None, complement: bool = False,
                   similarity: Similarity | None = None, linked: Collection[str] = (),
                   require_asked: bool = False, subjects: Collection[str] = (),
                   kind_first: bool = False) -> list[Extract]:
    """The best sentences of the best passages. ``translations`` (term → its words in the other
    language) let a sentence in the other language than the question match its terms; ``cfg`` holds
    the score's weights (``Settings.answer``). ``documents``: only passages of these documents (the
    question's subjects). ``complement``: a sentence after the first is quoted only when it holds
    something the question asks that the sentences before it do not — never a look-alike of the first
    (another project's code, another document's hours). ``linked``: documents the subject's own document
    names (a second hop): their best passages are read too, and a sentence of theirs that holds what the
    quoted ones lack follows them however it scores beside the subject's ("Knott … in the Lake District"
    → "It is located entirely within the county of Cumbria"). ``require_asked``: a sentence holding nothing the
    question asks beyond the words naming its document or its kind ("This judgment has been recorded … Riverside,
    Glenwood Court" for "who was the defendant?") is not quoted when another holds some — not for a chain of
    hops, whose first link names only its subject ("Privilege is an album by Ivor Cutler"). ``subjects``: the
    question's words naming its subjects (``Asked.subject``), to find the role the question gives a subject's
    name ("the defendants Q. Ruiz and M. Ward", "被告人张某某"): that role counts as the words naming a document
    do. Another subject's name is not discounted: a word of another document's title may be what is asked
    of this one ("足球运动员" in another player's title, "哪个国家运动员" of this one). ``kind_first``: when some
    sentence holds an answer of the kind asked, only such sentences are candidates, before the best of them is
    measured against the rest (a reader asked for each document's pulse keeps "Pulse: 90 bpm" however well the
    admission note beside it scores)."""
    translations = translations or {}
    kind = expected_kind(question)
    own_date = asks_document_date(question)  # 判决日期: the date the judgement signs off with
    # what a record says of a person by its value, in the line introducing them ("被告人：罗某，男，…，现无业。")
    by_value = [t for t in terms if is_stated_of_a_person(t)]
    people = withheld_names(question)
    summary = asks_for_summary(question)
    law = asks_law(question)
    candidates: list[Extract] = []
    allowed = [i for i, h in enumerate(hits) if documents is None or h.document_id in documents][:max_passages]
    allowed += [i for i, h in enumerate(hits) if h.document_id in linked and i not in allowed][:2]
    # the reply to a chat message of theirs that asks ("原因查到了吗？") is read with it: it holds the answer
    allowed += list(dict.fromkeys(k for i in allowed if _ASKING.search(hits[i].content)
                                  and (k := next_passage(hits, i)) is not None and k not in allowed
                                  and asked_before(hits, k)))
    known = " ".join(h.content for h in hits).lower()  # names the documents write (text.rivals)
    rivalled: set[str] = set()  # the items the question names that other rows' look-alikes were dropped for
    names = [hits[i].names() for i in allowed]
    subject = set(subjects) | {t for t in terms if any(t in n for n in names)}
    # a capitalised name of another subject ("Southport General Hospital" when reading Ashland's record) names a
    # document as the reader's own name does: "General Health Condition" is no answer to "what are the diagnoses"
    # and so is the role a withheld name is given ("patient 彭某某", "被告人罗某"), whatever names the documents
    naming = role_words(question, subject | people) | (set(subjects) & capitalised_words(question))
    by_name = naming_translations(question, translations)
    for idx in allowed:
        hit = hits[idx]
        units = sentence_units(hit)
        # Terms that name the passage's document ("Parker City Hospital", "星图计划") hold for every
        # sentence in it: what picks the sentence is the rest of the question.
        ask = asked_terms(hit, weights, cfg.subject_weight, naming, by_name)
        crumb = _flat(hit.breadcrumb)
        cont = continuation(hits, idx)
        asking = asked_before(hits, idx)  # the question this chat message answers: what it is about
        rows = hit.node_type in ("table", "list")
        statute = None if law else statute_start(hit.content)
        for i in range(len(units)):
            if not law and ((statute is not None and hit.content.find(units[i][:24]) >= statute)
                            or states_law(units[i])):
                continue  # the statute appended to a judgement says what the law provides, not what happened
            sent = _with_continuation(units, i, terms)
            if _flat(sent) in crumb or states_nothing(sent) or _ASKING.search(sent) or (summary and about_itself(sent)):
                # a line that only repeats its heading ("附表1 主要技术指标"), or only labels, states nothing; nor
                # does one that asks ("原因查到了吗？"): its reply may answer; nor, to a summary question, one that
                # says what its document covers ("This report summarises … significant events")
                continue
            if rows and (item := about_another(sent, question, known)):
                rivalled.add(item)
                continue  # the row of a look-alike item (设计岗's monitor for a question about 销售岗)
            # a sentence cut by a page break is judged whole: what it holds is what the answer will quote
            whole = f"{sent}{cont[1]}" if cont is not None and i == len(units) - 1 else sent
            low = f"{asking}\n{whole}".lower() if asking else whole.lower()
            matched = [t for t in terms if holds(low, t) or any(holds(low, x) for x in translations.get(t, ()))]
            cov = coverage(matched, ask) if terms else 0.0
            # what it asks of the document: not the words naming it, nor the kind of document ("judgment",
            # "判决书") — a line holding only those adds nothing to an answer, and its label is no answer's
            asked = frozenset(t for t in matched if _asks(t, ask, weights))
            # a line that answers in none of the asked words holds them: the line introducing 罗某 states
            # 罗某的职业 by its value ("现无业"); a judgement's own date ("二〇二二年十月二十五日" as it signs off)
            # holds every word of "判决日期", a birth date every word of "who is older"
            stated: list[str] | None = None
            labelled = False
            if by_value and _introduces(sent, people):
                stated = by_value
            elif (own_date and (dates_its_document(sent) or dates_its_document(whole))) or gives_age(sent, question):
                stated = [t for t in terms if _asks(t, ask, weights)]
            if stated is not None:
                matched = list(dict.fromkeys([*matched, *stated]))
                asked = frozenset(t for t in matched if _asks(t, ask, weights))
                cov = coverage(matched, ask) + cfg.label_bonus
                labelled = True
            elif any(holds(label.lower(), w) for label in value_labels(sent, rows, asked)
                     for t in asked for w in (t, *translations.get(t, ()))):
                # "Defendant: G. Torres", "主诉：…" — or "职业：…" for "occupation": the line that states what is asked
                cov += cfg.label_bonus
                labelled = True
            score = cfg.sentence_coverage_weight * cov + cfg.sentence_relevance_weight * hit.relevance
            # a place is no sign of the line that answers where (most lines name places): it is judged on the quoted
            # lines only, by the kinds gate and for ``high``. A chat message's time ("陈思源（16:40）：") is when it was
            # said, not an answer to when
            said = _SPEAKER.sub("", whole) if (hit.metadata or {}).get("speaker") else whole
            of_kind = kind not in ("thing", "place") and holds_kind_for(said, kind, question, asked, translations)
            if of_kind:
                score += cfg.kind_bonus
            if len(sent) < 4:
                score *= 0.5
            candidates.append(Extract(sent, idx, round(score, 4), asked, of_kind, frozenset(matched), labelled))
    if rivalled:
        # a table gives look-alike items this attribute (研发岗's, 设计岗's monitor): a line naming the item
        # itself (销售岗's laptop row) answers only when it, or its table's heading and caption, also holds
        # something else the question asks (住宿费限额标准 over the 一线城市 row)
        item_words = {t for t in terms if any(holds(item, t) for item in rivalled)}
        candidates = [c for c in candidates if (c.asked | _context_asked(hits[c.hit_index], terms, weights, cfg,
                                                                         naming, by_name)) - item_words]
    # a question naming a year is answered from a passage about that year: one whose heading path and text name
    # other years only ("2024年，…实现净利润1.27亿元" for "公司2023年的净利润") gives another year's figure
    asked_years = set(years_in(question)) if kind != "date" else set()  # "when will it be completed": a year ahead
    if asked_years:
        # and a sentence that names other years only is about them, in a passage about the year asked too: "2022年度
        # 公司曾向全体股东每10股派发现金红利1.8元" is no answer to 2023年度的分红方案
        candidates = [c for c in candidates if not about_other_years(
            f"{hits[c.hit_index].breadcrumb}\n{hits[c.hit_index].content}", asked_years)
            and not about_other_periods(c.text, asked_years)]
    if not candidates:
        return []
    if require_asked and any(c.asked for c in candidates):
        # a line giving an answer of the kind asked stays when the reader wants one (kind_first) and no line
        # giving one holds an asked word: "判处有期徒刑四年" for "判刑时间谁更长", beside "考虑了柳某某的犯罪时间…"
        # (时间) and "审判长：黄某某" (某某) — not beside "2022年8月1日，尹某被依法逮捕" for "逮捕日期"; and only a
        # value a line states for itself (a length of time, a date, an amount, a share), not a count or a
        # person, which any line may give ("年龄：80岁", "姓名：陈某某" for "蓝某某和陈某某的脉搏谁更快")
        bare = kind_first and kind in _BARE_KINDS and not any(c.asked and c.of_kind for c in candidates)
        kept = [c for c in candidates if c.asked or (bare and c.of_kind)]
        # and when some line holds a word that weighs in what is asked, not one holding only the words every line
        # of the document holds ("Pennybrook Fresh … ("the Company") was founded in 2012" for "what was the
        # Company's revenue in fiscal 2021?": "the Company" is asked, but weighs little)
        heaviest = [max((weights.get(t, 0.0) for t in c.asked), default=0.0) for c in kept]
        floor = cfg.salient_term_share * max(heaviest)
        candidates = [c for c, w in zip(kept, heaviest, strict=True) if w >= floor or not c.asked]
    # "最多支持多少个租户": the 租户 row, not "单个GPU最多可切分为7个实例", a count of something else — but a count the
    # reader makes by listing ("几项辅助检查") quotes the things listed, which need not name it
    counted = counted_noun(question) if kind == "number" and not counts_by_listing(question) else None
    if counted:
        counting = [c for c in candidates if _names_counted(c, hits[c.hit_index], counted, translations)]
        # of those, the ones that give a count: "the Company operated 538 stores", not the founding line's
        # "community fresh-food stores"
        candidates = [c for c in counting if c.of_kind] or counting or candidates
    if kind == "number" and (measure := counted_measure(question)):
        # "多少家门店": the line counting in 家 ("门店总数达到2,186家"), not the staff line's "每家门店配备…1.4名"
        candidates = [c for c in candidates if gives_measure(c.text, measure) or not has_han(c.text)] or candidates
    if not asks_target(question):
        # what was done, not what was aimed at: "全年组件出货量9.8GW", not "经营目标是全年组件出货量达到15GW以上"
        candidates = [c for c in candidates if not states_target(c.text)] or candidates
    # the answer must quote one: the lines that hold one — and when no line holds a word of what is asked
    # (判刑时间 of a judgement that writes 判处有期徒刑五年), the kind of answer is all that tells the line that
    # answers from the ones that only name the subject (its appeal notice). Not for a count the answer must hold:
    # any line holds some number ("伙食补助每天100元" before the 住宿费限额 table's row), so the gate judges the lines
    # the words chose — and refuses "how many employees" answered with the company's founding, not "six bases". Nor
    # for a length of time: "连续出差超过10天的" is no answer to "出差回来以后，多长时间内要提交报销", though it
    # holds one.
    must_quote = kind in cfg.quote_kinds
    if own_date and (dating := [c for c in candidates if dates_its_document(c.text)]):
        # asked when the judgement was given: the lines dating it ("**Judgment Issued on 20th March 2023**"), not an
        # incident's "15th January 2023: On this date, …", which holds the question's "date" too
        candidates = dating
    if any(c.of_kind for c in candidates) and (kind_first or must_quote or not any(c.asked for c in candidates)):
        candidates = [c for c in candidates if c.of_kind]
    candidates.sort(key=lambda e: (-e.score, e.hit_index))
    if similarity is not None and cfg.sentence_rerank and cfg.sentence_similarity_weight:
        candidates = _reranked(candidates, similarity, cfg)
    best = candidates[0].score
    chosen: list[Extract] = []
    seen: set[str] = set()
    covered: set[str] = set()
    one_value = not asks_several(question)
    listed = counts_by_listing(question)  # "几项辅助检查": the things counted are listed, from any passage
    for c in candidates:
        if complement and chosen and about_other_years(c.text, asked_years):
            continue  # "Looking ahead to 2022, … raise the share of online sales" beside fiscal 2021's share
        answered = any(x.of_kind for x in chosen)
        if complement and chosen and (not (c.asked - covered) or (
                answered and all(c.hit_index != x.hit_index for x in chosen) and (not c.of_kind or one_value))):
            # adds nothing the question asks beyond what is quoted already; or a quoted line gives the answer of the
            # kind asked (14 characters for 密码至少多少位, 750 for 住宿费) and this one, of another passage, gives
            # none: its words (an approval row's 要求) are not what was asked — or another value of that kind when
            # one was asked (the meal allowance's 100元 beside the hotel limit). Its own passage's lines (a table's
            # caption, a dashboard's title) tell what the answer is a value of. A linked document's line is no
            # exception: on multihop-dev-en its chain lines were mostly the wrong link (cited precision .664 with
            # the exception, .692 without; answer accuracy the same).
            continue
        bridge = hits[c.hit_index].document_id in linked
        if complement and chosen and one_value and not listed and not bridge and chosen[0].labelled and all(
                c.hit_index != x.hit_index for x in chosen):
            # the first line states the one value asked under its label ("过敏史：对青霉素过敏。", "辩护人: 康某某，
            # …律师"): another passage's line holding some other asked word (the defender's plea) adds a look-alike
            continue
        if complement and chosen and documents is None and one_value and not bridge and (
                _look_alike(question, hits, c, chosen) or _lighter_across(hits, c, chosen, covered, weights)):
            continue
        flat = re.sub(r"\s+", "", c.text)
        key = hits[c.hit_index].breadcrumb + "|" + flat
        if key in seen or (c.score < best * cfg.sentence_keep_share and not (bridge and chosen and c.asked - covered)):
            continue
        if any(x.hit_index == c.hit_index and (flat in re.sub(r"\s+", "", x.text) or re.sub(r"\s+", "", x.text) in flat)
               for x in chosen):
            continue  # a sentence of this passage already quoted, alone or with the line that introduces it
        chosen.append(c)
        seen.add(key)
        # what a quoted sentence holds is covered, though it only names its own document there: "core working
        # hours" in the handbook's "1.2 Core working hours" leaves no "working" for a price list's 工作日 to add
        covered |= c.asked | c.held
        if len(chosen) >= max_sentences:
            break
    return chosen


# Scores how close each of some sentences is in meaning to the question (calibrated 0–1): the services'
# embedder, bound to the question by the graph (``graph.nodes.answer.sentence_similarity``).
Similarity = Callable[[list[str]], list[float]]


def _reranked(candidates: list[Extract], similarity: Similarity, cfg: AnswerSettings) -> list[Extract]:
    """The best ``cfg.sentence_rerank`` sentences by their words, rescored with their similarity in meaning
    to the question ("whose sentencing time is longer" ↔ "sentenced to 12 years"): words find the place,
    meaning picks the sentence in it. One sentence's text is embedded once, however often it recurs."""
    head = candidates[: cfg.sentence_rerank]
    texts = list(dict.fromkeys(c.text for c in head))
    sims = dict(zip(texts, similarity(texts), strict=True))
    rescored = [replace(c, score=round(c.score + cfg.sentence_similarity_weight * sims[c.text], 4)) for c in head]
    return sorted(rescored, key=lambda e: (-e.score, e.hit_index)) + candidates[cfg.sentence_rerank:]


def _flat(text: str) -> str:
    """Text without markup, spaces and case, to compare a line with a heading path."""
    return re.sub(r"[\s*_`#]+", "", text).lower()


def table_cell(row: str, terms: list[str], question: str = "") -> str:
    """A table row rendered ``header: value | header: value`` narrowed to what the question asks:
    the row's first cell (what the row is about) and the cells whose header the question names
    ("Department: Marketing · Q3: 185,000") — and, when none of those gives the kind of answer the question asks,
    the cells that do ("车间那台激光切割机是谁管的？" names 车间, but 负责人: 赵敏 answers who). The whole row when no
    header is named."""
    cells = [c.strip() for c in row.split(" | ")]
    pairs = [_CELL.match(c) for c in cells]
    if len(cells) < 3 or not all(pairs):
        return row
    asked = [i for i, m in enumerate(pairs) if i > 0 and m and any(t in m.group(1).lower() for t in terms)]
    if not asked or len(asked) == len(cells) - 1:
        return row
    kind = expected_kind(question) if question else "thing"
    known = row.lower()

    def gives(i: int) -> bool:  # a cell's value of the kind asked; a Chinese person by jieba's name tags, not
        if kind == "person" and has_han(cells[i]):  # by a short value ("车间: 二车间")
            return bool(chinese_people(pairs[i].group(2)))
        return holds_kind_for(cells[i], kind, question, terms)

    def rival(i: int) -> bool:  # a look-alike of the column asked: 专业版's price when 企业版's is asked
        return rival_of(pairs[i].group(1).strip(), question, known) is not None

    if kind in (*VALUE_KINDS, "person") and not any(gives(i) for i in asked):
        asked = sorted({*asked, *(i for i in range(1, len(cells)) if not rival(i) and gives(i))})
    return " · ".join(cells[i] for i in [0, *asked])
