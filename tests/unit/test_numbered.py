"""Numbered names (text.numbered): the number that tells one of a series from its look-alikes, read from a
question and found again in a text in any of its usual forms."""

from __future__ import annotations

import pytest

from dropqa.text.numbered import Numbered, han_number, numbered_names, place_qualifiers, writes_numbered


@pytest.mark.parametrize(("text", "value"), [("16", 16), ("十六", 16), ("二十一", 21), ("一百零五", 105),
                                             ("两", 2), ("一九零六", 1906), ("三", 3), ("六百二十一", 621)])
def test_chinese_and_arabic_numerals_are_read(text: str, value: int) -> None:
    assert han_number(text) == value


def test_no_number_is_read_from_other_characters() -> None:
    assert han_number("十六张") is None and han_number("") is None


@pytest.mark.parametrize(("question", "expected"), [
    ("EXILE（放浪兄弟）的第16张单曲叫什么名字？", [(16, "张")]),
    ("加拿大航空621号班机空难造成了多少人死亡？", [(621, "号")]),
    ("南宁市第三中学是哪一年创建的？", [(3, "中学")]),
    ("第二届中国（南京）国际象棋超级大赛的冠军是谁？", [(2, "届")]),
    ("On what date was the second season of Jessica Jones released on Netflix?", [(2, "season")]),
    ("Who commanded Apollo 13?", [(13, "apollo")]),
    ("What was the 5th studio album of the band?", [(5, "album")]),
])
def test_a_question_names_one_of_a_series_by_its_number(question: str, expected: list[tuple[int, str]]) -> None:
    assert [(n.number, n.counter) for n in numbered_names(question)] == expected


@pytest.mark.parametrize("question", [
    "技术部第一季度团建最后定在哪里？",  # a quarter, not a season
    "谁获得了第二名？",  # a rank is what is asked
    "第二次世界大战是哪一年结束的？",  # 二战 as often
    "What was the first single from the album?",  # "lead single" as often
    "Who was the second president of the company?",
    "How many employees did it have in 2020?",
])
def test_ranks_times_quarters_and_firsts_name_no_look_alike(question: str) -> None:
    assert numbered_names(question) == []


@pytest.mark.parametrize(("name", "text"), [
    (Numbered(16, "张", "第16张"), "《xx》为日本音乐团体EXILE的第十六张单曲"),
    (Numbered(16, "张", "第十六张"), "EXILE的第16张单曲"),
    (Numbered(3, "中学", "第三中学"), "南宁三中创建于1897年"),
    (Numbered(3, "中学", "第三中学"), "南宁市第3中学"),
    (Numbered(621, "号", "621号"), "加拿大航空621号班机"),
    (Numbered(1, "届", "第一届"), "首届比赛于2008年举行"),
    (Numbered(2, "season", "second season"), "The series was renewed for a second season in 2016."),
    (Numbered(2, "season", "second season"), "Season 2 premiered on March 8, 2018."),
    (Numbered(2, "season", "second season"), "Season Two of the show"),
    (Numbered(5, "album", "5th studio album"), "their fifth studio album, released in 2013"),
])
def test_a_text_writing_the_same_one_in_another_form_writes_it(name: Numbered, text: str) -> None:
    assert writes_numbered(text, name)


@pytest.mark.parametrize(("name", "text"), [
    (Numbered(16, "张", "第16张"), "《real world》为日本音乐团体EXILE（放浪兄弟）的第15张单曲。"),
    (Numbered(3, "中学", "第三中学"), "广西壮族自治区南宁市第二中学，简称南宁二中。"),
    (Numbered(621, "号", "621号"), "加拿大航空189号航班是加拿大航空公司一架飞机。天启元年（1621年）"),
    (Numbered(2, "届", "第二届"), "第十二届比赛于2019年举行"),
    (Numbered(2, "season", "second season"), "Season 1 premiered on November 20, 2015, with 13 episodes."),
    (Numbered(2, "season", "second season"), "the show's twenty-second seasonal special"),
])
def test_a_text_about_another_of_the_series_does_not(name: Numbered, text: str) -> None:
    assert not writes_numbered(text, name)


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the population of Rochester, Minnesota?", ["Minnesota"]),
    ("How much snow does Ann Arbor, Michigan get on average per season?", ["Michigan"]),
    ("What county borders the county in which Johnnycake, West Virginia is located?", ["West Virginia"]),
    # a list, a longer name, a title, a court's name: no region closing a place's name
    ("According to the judgment of Trenton, Springfield, Court and Hamilton, Harrison, Court, who won?", []),
    ("What movie stars Morgan Freeman, Robert De Niro and the producer of The Jewel of the Nile?", []),
    ("In what city did Nicholas I, lord of the birthplace of Albert, King of Belgium, die?", []),
    ("According to the judgment of Greenfield, Fairview Court, summarize the case.", []),
])
def test_a_place_is_told_from_its_namesakes_by_the_region_after_its_comma(question: str,
                                                                          expected: list[str]) -> None:
    assert place_qualifiers(question) == expected
