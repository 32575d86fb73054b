"""What kind of question is this? (offline, from the wording alone; Chinese and English)

The planner's strategy table (seed 001) keys on it: chapter/outline questions go to
the document structure, "which page" to a section's page, "V2.0 compared with V1.0"
to both versions, "the owner of X … their score" to a bridge entity (multi-hop),
"which/compare … across documents" to a per-document fan-out. Everything else is a
fact question, answered by the fast path unless its evidence is too weak.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dropqa.text.headings import chapter_named, cn_number
from dropqa.text.segment import query_terms

Kind = Literal["fact", "structure", "page", "multi_hop", "compare_versions", "aggregate", "locate"]

_QUOTED = re.compile(r"[“\"「『']([^”\"」』']{2,40})[”\"」』']")
_VERSION = re.compile(r"(?i)(?<![a-z])v(?:ersion)?\s*(\d+)(?:\.\d+)*|第([一二三四五六七八九十\d]+)版|(\d+)\.0\s*版")
_LATEST = re.compile(r"(?i)现行|最新|目前|当前|current|latest|now in force")
_OLD = re.compile(r"(?i)旧版|上一版|原版|以前的版本|previous version|old version")
_CHANGE = re.compile(r"(?i)相比|对比|比较|变化|变动|区别|不同|调整|改了|changed?|differ|compared|versus|\bvs\b")
_PAGE = re.compile(r"(?i)第几页|哪一页|哪页|多少页|what page|which page|on page")
_STRUCTURE = re.compile(
    r"(?i)(哪些|什么)(内容|章节|部分|方面|条款)|讲了(什么|哪些)|主要内容|目录|大纲|结构|章节|"
    r"what (sections|chapters|parts)|which (sections|chapters)|outline|table of contents|"
    r"what does .{0,40}(chapter|section|part) \d+ (say|cover)|structure of"
)
# "Which section says …?": the answer is a place in a document, not a fact from it.
_LOCATE = re.compile(
    r"(?i)(哪一|哪个|哪)(章|节|条规定|条款|款|部分|段落|个章节|个部分)|在(哪里|什么地方)(规定|提到|说明|写)|"
    r"\b(which|what) (section|chapter|part|clause|article|paragraph)\b(?! \d)|\bwhere in (the|this)\b|"
    r"\bwhere (is|are|does)\b.{0,60}\b(described|defined|specified|mentioned|covered|stated|regulated)\b"
)
_ROLE = re.compile(
    r"(?i)(项目负责人|负责人|项目经理|牵头人|主管|负责[^，。？?]{1,15}?的(?:人|同事|员工)|"
    r"\b(owner|lead|leader|manager|head|in charge)\b)"
)
_AFTER_ROLE = re.compile(r"(?i)(的|在|还|其他|另外|得了|得分|等级|绩效|哪些|also|other|score|rating|grade|and)")
_AGGREGATE = re.compile(
    r"(?i)哪些(项目|文档|部门|人)|分别|各自|列出|所有|比较|对比|compare|which (projects|documents)|list all"
)


@dataclass
class Intent:
    kind: Kind = "fact"
    version: int | None = None  # the version the question asks about (None: latest)
    versions: list[int] = field(default_factory=list)  # compare_versions: the versions named, newest first
    chapter: int | None = None  # "第3章" → 3
    quoted: list[str] = field(default_factory=list)  # “容器化改造” → a section or phrase to find verbatim
    role: str | None = None  # multi-hop: the role that links the hops ("负责人")
    first_hop: str = ""  # multi-hop: the part of the question that names the bridge entity
    rest: str = ""  # multi-hop: what is asked about the bridge entity
    aggregate: bool = False  # the answer gathers several documents' statements
    parts: list[dict[str, Any]] = field(default_factory=list)  # answering.parts.Part dicts: searched one by one
    named: list[str] = field(default_factory=list)  # ids of the documents the question names (its subjects)
    about: list[str] = field(default_factory=list)  # ``named`` and the documents that write the subject out
    linked: list[str] = field(default_factory=list)  # documents the subject's names, searched for what it lacks

    @property
    def needs_loop(self) -> bool:
        return self.kind not in ("fact", "locate")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Intent:
        return cls(**data) if data else cls()


def versions_named(question: str) -> list[int]:
    out: list[int] = []
    for m in _VERSION.finditer(question):
        raw = next(g for g in m.groups() if g)
        n = cn_number(raw)
        if n and n not in out:
            out.append(n)
    return out


def classify(question: str, explicit_version: int | None = None) -> Intent:
    q = question.strip()
    intent = Intent(quoted=[m.group(1).strip() for m in _QUOTED.finditer(q)])
    named = versions_named(q)
    if explicit_version is not None:
        intent.version = explicit_version
    elif len(named) == 1 and not _LATEST.search(q):
        intent.version = named[0]
    elif _OLD.search(q) and not named:
        intent.version = 1
    if (len(named) >= 2 or (_OLD.search(q) and _CHANGE.search(q))) and _CHANGE.search(q):
        intent.kind = "compare_versions"
        intent.versions = sorted(set(named) or {1}, reverse=True)
        intent.version = None
        return intent
    chapter = chapter_named(q)
    if chapter is not None:
        intent.chapter = chapter
    if _PAGE.search(q):
        intent.kind = "page"
        return intent
    if _LOCATE.search(q) and chapter is None:
        intent.kind = "locate"
        return intent
    if chapter is not None or _STRUCTURE.search(q):
        intent.kind = "structure"
        return intent
    role = _ROLE.search(q)
    if role:
        after = q[role.end():]
        if _AFTER_ROLE.search(after) and len(query_terms(after)) >= 1:
            intent.kind = "multi_hop"
            intent.role = role.group(0)
            intent.first_hop = q[: role.end()]
            intent.rest = after
            intent.aggregate = bool(_AGGREGATE.search(after))
            return intent
    if _AGGREGATE.search(q):
        intent.kind = "aggregate"
        intent.aggregate = True
    return intent
