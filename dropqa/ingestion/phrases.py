"""Candidate topic names of a text: noun phrases that can name a subject.

Chinese: jieba part-of-speech tagging; nouns (``n``, ``vn``, ``nz``, ``nt``, ``ns``, ``nw``) and
runs of up to three of them ("核心 数据库" → 核心数据库). English: a POS-free noun-phrase
heuristic — runs of up to three content words between stop words and punctuation, with modal
and common verbs, ``-ly`` adverbs and ``-ed`` participles as stop words.

Never a name: stop words, numbers and words with digits (``3.0``, ``q1``), units (分钟, ``gb``),
single letters or one Chinese character, person names (jieba ``nr*``; in English a word that
appears only capitalised, never lower-case, in mid-sentence — proper nouns), generic words
(含义, 情况, ``part``). :func:`valid_name` is the same rule as a predicate, for names from
elsewhere (a chat model).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from dropqa.text.concepts import FILE_WORDS
from dropqa.text.segment import english_stopwords, stopwords

MAX_WORDS = 3


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


NAMED_TAGS = frozenset({"nt", "ns", "nr", "nrt", "nrfg"})  # jieba: organisations, places, people — no subject
ZH_NOUNS = frozenset({"n", "vn", "nz", "nt", "ns", "nw", "an"})
ZH_GENERIC = _words("""
    含义 情况 问题 方面 内容 部分 时间 工作 方式 方法 事项 要求 原因 结果 过程 目的 意见 说明
    情形 人员 单位 范围 标准 规定 有关 其他 其它 相关 事情 东西 时候 地方 办法 项目 文档 文件
    章节 附件 备注 第一 第二 第三 分钟 小时 天数 年度 月份 日期 百分比 数量 金额 元 万元 个人
    公司 部门 负责人 主持人 地点 议题 情况说明 总则 附则 管理 流程 类别 系统 员工 限额 概述 简介 目录 说明书""")
EN_EXTRA_STOP = _words("""
    may must shall should would could might can will also per via etc e.g i.e upon within without
    including include includes included based using used use uses make makes made get gets got take
    takes taken give given gives need needs needed want wants see seen say says said provide provides
    provided require requires required new old first second third last next one two three four five six
    seven eight nine ten many much more most less least other others another such each every any all
    both either neither several various certain same different following follow follows presented
    present presents according regarding about above below approx approximately day days week weeks
    month months year years hour hours minute minutes second seconds time times today yesterday tomorrow
    monday tuesday wednesday thursday friday saturday sunday january february march april june july
    august september october november december q1 q2 q3 q4 h1 h2 number numbers part parts section
    sections chapter chapters page pages document documents file files example examples item items thing
    things way ways case cases point points gb mb kb tb eur usd rmb cny kg km cm mm ms pct percent total
    mr mrs ms dr prof inc ltd llc co corp""")
# The kind of document a title names, not its subject: stripped from the end of a candidate name
# ("信息安全管理办法" → 信息安全, "expense claim guide" → expense claim), never a name alone.
DOC_GENRES = _words("""
    记录 纪要 会议纪要 报告 计划 手册 指南 说明 规定 办法 制度 规范 细则 周报 月报 年报 日志 汇总 白皮书 清单
    通知 方案 总结 简报 问答 立项书 说明书 管理办法 管理制度 管理规定 实施细则 工作报告 聊天记录 分析会 评审会
    report reports guide guides handbook handbooks manual manuals policy policies standard standards runbook
    runbooks minutes log logs notes summary faq sheet sheets review reviews plan plans overview introduction
    memo template checklist procedure procedures rules regulations whitepaper""")
UNITS = _words("""
    gb mb kb tb eur usd rmb cny kg km cm mm ms % 元 万元 亿元 分钟 小时 秒 天 年 月 日 个 次 人""")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")
_EN_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”‘’|/\\<>=+*#`~_]|\s-\s|\n|\d")
_HAN = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")
_ORG = re.compile(r"[\u3400-\u9fff]{2,}(?:部|公司|集团|委员会)")  # 技术部, 财务部: a department, no subject


@lru_cache(maxsize=1)
def _en_stop() -> frozenset[str]:
    return english_stopwords() | EN_EXTRA_STOP | FILE_WORDS


def _en_stopword(word: str) -> bool:
    w = word.lower()
    return (w in _en_stop() or len(w) < 3 or w.endswith("ly") or (w.endswith("ed") and len(w) > 4)
            or w.endswith("'s"))


def valid_name(name: str) -> bool:
    """The naming rules as a predicate: no number, unit, stop word, single letter/character or generic word."""
    text = name.strip()
    if not text or _DIGIT.search(text) or text.lower() in UNITS or text.lower() in FILE_WORDS:
        return False
    if _HAN.search(text):
        return len(text) >= 2 and text not in ZH_GENERIC and text not in stopwords()
    words = text.lower().split()
    return bool(words) and len(words) <= MAX_WORDS + 1 and all(len(w) >= 3 for w in words) and \
        not any(_en_stopword(w) for w in (words[0], words[-1]))


def subject_of(name: str) -> str:
    """``name`` without the document kind it ends with (:data:`DOC_GENRES`; in Chinese also the generic words
    before it, :data:`ZH_GENERIC`: 管理, 流程, 系统), or "" when nothing else is left that :func:`valid_name`
    accepts, or when it ends with the name of an organisation, a place or a person (jieba ``nt``, ``ns``, ``nr``):
    "差旅费报销管理办法" → 差旅费报销, "考勤系统" → 考勤, "security policy" → security, "聊天记录" → "",
    "技术部" → ""."""
    import jieba.posseg as pseg

    if _HAN.search(name):
        words = [(p.word, p.flag) for p in pseg.cut(name) if p.word.strip()]
        while len(words) > 1 and (words[-1][0] in DOC_GENRES or words[-1][0] in ZH_GENERIC):
            words = words[:-1]
        if not words or words[-1][0] in DOC_GENRES or words[-1][1] in NAMED_TAGS or _ORG.fullmatch(words[-1][0]):
            return ""  # a kind of document alone; an organisation, a place, a person (技术部, 莫干山)
        rest = "".join(w for w, _ in words)
    else:
        parts = name.split()
        while parts and parts[-1] in DOC_GENRES:
            parts = parts[:-1]
        rest = " ".join(parts)
    return rest if rest and valid_name(rest) else ""


def noun_headed(name: str, verb_ratio: float) -> bool:
    """An English name ends with a noun, not a verb ("employees receive", "data applies"): CC-CEDICT glosses
    its last word as a verb less than ``verb_ratio`` times as often as it ends a noun's gloss
    (:func:`~dropqa.text.bilingual.gloss_heads`). Chinese names (jieba tagged them nouns) always pass."""
    from dropqa.text.bilingual import gloss_heads
    from dropqa.text.concepts import fold

    if _HAN.search(name):
        return True
    last = name.rsplit(" ", 1)[-1].lower()
    nouns, verbs = gloss_heads(last)
    if last != fold(last):
        more = gloss_heads(fold(last))
        nouns, verbs = nouns + more[0], verbs + more[1]
    return verbs <= verb_ratio * nouns


def chinese_phrases(text: str) -> Counter[str]:
    import jieba.posseg as pseg

    out: Counter[str] = Counter()
    run: list[tuple[str, bool]] = []  # (word, is a noun): verbs join compounds ("差旅费 报销", "恢复 演练")

    def flush() -> None:
        for size in range(1, MAX_WORDS + 1):
            for i in range(len(run) - size + 1):
                part = run[i:i + size]
                phrase = "".join(w for w, _ in part)
                if size == 1 and (not part[0][1] or phrase in ZH_GENERIC):
                    continue  # a verb alone is no subject; a generic noun alone neither
                if len(phrase) <= 8 and any(noun for _, noun in part):
                    out[phrase] += 1
        run.clear()

    for pair in pseg.cut(text):
        word, flag = pair.word.strip(), pair.flag
        usable = len(word) >= 2 and _HAN.search(word) and not _DIGIT.search(word) and word not in UNITS \
            and word not in stopwords()
        if usable and flag in ZH_NOUNS:
            run.append((word, word not in ZH_GENERIC))
        elif usable and flag == "v" and run:
            run.append((word, False))
        else:
            flush()
    flush()
    return out


def english_phrases(text: str) -> Counter[str]:
    out: Counter[str] = Counter()
    prose = re.sub(r"\S*[@/]\S*|\S+\.(?:example|com|org|net|io|md|docx|pdf)\b", " ", text)  # not mail, links, files
    lower_seen = {w for w in _EN_WORD.findall(prose) if w.islower()}
    for chunk in _EN_BREAK.split(text):
        words = _EN_WORD.findall(chunk)
        run: list[str] = []
        for word in [*words, ""]:
            proper = word[:1].isupper() and word.lower() not in lower_seen  # a name: never written lower-case
            if word and not _en_stopword(word) and not proper:
                run.append(word.lower())
                continue
            for size in range(1, MAX_WORDS + 1):
                for i in range(len(run) - size + 1):
                    if size == 1 and run[i].endswith("ing"):
                        continue  # "working" alone is a verb; "working hours" is a subject
                    out[" ".join(run[i:i + size])] += 1
            run = []
    return out


def phrases(text: str, limit: int = 60) -> dict[str, int]:
    """The document's candidate names with their counts (most frequent first, at most ``limit``)."""
    counts = chinese_phrases(text) if len(_HAN.findall(text)) * 3 > len(text) * 0.1 else Counter()
    if re.search(r"[A-Za-z]{3,}", text):
        counts.update(english_phrases(text))
    good = Counter({p: c for p, c in counts.items() if valid_name(p)})
    return dict(good.most_common(limit))
