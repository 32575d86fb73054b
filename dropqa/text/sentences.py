"""Sentence splitting for Chinese and English text."""

from __future__ import annotations

import re

# End of sentence: Chinese 。！？； (and full-width variants), or . ! ? followed by space/end,
# keeping closing quotes/brackets with the sentence they end.
_SPLIT = re.compile(
    r"(?<=[。！？；!?;])[”’」』）)]*\s*"
    r"|(?<=[.])(?<!\d\.)(?<![A-Z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)[”’\")]*\s+"
    r"|\n+"
)


_ENDINGS = ("。", "！", "？", ".", "!", "?", "；", ";", "”", "」", ")", "）")


def ends_mid_sentence(text: str) -> bool:
    """True when ``text`` stops without closing its sentence (a page break cut it, say)."""
    return not text.rstrip().endswith(_ENDINGS)


def split_sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SPLIT.split(text or "")]
    return [p for p in parts if p]


def truncate(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"
