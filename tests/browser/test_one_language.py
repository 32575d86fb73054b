"""One language per page: every page walked in Chinese shows no English it can be told apart from the
documents' own text — no UI string of the English table, no server sentence (errors are translated
from their code and parameters) — and the same walk in English is screenshot too."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import DROPQA, Server, screenshot
from tests.conftest import EXAMPLES, ROOT
from tests.e2e.api_support import dropqa_env

I18N = ROOT / "dropqa" / "api" / "static" / "js" / "i18n.js"
SERVER_SENTENCES = ["the file is empty", "unsupported file type", "there is no version", "Something went wrong",
                    "internal error", "not found", "the request", "the database", "version(s)", "Loading"]


def english_ui_strings() -> list[str]:
    """Every English UI string of two or more words that the Chinese table says differently."""
    text = I18N.read_text(encoding="utf-8")
    en_part, zh_part = text.split("\n  zh: {", 1)
    pairs = re.compile(r"^\s+'([\w.]+)': '((?:[^'\\]|\\.)*)',", re.M)
    en, zh = dict(pairs.findall(en_part)), dict(pairs.findall(zh_part))
    out = []
    for key, value in en.items():
        plain = re.sub(r"\{\w+\}", "", value).strip(" .:…")
        if len(plain.split()) >= 2 and zh.get(key) != value and not re.search(r"[{}]", plain):
            out.append(plain)
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server().wait()
    try:
        done = subprocess.run([DROPQA, "index", str(EXAMPLES)], env={**srv_env(srv)}, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        yield srv
    finally:
        srv.stop()


def srv_env(srv: Server) -> dict[str, str]:
    return dropqa_env(srv.data)


def walk(page, base: str, lang: str, tmp_path: Path) -> dict[str, str]:
    """Every page, in order; the visible text of each (screenshots as <page>-<lang>.png)."""
    seen: dict[str, str] = {}

    def keep(name: str) -> None:
        page.wait_for_timeout(300)
        seen[name] = page.locator("body").inner_text()
        screenshot(page, f"{name}-{lang}")

    page.goto(base + "/#/")
    page.wait_for_selector("#dash-recent .list li")
    page.wait_for_selector("#dash-topics .list li")
    keep("dashboard")
    page.goto(base + "/#/documents")
    page.wait_for_selector("#doc-table tbody tr")
    empty, archive = tmp_path / f"empty-{lang}.md", tmp_path / f"archive-{lang}.zip"
    empty.write_bytes(b"")
    import zipfile

    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a.bin", b"\x00\x01" * 100)
    page.set_input_files("#file-input", [str(empty), str(archive)])
    page.wait_for_function("document.querySelectorAll('.upload[data-state=rejected]').length === 2", timeout=180_000)
    open_first_versions(page)
    keep("documents")
    page.goto(base + "/#/topics")
    page.wait_for_selector(".topic-card")
    keep("topics")
    page.locator(".topic-card").first.click()
    page.wait_for_selector("#topic-documents li")
    keep("topic")
    page.locator("#topic-documents a").first.click()
    page.wait_for_selector("#tree .tree-node")
    keep("document")
    page.goto(base + "/#/manage")
    page.wait_for_selector("#kb-table tbody tr")
    page.wait_for_selector("#keys-cli")  # open loopback server: the first admin key is made on the command line
    keep("manage")
    page.goto(base + "/#/ask")
    page.wait_for_selector("#question")
    if not page.locator("#show-reasoning").is_checked():
        page.check("#show-reasoning")
    page.fill("#question", "核心数据库的恢复时间目标是多少？")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg-bot.answered", timeout=180_000)
    for toggle in page.locator(".msg-bot details summary").all():
        toggle.click()
    keep("ask")
    return seen


def open_first_versions(page) -> None:
    """Open the first document's versions. The list is drawn again 400 ms after each upload ends, and a busy
    machine may draw it after the click: the versions opened in the table it replaced are gone with it (the
    new button says aria-expanded=false), so they are opened again until they show."""
    button = page.locator("#doc-table tbody tr button[aria-expanded]").first
    versions = page.locator(".versions-row li")
    deadline = time.monotonic() + 60
    while not versions.count():
        assert time.monotonic() < deadline, "the first document's versions never showed"
        if button.get_attribute("aria-expanded") == "false":
            button.click()
        page.wait_for_timeout(200)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_speaks_one_language(server: Server, new_page, tmp_path: Path, lang: str) -> None:
    page = new_page(locale="zh-CN" if lang == "zh" else "en-US")
    seen = walk(page, server.url, lang, tmp_path)
    assert set(seen) == {"dashboard", "documents", "topics", "topic", "document", "manage", "ask"}
    if lang == "en":
        assert "The file is empty." in seen["documents"]  # the code's wording, in English
        return
    assert "文件是空的" in seen["documents"] and "不支持这种文件类型" in seen["documents"]
    english = english_ui_strings()
    assert len(english) > 50  # the detector reads the table
    for name, text in seen.items():
        leaks = [s for s in english + SERVER_SENTENCES if s.lower() in text.lower()]
        assert not leaks, (name, leaks)
    assert not re.search(r"v1\s*·?\s*1 个版本", seen["documents"])  # "v1 · 1 个版本" says one thing twice
    assert not re.search(r"(\d\.\d+)[^\d]+\1 (即|才)作答", seen["ask"])  # "0.66 … 达到 0.66 才作答"
