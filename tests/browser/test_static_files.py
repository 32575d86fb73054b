"""The page's files themselves: no markup from strings, nothing fetched from elsewhere, every UI text in
both languages. Fast checks that need no browser."""

from __future__ import annotations

import re

from dropqa.api.web import STATIC

JS = sorted(STATIC.rglob("*.js"))
ALL = [*JS, *STATIC.rglob("*.css"), *STATIC.rglob("*.html")]


def test_no_string_ever_becomes_markup() -> None:
    for path in JS:
        code = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in code, f"{path.name} uses {sink}"


def test_nothing_is_loaded_from_another_host() -> None:
    for path in ALL:
        text = path.read_text(encoding="utf-8")
        urls = [u for u in re.findall(r"https?://[^\s'\"`)]+", text) if not u.startswith("http://www.w3.org/")]
        assert not urls, f"{path.name} refers to {urls}"
        assert "@import" not in text


def _dictionaries() -> dict[str, set[str]]:
    source = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    en = source[source.index("  en: {"):source.index("  zh: {")]
    zh = source[source.index("  zh: {"):source.index("\n};")]
    key = re.compile(r"^\s+'([\w.]+)':", re.M)
    return {"en": set(key.findall(en)), "zh": set(key.findall(zh))}


def test_every_ui_text_exists_in_english_and_chinese() -> None:
    words = _dictionaries()
    assert words["en"] == words["zh"], {"only en": words["en"] - words["zh"], "only zh": words["zh"] - words["en"]}
    used: set[str] = set()
    for path in JS:
        used |= set(re.findall(r"\bt\('([\w.]+)'", path.read_text(encoding="utf-8")))
    used |= set(re.findall(r'data-i18n(?:-title|-placeholder)?="([\w.]+)"', (STATIC / "index.html").read_text()))
    assert used - words["en"] == set()
