"""Load and validate a golden suite (YAML), the format of ``shared/samples/golden.yaml``.

A suite is a list of items::

    - id: a-core-db-rto                 # unique slug
      question: 核心数据库服务的RTO是多少？
      answers: [30分钟]                  # [] for no-answer items and long-form (summary) answers
      evidence:                          # [] for no-answer items
      - {document: 白皮书.pdf, section: 3.2 备份策略, contains: RTO不超过30分钟, page: 3}
      type: single_hop                   # see TYPES
      language: zh                       # zh | en
      version: null                      # null or N (1 = base file, N = STEM_vN.EXT)
      ocr: false                         # optional
      notes: ...                         # optional

Every problem is reported (not just the first) as ``FILE:LINE: item I (id X): key K: message``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

TYPES = frozenset({
    "single_hop", "multi_hop", "no_answer", "contradiction", "table", "sheet_title", "ocr", "structure",
    "version", "cross_language", "appendix", "unstructured", "comparison", "summary",
})
LANGUAGES = frozenset({"zh", "en"})
ITEM_KEYS = {"id", "question", "answers", "evidence", "type", "language", "version"}
OPTIONAL_ITEM_KEYS = {"ocr", "notes", "corpus"}
EVIDENCE_KEYS = {"document", "section", "contains"}
OPTIONAL_EVIDENCE_KEYS = {"page"}


class SuiteError(ValueError):
    """The suite file is not valid; ``problems`` lists every message."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the golden suite:\n  " + "\n  ".join(problems))


@dataclass(frozen=True)
class Evidence:
    document: str
    section: str | None
    contains: str
    page: int | None = None


