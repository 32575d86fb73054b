"""What a document is about, by name: the names a question would call it by, found in its text.

A folder of ``112_judgement.md`` and ``公司年报_农业_1.txt`` names nothing; the text does: its title,
its first heading, the court or hospital and the person in its opening lines, the company whose
report it is. :func:`document_subjects` reads the document's opening (title, first headings, the
first few thousand characters) and its whole text (how often a name recurs), and returns the few
names that best say what the document is about:

- **labelled values** in the opening — ``Court: …``, ``Hospital Name: …``, ``Name: …``,
  ``法院：…``, ``公司名称：…``, ``患者：…`` — the strongest evidence;
- **the title and first heading lines** when they are short and not generic (``Criminal Judgment``,
  ``住院病历`` name a kind of document, not this one);
- **names in the opening**: capitalised phrases (``Riverside, Glenwood, Court``, ``E. Cruz``,
  ``Kestrel Payments Gateway``) and Chinese organisation, place and person names — jieba's proper
  nouns, and words ending in 公司, 集团, 法院, 医院, 银行… — that recur in the whole text.

No model is involved; the same function runs at indexing and, for a version indexed before
subjects existed, on its stored text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from dropqa.text.entities import PROPER, chinese_names, word_frequency
from dropqa.text.segment import has_han, segment_words

OPENING_CHARS = 3000  # the part of a document whose names say what it is about
MAX_SUBJECTS = 8
_NAME_CHARS = 60

# Labels whose value names the document's subject (court, hospital, patient, company, product, …).
_LABELS = (
    r"court|hospital(?: name)?|patient(?: name)?|name|defendant|plaintiff|company(?: name)?|organi[sz]ation|"
    r"project(?: name)?|product(?: name)?|customer|client|vendor|supplier|party [ab]|employer|entity|"
    r"法院|审判机关|医院(?:名称)?|姓名|患者(?:姓名)?|被告人?|原告|公司(?:名称|全称)?|企业(?:名称)?|单位(?:名称)?|"
    r"项目(?:名称)?|产品(?:名称)?|客户|甲方|乙方|供应商|发布单位|编制单位"
)
_LABELLED = re.compile(rf"^[\s>*#\-•·]*\**\s*(?:{_LABELS})\s*\**\s*[:：]\s*\**\s*(?P<value>[^\n]{{2,{_NAME_CHARS}}})",
                       re.I | re.M)
# A capitalised phrase: words starting upper-case (or initials like "E."), joined by spaces, commas,
# "of", "and", "&" — "Riverside, Glenwood, Court", "Bank of Ningbo", "E. Cruz".
_CAPITALISED = re.compile(
    r"(?<![\w.])(?:[A-Z][\w&'’\-]*\.?|[A-Z]\.)(?:(?:,?[ \t]+|[ \t]+(?:of|and|the|&|for|de)[ \t]+)"
    r"(?:[A-Z][\w&'’\-]*\.?|[A-Z]\.))*"
)
# An organisation's full name: Han characters that are not function words, ending in 公司, 法院, 医院…
_SUFFIXES = "|".join((
    "股份有限公司", "有限责任公司", "有限公司", "集团", "公司", "人民法院", "法院", "人民检察院", "检察院", "医院",
    "保健院", "卫生院", "银行", "大学", "学院", "研究院", "研究所", "委员会", "管理局", "事务所"))
_NOT_IN_NAMES = "的了在是为于与和及或将已本该此其对向从被把等自由至之以而并各每某若如"
_ORG_SUFFIX = re.compile(rf"[^\W\d_a-zA-Z{_NOT_IN_NAMES}]{{2,14}}(?:{_SUFFIXES})")
# A name the text defines as what it will call its subject: "禾润农业发展股份有限公司（以下简称“禾润农业”或“公司”）",
# "Ashgrove Packaging Group plc (the "Company")" — a plain report's own subject, however seldom the full name recurs.
_DEFINED = re.compile(r"(?:\s+(?:plc|ltd\.?|limited|inc\.?|llc|gmbh|ag|s\.a\.))?\s*[（(]\s*"
                      r"(?:以下简称|以下称|下称|简称|hereinafter|the\s+[\"“]?(?:company|group)\b|(?=[\"“][^”\"]{2,30}[”\"]\s*(?:or\b|,|\))))"
                      r"(?:\s*[:：为]?\s*[“\"](?P<alias>[^”\"]{2,12})[”\"])?", re.I)
# The other name a text gives its subject in its opening, outside brackets: "南宁市第二中学，简称南宁二中。",
# "宏都阿里山国际开发股份有限公司，简称宏都阿里山公司", "Port Elizabeth Airport, also known as …"
_ALIAS = re.compile(r"[，,]\s*(?:简称|又称|通称|俗称|别称|亦称|也称)\s*[为作:：]?\s*[“\"「]?"
                    r"(?P<alias>[\u4e00-\u9fffA-Za-z0-9·-]{2,12}?)[”\"」]?(?=[，,。；;、）)\s]|$)|"
                    r"\b(?:commonly|also|better|formerly) known as\s+(?:the\s+)?[\"“]?"
                    r"(?P<alias_en>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,4})")
_CN = "一二三四五六七八九十"
# a heading's numbering ("第3章", "三、", "3.2", "1."), not a year opening its name ("2022 Winter Olympics")
_NOT_YEAR = r"(?!(?:19|20)\d\d(?![\d.]))"
_NUMBERING = re.compile(
    rf"^(?:第[{_CN}百\d]+[章节篇部条]|[{_CN}]+[、.．]|[（(][{_CN}\d]+[)）]|{_NOT_YEAR}\d+(?:\.\d+)*[.、．]?)\s*")
_ORDER_PREFIX = re.compile(rf"^{_NOT_YEAR}\d+[_\-\s.]*")  # "112_judgement", "01-intro"
# The names of months, and with the days of the week the capitalised words that name a time, not a thing (a heading's
# "March 2024", a passage's "born October 24, 1972").
MONTHS = frozenset((
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december"))
TIMES = MONTHS | frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
_COMMON_WORD_FREQ = 100  # a Chinese word jieba's dictionary counts this often is a word, not a subject's name
# Chinese person names written with 某 (尹某, 蓝某某), as anonymised records do.
_MOU = re.compile(r"[\u4e00-\u9fff]某{1,2}")
# Words that name a kind of document or a generic heading, not a subject.
_GENERIC = frozenset("""
criminal judgment judgement document record records hospitalization hospitalisation report annual summary
introduction overview contents table of the a an and basic information case court procedures contract agreement
policy handbook manual guide notes minutes meeting runbook appendix section chapter part page draft final
mr ms mrs dr hon honourable honorable in on at by for to from with this that these those it its
""".split())  # noqa: SIM905
_KINDS_EN = frozenset((
    "judgment", "judgement", "judgments", "document", "documents", "record", "records", "hospitalization",
    "hospitalisation", "report", "reports", "contract", "agreement", "policy", "handbook", "manual", "guide",
    "minutes", "runbook", "annual"))  # "annual" of "the annual report": its kind, no part of what is asked
_KINDS_ZH = frozenset(("判决书", "判决", "病历", "住院", "住院病历", "报告", "年报", "纪要", "合同", "协议", "制度",
                       "手册", "指南", "记录", "文件", "文档"))
_GENERIC_ZH = (
    "判决书", "刑事判决书", "住院病历", "病历", "年度报告", "年报", "报告", "纪要", "会议纪要", "合同", "协议",
    "制度", "规定", "办法", "手册", "指南", "说明", "目录", "附录", "基本信息", "摘要", "概述", "前言")


# A withheld name's placeholder ("彭某某", "纪某某" in a published judgement or record): every anonymised
# person's name holds it, so it names no one, and it is never what a question asks.
_PLACEHOLDERS = frozenset({"某某", "某"})


def is_placeholder(term: str) -> bool:
    """``term`` stands for a withheld name (某某, 某)."""
    return term in _PLACEHOLDERS


# What a record states of a person by its value alone, never by name: "谈某，男，1967年11月19日出生，汉族，个体经营户，
# 住所…" gives sex, ethnicity, occupation and address; "J. Smith, 45, a plumber" age and occupation; and a name one
# goes by, by a phrase. That a document never writes the word is no sign it lacks the fact.
_OF_A_PERSON = frozenset((
    "职业", "工作", "年龄", "岁数", "性别", "民族", "籍贯", "住址", "住所", "学历", "文化程度", "国籍",
    "occupation", "occupations", "job", "profession", "age", "gender", "sex", "ethnicity", "nationality",
    "address", "education"))
# a name a person or thing goes by is given by a phrase, not the word: "Louis V, also known as Louis the
# Do-Nothing", "人称…", "又称…"; and a post by its holder's title: "Daniel Okafor, Chief Operating Officer" is
# the job title asked, "Chair: Daniel Okafor" the role
_BY_VALUE = _OF_A_PERSON | frozenset((
    "nickname", "nicknames", "nicknamed", "alias", "绰号", "外号", "昵称", "别号", "诨名",
    "title", "titles", "position", "role", "职位", "职务", "头衔"))
# A withheld name: a surname and 某 — not a word that only joins ("的某某", "和某某") nor 某 itself.
_WITHHELD = re.compile(r"(?![的和与及是在为某])[\u4e00-\u9fff]某{1,2}")


def is_stated_by_value(term: str) -> bool:
    """``term`` asks for something a record states of a person by its value, without the word (职业, age), or a
    name something goes by (nickname)."""
    return term in _BY_VALUE


def is_stated_of_a_person(term: str) -> bool:
    """:func:`is_stated_by_value`, of the facts a record introducing a person states (职业, 年龄, 籍贯): not a
    name, which goes by a phrase ("also known as")."""
    return term in _OF_A_PERSON


def withheld_names(text: str) -> set[str]:
    """The withheld names ``text`` writes (罗某, 彭某某)."""
    return {m.group() for m in _WITHHELD.finditer(text)}


def is_document_kind(term: str) -> bool:
    """Does ``term`` name a kind of document ("judgment", "records", "判决书", "病历") rather than something
    asked of one?"""
    return term in _KINDS_EN or term in _KINDS_ZH


def file_stem_name(filename: str) -> str:
    """A file's name as a name: its stem without a leading ordering number, underscores as spaces
    ("191_Clarksville General Hospital_O. Myers.md" → "Clarksville General Hospital O. Myers"); a year opening it
    is part of the name ("2022-winter-olympics.md", "2024年度绩效考核.xlsx")."""
    stem = filename.rsplit(".", 1)[0] if "." in filename.rsplit("/", 1)[-1] else filename
    return _ORDER_PREFIX.sub("", stem.replace("_", " ")).strip()


_EDGES = " \t:：,，;；.。、-—\"'“”"
_PAIRS = {")": "(", "）": "（"}


def _clean(name: str) -> str:
    """``name`` without markup, spaces and punctuation at its edges, and brackets that close or open nothing
    there — those of a title's qualifier stay whole: "Harbor Lights (season 1)", not "… (season 1"."""
    name = re.sub(r"[*_`#>\[\]\\]+", "", name).strip(_EDGES)
    while name:
        if name[0] in "(（" and name.count(name[0]) > name.count(")" if name[0] == "(" else "）"):
            name = name[1:].strip(_EDGES)
        elif name[-1] in _PAIRS and name.count(name[-1]) > name.count(_PAIRS[name[-1]]):
            name = name[:-1].strip(_EDGES)
        elif name[0] in "(（" and name[-1] in _PAIRS and name.count(name[0]) == 1:  # "(draft)": all bracketed
            name = name[1:-1].strip(_EDGES)
        else:
            break
    return re.sub(r"\s+", " ", name)


