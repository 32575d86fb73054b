"""The reasoning trace never prints a probability and its threshold as the same number."""

from dropqa.graph.nodes.quality import distinct


def test_numbers_that_differ_are_shown_differing():
    assert distinct(0.655, 0.66) == ("0.655", "0.660")  # was "0.66 … 达到 0.66 才作答"
    assert distinct(0.78, 0.21) == ("0.78", "0.21")
    assert distinct(0.66, 0.66) == ("0.66", "0.66")
    a, b = distinct(0.65999999, 0.66)
    assert a != b and a.startswith("<")
