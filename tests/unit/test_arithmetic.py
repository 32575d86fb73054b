"""The sum or difference a question asks of two quoted figures, worked out only when it is unambiguous."""

from __future__ import annotations

import pytest

from dropqa.answering.arithmetic import amounts, asked_operation, worked


def test_the_operation_is_read_from_the_question():
    assert asked_operation("两家公司2021年的研发投入合计是多少？") == "sum"
    assert asked_operation("What was the two companies' combined R&D investment?") == "sum"
    assert asked_operation("调解约定的支付金额比诉讼请求金额少多少？") == "difference"
    assert asked_operation("How much less was the settlement than the amount claimed?") == "difference"
    assert asked_operation("公司2021年的研发投入是多少？") is None
    assert asked_operation("一共有几次犯罪行为？") is None  # a count of acts, not a sum of figures


def test_amounts_are_money_with_their_unit():
    found = amounts("诉讼请求金额为2,760万元，占营业收入的2.4%，2021年共有512家门店。")
    assert [(str(a.value), a.unit) for a in found] == [("2760", "万元")]
    found = amounts("claiming $3.45 million; revenue rose 12% to 1,214.8 million in 2021 with 538 stores")
    assert [(str(a.value), a.unit, a.prefix) for a in found] == [("3.45", "million", "$"), ("1214.8", "million", "")]


@pytest.mark.parametrize(("question", "lines", "expected"), [
    ("两家公司2021年的研发投入合计是多少？",
     [("公司研发投入3.86亿元，占营业收入的21.4%。 [1]", [1], "a"), ("公司研发投入2.41亿元。 [2]", [2], "b"),
      ("合同金额合计960万元。 [3]", [3], "b")],  # the first figure of each document's lines
     ("3.86亿元 + 2.41亿元 = 6.27亿元", [1, 2])),
    ("调解约定的支付金额比诉讼请求金额少多少？",
     [("诉讼请求金额为2,760万元。 [1]", [1], "a"), ("同意分期向公司支付2,500万元。 [1]", [1], "a")],
     ("2,760万元 − 2,500万元 = 260万元", [1])),
    ("How much less was the settlement than the amount claimed?",
     [("claiming $3.45 million. [1]", [1], "a"), ("agreed to pay $3.10 million. [2]", [2], "a")],
     ("$3.45 million − $3.10 million = $0.35 million", [1, 2])),
])
def test_two_figures_are_worked_out_with_their_citations(question, lines, expected):
    assert worked(question, lines) == expected


A, B = "研发投入3.86亿元 [1]", "研发投入2.41亿元 [2]"


@pytest.mark.parametrize(("question", "lines"), [
    ("公司2021年的研发投入是多少？", [(A, [1], "a"), (B, [2], "b")]),  # no operation asked
    ("两家公司的研发投入合计是多少？", [(A, [1], "a"), ("研发投入2,410万元 [2]", [2], "b")]),  # two units
    ("两家公司的研发投入合计是多少？", [(A, [1], "a"), (B, [2], "a")]),  # a sum of two documents, one quoted
    ("少多少？", [("请求2,760万元，赔偿100万元 [1]", [1], "a"), ("支付2,500万元 [1]", [1], "a")]),  # three figures
])
def test_nothing_is_worked_out_when_the_operands_are_not_plain(question, lines):
    assert worked(question, lines) is None