def is_generic_name(name: str) -> bool:
    """A heading that names a kind of document, not what the document is about (:func:`_generic`)."""
    return _generic(name)


def _generic(name: str) -> bool:
    """A heading or value that names a kind of document ("Criminal Judgment", "住院病历"), a date or a
    number, or a title cut short ("Hospitalization Re…"), not a subject."""
    if not name or name.replace(" ", "").isdigit() or len(name) < 2 or name.endswith(("…", "...")):
        return True
    if has_han(name):
        core = re.sub(r"[\s\d：:]+", "", name)
        return not core or any(core == g or (core.endswith(g) and len(core) <= len(g) + 2) for g in _GENERIC_ZH)
    words = re.findall(r"[a-z]+", name.lower())
    return not words or all(w in _GENERIC for w in words)


def _english_names(text: str) -> list[str]:
    """Capitalised phrases of two or more words ("Riverside, Glenwood, Court", "E. Cruz"), and single words
    with a digit ("Falcon-03") — a lone capitalised word in running text is as often a sentence's first
    word ("Enlarged", "Underwent") as a name."""
    out = []
    for m in _CAPITALISED.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if re.match(r"\**\s*[:：]", text[m.end():m.end() + 4]) or _clean(line) == _clean(m.group(0)):
            continue  # a label ("Marital Status:") or a heading line ("Chief Complaint"), not a name
        words = m.group(0).replace(",", " ").split()
        while words and (words[0].lower().rstrip(".") in _GENERIC or words[0].lower() in TIMES):
            words = words[1:]
        if not words:
            continue
        name = _clean(m.group(0)[m.group(0).find(words[0]):])
        name = re.sub(r"['’]s$", "", name)
        single_name = len(name) >= 4 and not _generic(name) and bool(re.search(r"\d", name))
        if len(words) >= 2 or single_name:
            out.append(name)
    return out


