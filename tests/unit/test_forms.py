"""Other inflections of a question's English words: found in a label or sentence that uses another."""

import pytest

from dropqa.text.forms import derived_forms, word_forms
from dropqa.text.segment import holds


@pytest.mark.parametrize(("word", "form"), [
    ("occupations", "occupation"), ("diagnoses", "diagnosis"), ("sentencing", "sentenced"),
    ("sentencing", "sentence"), ("admitted", "admit"), ("activities", "activity"), ("charges", "charge"),
    ("owns", "owner"), ("approves", "approver"),
])
def test_word_forms(word: str, form: str) -> None:
    assert form in word_forms(word)


def test_no_forms_for_chinese_numbers_or_short_words() -> None:
    assert word_forms("职业") == [] and word_forms("2024") == [] and word_forms("age") == []


def test_holds_another_inflection_but_not_inside_a_word() -> None:
    assert holds("*occupation:* barista", "occupations")
    assert holds("he was sentenced to 12 years", "sentencing")
    assert not holds("dosage: 5 mg", "age")


def test_holds_the_singular_of_an_irregular_plural() -> None:
    """"What are the diagnoses of …" finds "Preliminary Diagnosis:", "analyses" finds "analysis"."""
    assert holds("preliminary diagnosis: furuncle", "diagnoses")
    assert holds("a risk analysis of the vendor", "analyses")


@pytest.mark.parametrize(("word", "form"), [
    ("admitted", "admission"), ("admission", "admit"), ("diagnosed", "diagnosis"), ("diagnosis", "diagnose"),
    ("decided", "decision"), ("submitted", "submission"), ("compensation", "compensate"),
    ("compensated", "compensation"), ("investigation", "investigate"),
])
def test_derived_forms_join_a_verb_and_its_noun(word: str, form: str) -> None:
    assert form in derived_forms(word)


def test_no_derived_forms_for_chinese_numbers_or_short_words() -> None:
    assert derived_forms("入院") == [] and derived_forms("2024") == [] and derived_forms("side") == []
    # a stem too short to be a verb's: "station" is no noun of "state", nor "nation" of any verb
    assert "state" not in derived_forms("station") and "station" not in derived_forms("state")
    assert [f for f in derived_forms("nation") if not f.endswith("ly")] == []  # "nationly", the adverb rule's, is
    # never written, so never found


def test_holds_the_noun_of_an_asked_verb() -> None:
    """"When was she admitted?" finds "Admission Time:"; "what was he diagnosed with" finds "Diagnosis:"."""
    assert holds("admission time: 26th february 2023", "admitted")
    assert holds("preliminary diagnosis: furuncle", "diagnosed")
    assert holds("he was diagnosed with a furuncle", "diagnosis")
    assert holds("the court ordered the defendants to compensate the company", "compensation")
    assert not holds("the emission limits", "admitted")


def test_an_adverb_is_a_form_of_its_adjective_and_back():
    """"Which VPN must remote workers use?" of a handbook writing "When working remotely, employees must connect
    through the Tidegate VPN"; a short word is no adjective of an adverb ("early" is not "ear")."""
    from dropqa.text.segment import holds

    assert "remotely" in derived_forms("remote") and "remote" in derived_forms("remotely")
    assert "month" in derived_forms("monthly")
    assert holds("when working remotely, employees must connect", "remote")
    assert derived_forms("early") == [] and "like" not in derived_forms("likely")


def test_the_chinese_words_for_another_name_stand_for_each_other():
    from dropqa.text.forms import alias_forms

    assert "又名" in alias_forms("称之为") and "别称" in alias_forms("又名") and "又名" not in alias_forms("又名")
    assert alias_forms("简称") == [] and alias_forms("原名") == [] and alias_forms("name") == []
    assert "卒" in alias_forms("逝世") and "又名" not in alias_forms("逝世")
    assert alias_forms("initial") == ["preliminary"] and alias_forms("preliminary") == ["initial"]
