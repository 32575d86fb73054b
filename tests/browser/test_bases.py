"""Knowledge bases in the web page, in a real browser against a real server with API keys: sign in with a
key (kept for the browser session only), the base switch (我的知识库) narrowing the dashboard, documents
and answers to one base, the management page for admins (create a base, make a key shown once, revoke
it), and a reader who sees only its own base and no management — all in Chinese, one language per page."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import DROPQA, Server, screenshot
from tests.browser.test_one_language import SERVER_SENTENCES, english_ui_strings
from tests.conftest import EXAMPLES
from tests.e2e.api_support import dropqa_env

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.heavy(80)]
SECRET = "# 北极星计划\n\n## 预算\n\n北极星计划的预算为 420 万元，代号 QUOKKA-7731。\n"


def cli(srv: Server, *args: str) -> str:
    done = subprocess.run([DROPQA, *args], env=dropqa_env(srv.data), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    srv = Server().wait()
    try:
        beta = tmp_path_factory.mktemp("beta")
        (beta / "北极星计划.md").write_text(SECRET, encoding="utf-8")
        cli(srv, "kb", "create", "beta")
        cli(srv, "index", str(EXAMPLES))
        cli(srv, "index", "--kb", "beta", str(beta))
        keys = {name: json.loads(cli(srv, "keys", "create", "--name", name, *extra, "--json"))["key"]
                for name, extra in (("boss", ["--role", "admin"]), ("reader-b", ["--kb", "beta", "--role", "reader"]))}
        yield srv, keys
    finally:
        srv.stop()


def sign_in(page, key: str) -> None:
    page.wait_for_selector("#token-dialog[open]")
    page.fill("#token-input", key)
    page.click("#token-save")
    page.wait_for_selector("#kb-switch option", state="attached")


def no_english(page, name: str) -> None:
    text = page.locator("body").inner_text()
    leaks = [s for s in english_ui_strings() + SERVER_SENTENCES if s.lower() in text.lower()]
    assert not leaks, (name, leaks)


def test_an_admin_switches_bases_and_manages_them(server, new_page, tmp_path: Path) -> None:
    srv, keys = server
    page = new_page(locale="zh-CN")
    page.goto(srv.url + "/#/")
    sign_in(page, keys["boss"])
    assert page.evaluate("sessionStorage.getItem('dropqa.token')") == keys["boss"]
    assert page.evaluate("localStorage.getItem('dropqa.token')") is None
    assert page.locator("#kb-switch-label").inner_text().startswith("我的知识库")
    options = page.locator("#kb-switch option").all_inner_texts()
    assert options == ["default（默认）", "beta"]
    page.wait_for_selector("#dash-recent .list li")
    assert "云栖数据平台运维手册.md" in page.locator("#dash-recent").inner_text()
    screenshot(page, "bases-dashboard-default-zh")

    page.select_option("#kb-switch", "beta")
    page.wait_for_selector("#dash-recent .list li")
    recent = page.locator("#dash-recent").inner_text()
    assert "北极星计划.md" in recent and "云栖数据平台运维手册.md" not in recent
    assert "beta" in page.locator("#dash-base").inner_text()
    screenshot(page, "bases-dashboard-beta-zh")
    no_english(page, "dashboard")
    page.goto(srv.url + "/#/documents")
    page.wait_for_selector("#doc-table tbody tr")
    assert page.locator("#doc-table tbody tr").count() == 1
    page.goto(srv.url + "/#/ask")
    page.fill("#question", "北极星计划的预算是多少？")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg-bot.answered", timeout=180_000)
    assert "420 万元" in page.locator(".msg-bot:last-child").inner_text()

    page.goto(srv.url + "/#/manage")
    page.wait_for_selector("#kb-table tbody tr")
    page.fill("#new-kb-name", "财务报告")
    page.click("#new-kb-save")
    page.wait_for_selector("#kb-table tr[data-kb='财务报告']")
    assert "财务报告" in page.locator("#kb-switch").inner_text()  # the switch knows the new base at once
    page.fill("#new-key-name", "finance-reader")
    page.check("#new-key-kbs input[value='财务报告']")
    page.click("#new-key-save")
    page.wait_for_selector("#new-key")
    made = page.locator("#new-key").inner_text()
    assert made.startswith("dqa_") and page.locator("#key-table tr[data-key='finance-reader']").count() == 1
    screenshot(page, "bases-manage-zh")
    no_english(page, "manage")
    page.once("dialog", lambda d: d.accept())
    page.click("#key-table tr[data-key='finance-reader'][data-revoked='no'] button[data-action=revoke]")
    page.wait_for_selector("#key-table tr[data-key='finance-reader'][data-revoked='yes']")
    assert "已吊销" in page.locator("#key-table tr[data-key='finance-reader']").inner_text()
    page.once("dialog", lambda d: d.accept())
    page.click("#kb-table tr[data-kb='财务报告'] button[data-action=delete]")
    page.wait_for_function("!document.querySelector(\"#kb-table tr[data-kb='财务报告']\")")


def test_a_reader_sees_its_base_only(server, new_page) -> None:
    srv, keys = server
    page = new_page(locale="zh-CN")
    page.goto(srv.url + "/#/documents")
    sign_in(page, keys["reader-b"])
    assert page.locator("#kb-switch option").all_inner_texts() == ["beta"]
    assert page.locator("#nav-manage").is_hidden()
    page.wait_for_selector("#doc-table tbody tr")
    names = page.locator("#doc-table tbody").inner_text()
    assert "北极星计划.md" in names and "云栖数据平台运维手册.md" not in names
    page.goto(srv.url + "/#/manage")
    page.wait_for_selector("#manage-denied")
    screenshot(page, "bases-reader-zh")
    no_english(page, "reader")
    page.click("#token-button")  # sign out: the page asks for a key again
    page.click("#token-clear")
    page.wait_for_selector("#token-dialog[open]")
    assert page.evaluate("sessionStorage.getItem('dropqa.token')") is None