def _chinese_names(text: str) -> list[str]:
    """Organisations by their suffix (…公司, …法院, …医院), anonymised people (尹某, 蓝某某), and jieba's proper
    nouns that its dictionary does not know as common words."""
    found = [m.group(0) for m in _ORG_SUFFIX.finditer(text) if _named_org(m.group(0), text)]
    found += [m.group(0) for m in _MOU.finditer(text)]
    found += [w for w in chinese_names(text, PROPER) if word_frequency(w) < _COMMON_WORD_FREQ
              and (not re.search(f"(?:{_SUFFIXES})$", w) or _named_org(w, text))]
    return [n for n in found if not _generic(n)]


def _named_org(name: str, text: str) -> bool:
    """An organisation's name rather than a phrase that ends in 公司 ("上市公司", "提交公司"): a word of its
    own before the suffix that the dictionary does not know as a common word."""
    prefix = re.sub(rf"(?:{_SUFFIXES})$", "", name)
    words = [w for w in segment_words(prefix) if len(w) >= 2]
    return len(prefix) >= 2 and any(word_frequency(w) < _COMMON_WORD_FREQ for w in words)


def _heading_lines(headings: Iterable[str]) -> list[str]:
    """Short, non-generic titles and headings, split at a "：" ("霜叶市第一人民医院：喻某某")."""
    out = []
    for heading in headings:
        for part in re.split(r"[:：|]|\s[—–-]\s", heading or ""):
            name = _clean(_NUMBERING.sub("", part.strip()))
            if 2 <= len(name) <= _NAME_CHARS and not _generic(name):
                out.append(name)
    return out