@dataclass(frozen=True)
class EvalItem:
    id: str
    question: str
    answers: list[str]
    evidence: list[Evidence]
    type: str
    language: str
    version: int | None = None
    ocr: bool = False
    notes: str | None = None
    line: int | None = field(default=None, compare=False)

    @property
    def no_answer(self) -> bool:
        """No-answer item: typed ``no_answer`` or without evidence (the scorer's rule)."""
        return self.type == "no_answer" or not self.evidence

    @property
    def multi_evidence(self) -> bool:
        return len(self.evidence) > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "question": self.question, "answers": list(self.answers),
            "evidence": [{"document": e.document, "section": e.section, "contains": e.contains, "page": e.page}
                         for e in self.evidence],
            "type": self.type, "language": self.language, "version": self.version, "ocr": self.ocr,
            "notes": self.notes,
        }


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _key_node(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node for ``key`` in a mapping node (falls back to the mapping itself)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == key:
                return v
    return node


def _is_text(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


class _Checker:
    def __init__(self, source: str):
        self.source = source
        self.problems: list[str] = []

    def add(self, node: yaml.Node | None, where: str, msg: str) -> None:
        line = _line(node)
        self.problems.append(f"{self.source}:{line}: {where}: {msg}" if line else f"{self.source}: {where}: {msg}")


def parse_suite(text: str, source: str = "<suite>") -> list[EvalItem]:
    """Validate YAML text and return the items; raise :class:`SuiteError` listing all problems."""
    chk = _Checker(source)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        raise SuiteError([f"{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}"]) from exc
    if not isinstance(data, list) or not isinstance(root, yaml.SequenceNode):
        raise SuiteError([f"{source}: the suite must be a YAML list of items, got {type(data).__name__}"])
    items: list[EvalItem] = []
    seen: dict[str, int] = {}
    for i, (raw, node) in enumerate(zip(data, root.value, strict=True)):
        item = _check_item(chk, i, raw, node, seen)
        if item is not None:
            items.append(item)
    if chk.problems:
        raise SuiteError(chk.problems)
    if not items:
        raise SuiteError([f"{source}: the suite has no items"])
    return items


def load_suite(path: Path | str) -> list[EvalItem]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteError([f"{path}: cannot read the suite: {exc.strerror or exc}"]) from exc
    return parse_suite(text, str(path))


def _check_item(chk: _Checker, i: int, raw: Any, node: yaml.Node, seen: dict[str, int]) -> EvalItem | None:
    if not isinstance(raw, dict):
        chk.add(node, f"item {i}", f"must be a mapping with keys {sorted(ITEM_KEYS)}, got {type(raw).__name__}")
        return None
    ident = raw.get("id")
    where = f"item {i} (id {ident!r})" if ident is not None else f"item {i}"
    n_before = len(chk.problems)

    def bad(key: str, msg: str) -> None:
        chk.add(_key_node(node, key), f"{where}: key {key!r}", msg)

    for key in sorted(ITEM_KEYS - raw.keys()):
        chk.add(node, f"{where}: key {key!r}", "is missing")
    for key in sorted(raw.keys() - ITEM_KEYS - OPTIONAL_ITEM_KEYS, key=str):
        chk.add(_key_node(node, key), f"{where}: key {key!r}",
                f"unknown key (allowed: {sorted(ITEM_KEYS | OPTIONAL_ITEM_KEYS)})")
    if "id" in raw:
        if not _is_text(ident):
            bad("id", "must be a non-empty string")
        elif ident in seen:
            bad("id", f"duplicate id (also item {seen[ident]})")
        else:
            seen[ident] = i
    if "question" in raw and not _is_text(raw["question"]):
        bad("question", "must be a non-empty string")
    answers = raw.get("answers")
    if "answers" in raw:
        if not isinstance(answers, list):
            bad("answers", "must be a list of strings ([] for a no-answer item)")
            answers = None
        elif any(isinstance(a, bool) or not isinstance(a, str | int | float) or not str(a).strip()
                 for a in answers):
            bad("answers", "every answer must be a non-empty string")
            answers = None
    qtype = raw.get("type")
    if "type" in raw and qtype not in TYPES:
        bad("type", f"{qtype!r} is not one of {sorted(TYPES)}")
    if "language" in raw and raw["language"] not in LANGUAGES:
        bad("language", f"{raw['language']!r} is not one of {sorted(LANGUAGES)}")
    version = raw.get("version")
    if "version" in raw and version is not None and (isinstance(version, bool) or not isinstance(version, int)
                                                       or version < 1):
        bad("version", f"must be null or an integer >= 1, got {version!r}")
    if "ocr" in raw and not isinstance(raw["ocr"], bool):
        bad("ocr", f"must be true or false, got {raw['ocr']!r}")
    if raw.get("notes") is not None and not isinstance(raw["notes"], str):
        bad("notes", "must be a string")
    evidence = _check_evidence(chk, where, raw.get("evidence"), _key_node(node, "evidence")) \
        if "evidence" in raw else None
    if answers is not None and evidence is not None and qtype in TYPES:
        if qtype == "no_answer" and (answers or evidence):
            bad("answers" if answers else "evidence", "a no_answer item must have answers: [] and evidence: []")
        elif qtype != "no_answer" and not evidence:
            bad("evidence", f"is empty but type is {qtype!r}; answerable items need at least one evidence")
    if len(chk.problems) > n_before:
        return None
    return EvalItem(
        id=ident, question=raw["question"].strip(), answers=[str(a) for a in answers or []],
        evidence=evidence or [], type=qtype, language=raw["language"], version=version,
        ocr=bool(raw.get("ocr", False)), notes=raw.get("notes"), line=_line(node),
    )


def _check_evidence(chk: _Checker, where: str, raw: Any, node: yaml.Node | None) -> list[Evidence] | None:
    if not isinstance(raw, list):
        chk.add(node, f"{where}: key 'evidence'", "must be a list of {document, section, contains, page?}")
        return None
    out: list[Evidence] = []
    ok = True
    for j, ev in enumerate(raw):
        ev_node = node.value[j] if isinstance(node, yaml.SequenceNode) and j < len(node.value) else node
        ew = f"{where}: evidence {j}"
        if not isinstance(ev, dict):
            chk.add(ev_node, ew, "must be a mapping with keys document, section, contains (page optional)")
            ok = False
            continue
        before = len(chk.problems)
        for key in sorted(EVIDENCE_KEYS - ev.keys()):
            chk.add(ev_node, f"{ew}: key {key!r}", "is missing" + (" (use section: null)" if key == "section" else ""))
        for key in sorted(ev.keys() - EVIDENCE_KEYS - OPTIONAL_EVIDENCE_KEYS, key=str):
            chk.add(_key_node(ev_node, key), f"{ew}: key {key!r}",
                    f"unknown key (allowed: {sorted(EVIDENCE_KEYS | OPTIONAL_EVIDENCE_KEYS)})")
        if "document" in ev and not _is_text(ev["document"]):
            chk.add(_key_node(ev_node, "document"), f"{ew}: key 'document'", "must be a file name")
        if ev.get("section") is not None and not _is_text(ev["section"]):
            chk.add(_key_node(ev_node, "section"), f"{ew}: key 'section'", "must be a heading string or null")
        if "contains" in ev and not (_is_text(ev["contains"]) or isinstance(ev["contains"], int | float)):
            chk.add(_key_node(ev_node, "contains"), f"{ew}: key 'contains'", "must be a non-empty string")
        page = ev.get("page")
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
            chk.add(_key_node(ev_node, "page"), f"{ew}: key 'page'", f"must be an integer >= 1, got {page!r}")
        if len(chk.problems) > before:
            ok = False
            continue
        out.append(Evidence(document=ev["document"].strip(),
                            section=ev["section"].strip() if ev.get("section") else None,
                            contains=str(ev["contains"]), page=page))
    return out if ok else None


def select(items: list[EvalItem], *, types: list[str] | None = None, limit: int | None = None) -> list[EvalItem]:
    """Keep the given types (in suite order), then the first ``limit`` items — like score_golden."""
    if types:
        unknown = set(types) - TYPES
        if unknown:
            raise SuiteError([f"--types: unknown type(s) {sorted(unknown)}; known: {sorted(TYPES)}"])
        items = [it for it in items if it.type in set(types)]
    if limit:
        items = items[:limit]
    return items
