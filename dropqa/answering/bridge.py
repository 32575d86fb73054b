"""Multi-hop: find the bridge entity (usually a person) that the first hop's passages name.

"负责容器化改造的人在2024年度绩效考核中得了多少分？" — the first hop's passage says
"由基础设施部王磊负责", so the second hop searches for 王磊. The entity is taken
from sentences that mention both the role and the first hop's subject: by pattern
("负责人：林晓峰", "由…王磊负责", "owner: Jane Doe"), else by jieba's part-of-speech
tags (``nr`` = person name).
"""

from __future__ import annotations

import re
from collections import Counter

from dropqa.retrieval.hits import Hit
from dropqa.text.entities import PERSON, chinese_names
from dropqa.text.segment import query_terms
from dropqa.text.sentences import split_sentences

_NAME = r"([\u4e00-\u9fff]{2,3}|[A-Z][a-z]+(?: [A-Z][a-z]+){0,2})"
_PATTERNS = [
    re.compile(rf"(?:负责人|项目经理|牵头人|主管|owner|lead|manager)\s*[:：]\s*{_NAME}", re.I),
    re.compile(rf"由(?:[\u4e00-\u9fff]{{1,8}}?部)?{_NAME}(?:负责|牵头|主导)"),
    re.compile(rf"{_NAME}(?:负责|牵头|主导)"),
    re.compile(rf"(?:led|owned|managed) by {_NAME}", re.I),
]
_NOT_NAMES = {"项目", "部门", "公司", "团队", "基础", "设施", "负责", "平台", "我们", "他们", "主要", "全面", "统一",
              "共同", "具体", "分别", "研发", "产品", "技术", "运维", "数据", "中心"}
_ROLE_WORDS = ("负责", "牵头", "主导", "项目经理", "owner", "lead", "manager")


def _plausible(name: str) -> bool:
    return name not in _NOT_NAMES and not any(w in name for w in ("负责", "部", "项目", "计划"))


def _person_names(sentence: str) -> list[str]:
    return [w for w in chinese_names(sentence, PERSON) if _plausible(w)]


def bridge_entities(first_hop: str, hits: list[Hit], *, passages: int, limit: int, share: float) -> list[str]:
    """Names that the best ``passages`` about ``first_hop`` give for its role, most supported first: at most
    ``limit``, each with at least ``share`` of the best one's support."""
    subject = [t for t in query_terms(first_hop) if t not in ("负责", "负责人", "项目", "人", "owner", "lead")]
    votes: Counter[str] = Counter()
    for rank, hit in enumerate(hits[:passages]):
        crumb = hit.breadcrumb.lower()
        units = hit.content.split("\n") if hit.node_type in ("table", "list") else split_sentences(hit.content)
        for unit in units:
            low = unit.lower()
            if not any(w in low for w in _ROLE_WORDS):
                continue
            overlap = sum(1 for t in subject if t in low or t in crumb)
            if subject and overlap == 0:
                continue
            weight = overlap + 1.0 / (rank + 1)
            found = False
            for pattern in _PATTERNS:
                for m in pattern.finditer(unit):
                    name = m.group(1).strip()
                    if _plausible(name):
                        votes[name] += weight
                        found = True
            if not found:
                for name in _person_names(unit):
                    votes[name] += weight * 0.5
    ranked = votes.most_common(limit)
    if not ranked:
        return []
    best = ranked[0][1]
    return [name for name, v in ranked if v >= share * best]
