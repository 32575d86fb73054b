"""Sums and differences a question asks of two figures its answer quotes, worked out and shown.

"两家公司2021年的研发投入合计是多少？" is answered by two quoted lines (3.86亿元 [1], 2.41亿元 [2]) whose figures
the reader has to add; "调解约定的支付金额比诉讼请求金额少多少？" by two figures to subtract. The offline answer
quotes the documents and does not reason, so this step does the one piece of arithmetic such a question names
and writes it out with its operands' citations ("计算：3.86亿元 + 2.41亿元 = 6.27亿元 [1][2]") — the user checks it
against the quoted lines. Only when it is unambiguous: the question names the operation, the quoted lines give
exactly the two amounts it needs in one unit (a sum: one from each of two documents, as "A and B combined"
asks; a difference: two in all). Anything else (three figures, mixed units, percentages) is left to the reader.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

Operation = Literal["sum", "difference"]

_SUM = re.compile(r"(?i)合计|总计|之和|加起来|共计|\bcombined\b|\bin total\b|\baltogether\b|\bsum of\b|"
                  r"\btotal\b[^?？]*\b(?:both|two)\b|\b(?:both|two)\b[^?？]*\btotal\b")
_DIFFERENCE = re.compile(r"(?i)[少多高低]多少|相差|差多少|差额|差距是多少|"
                         r"how much (?:less|more|lower|higher|smaller|larger|greater)\b|\bdifference between\b|"
                         r"by how much\b")
# An amount with its unit: "3.86亿元", "2,760万元", "$82.4 million", "3.45 million", "EUR 300" — not a share
# ("24.6%"), a count of things or a year.
_ZH_AMOUNT = re.compile(r"(?<![\d.,])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<unit>亿元|万元|元)")
_EN_AMOUNT = re.compile(r"(?i)(?P<cur>\$|€|£|\b(?:usd|eur|gbp|rmb|cny)\s?)?"
                        r"(?<![\d.,])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
                        r"(?:\s?(?P<unit>million|billion|thousand)\b)?")
_CITE = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Amount:
    value: Decimal
    unit: str  # 亿元, "million"…, with the currency sign written before it ("$"), if any
    prefix: str
    decimals: int
    grouped: bool  # written with thousands separators

    def same_unit(self, other: Amount) -> bool:
        return (self.unit, self.prefix) == (other.unit, other.prefix)


def asked_operation(question: str) -> Operation | None:
    """The arithmetic ``question`` names, if any: a difference ("少多少", "how much less") before a sum
    ("合计", "combined")."""
    if _DIFFERENCE.search(question):
        return "difference"
    if _SUM.search(question):
        return "sum"
    return None


def amounts(line: str) -> list[Amount]:
    """The amounts of money ``line`` states, in order (Chinese 元 units; a currency sign or a million/billion)."""
    out = []
    for m in _ZH_AMOUNT.finditer(line):
        out.append(_amount(m.group("num"), m.group("unit"), ""))
    for m in _EN_AMOUNT.finditer(line):
        cur, unit = (m.group("cur") or "").strip(), m.group("unit") or ""
        if cur or unit:  # a bare number is no amount
            out.append(_amount(m.group("num"), unit.lower(), cur))
    return out


def _amount(num: str, unit: str, prefix: str) -> Amount:
    plain = num.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return Amount(Decimal(plain), unit, prefix, decimals, "," in num)


def _written(a: Decimal, like: Sequence[Amount]) -> str:
    decimals = max(x.decimals for x in like)
    text = f"{a:,.{decimals}f}" if any(x.grouped for x in like) else f"{a:.{decimals}f}"
    first = like[0]
    prefix = first.prefix + ("" if not first.prefix or first.prefix in "$€£" else " ")
    if first.unit in ("亿元", "万元", "元"):
        return f"{prefix}{text}{first.unit}"
    return f"{prefix}{text}{' ' + first.unit if first.unit else ''}"


def worked(question: str, lines: Sequence[tuple[str, list[int], str | None]]) -> tuple[str, list[int]] | None:
    """The arithmetic ``question`` asks of an answer's quoted ``lines`` — each (text, its citation numbers, the
    document it quotes) — written out ("3.86亿元 + 2.41亿元 = 6.27亿元") with the citations of its operands, or
    None when the question names none or the lines do not give exactly its two operands in one unit."""
    operation = asked_operation(question)
    if operation is None:
        return None
    found = [(a, cites, doc) for text, cites, doc in lines for a in amounts(_CITE.sub(" ", text))]
    if operation == "sum":
        firsts: dict[str | None, tuple[Amount, list[int]]] = {}
        for a, cites, doc in found:
            firsts.setdefault(doc, (a, cites))
        if len(firsts) != 2 or None in firsts:
            return None
        picked = list(firsts.values())
    else:
        if len(found) != 2:
            return None
        picked = [(a, cites) for a, cites, _ in found]
    (a, ca), (b, cb) = picked
    if not a.same_unit(b):
        return None
    if operation == "sum":
        expr = f"{_written(a.value, [a])} + {_written(b.value, [b])} = {_written(a.value + b.value, [a, b])}"
    else:
        big, small = (a, b) if a.value >= b.value else (b, a)
        result = big.value - small.value
        expr = f"{_written(big.value, [big])} − {_written(small.value, [small])} = {_written(result, [a, b])}"
    return expr, sorted(set(ca) | set(cb))