def document_subjects(headings: Iterable[str], opening: str, text: str = "") -> list[str]:
    """The names that say what a document is about, best first (at most :data:`MAX_SUBJECTS`).

    ``headings``: its file name and title or first heading (later headings are its structure, not its
    subject: "Chief Complaint"); ``opening``: its first characters (about
    :data:`OPENING_CHARS`); ``text``: as much of the whole text as is at hand (how often a name recurs)."""
    opening = opening[:OPENING_CHARS]
    whole = text or opening
    scores: Counter[str] = Counter()
    first_seen: dict[str, int] = {}

    def add(name: str, weight: float) -> None:
        name = _clean(name)
        if not (2 <= len(name) <= _NAME_CHARS) or _generic(name) or "|" in name:
            return  # "王磊 | 预算": a table's cells, not a name
        key = name.lower()
        scores[key] += weight
        first_seen.setdefault(key, len(first_seen))
        shown.setdefault(key, name)

    shown: dict[str, str] = {}
    for i, name in enumerate(_heading_lines(headings)):
        add(name, 3.0 if i == 0 else 2.0)
    for m in _LABELLED.finditer(opening):
        value = re.split(r"[，;；。(（]|\s{2,}", m.group("value"))[0]
        add(re.split(r"[:：]", value)[-1], 3.0)  # "Defendant: Name: N. Adams" → N. Adams
    names = _chinese_names(opening) if has_han(opening) else _english_names(opening)
    counts = Counter(n.lower() for n in names)
    lowered = whole.lower()
    for name in dict.fromkeys(names):
        recurs = lowered.count(name.lower())
        add(name, 0.3 * counts[name.lower()] + min(recurs, 10) * 0.15)
        for m in re.finditer(re.escape(name), opening):
            if defined := _DEFINED.match(opening, m.end()):  # the name the text calls its subject, and its alias
                add(name, 3.0)
                if defined.group("alias") and not _generic(defined.group("alias")):
                    add(defined.group("alias"), 2.0)
                break
    for m in _ALIAS.finditer(opening):  # "南宁市第二中学，简称南宁二中": the name it goes by, as its text says
        add(m.group("alias") or m.group("alias_en"), 2.0)
    ranked = sorted(scores, key=lambda k: (-scores[k], first_seen[k]))
    out: list[str] = []
    for key in ranked:
        if any(key in o.lower() for o in out):  # "Cruz" beside "E. Cruz"
            continue
        out.append(shown[key])
        if len(out) >= MAX_SUBJECTS:
            break
    return out
