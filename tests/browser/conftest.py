"""Browser tests: Playwright for Python driving Debian's chromium against a real ``dropqa serve``.

The server runs exactly as a user starts it (embedded PostgreSQL in a temporary data
dir, a random loopback port, the ingestion worker inside the server). Nothing is
downloaded: the browser is the system's chromium (``make test`` installs it with apt),
never ``playwright install``. Screenshots of every page go to ``test-output/screenshots/``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, VECTOR_CACHE
from tests.e2e.api_support import dropqa_env, free_port, fresh_data_dir, stop_group, wait_until_healthy

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the 'test' extra")

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
DROPQA = str(Path(sys.executable).with_name("dropqa"))
VIEWPORT = {"width": 1280, "height": 860}


class Server:
    """``dropqa serve`` in its own process group with its own data dir."""

    def __init__(self, extra_env: dict[str, str] | None = None, vector_cache: bool = True) -> None:
        self.data = fresh_data_dir("dropqa-browser-")
        env = dropqa_env(self.data, **(extra_env or {}))
        if not vector_cache:
            env.pop(VECTOR_CACHE, None)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = self.data / "serve.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen([DROPQA, "serve", "--host", "127.0.0.1", "--port", str(self.port)], env=env,
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def wait(self, timeout: float = 300) -> Server:
        try:
            wait_until_healthy(self.proc, self.url, timeout, lambda: self.log.read_text(errors="replace"))
        except RuntimeError as exc:
            self.stop()
            pytest.fail(f"dropqa serve: {exc}")
        return self

    def stop(self) -> None:
        stop_group(self.proc, signal.SIGTERM, 20)
        self._stop_postmaster()
        shutil.rmtree(self.data, ignore_errors=True)

    def _stop_postmaster(self, timeout: float = 15) -> None:
        """The embedded PostgreSQL runs as its own user outside the process group; pgserver stops it when
        its last client exits cleanly, which a signalled worker process may not do. Stop it here (fast
        shutdown) so no postmaster outlives its deleted data dir."""
        pid_file = self.data / "pg" / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)


@pytest.fixture(scope="module")  # not session: a live sync Playwright keeps an event loop in this thread
def browser() -> Iterator[sync_api.Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (make test installs it: apt-get install chromium)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    # The upload cards are watched going through parsing, chunking and embedding: the vectors are computed,
    # as on a fresh install, not read from the run's cache (a cached upload is stored before a card can show it).
    srv = Server(vector_cache=False)
    try:
        yield srv.wait().url
    finally:
        srv.stop()


class PageErrors(list):
    """Uncaught exceptions in the page; a test fails if any happened."""


@pytest.fixture
def new_page(browser: sync_api.Browser):
    """``new_page(locale="zh-CN", viewport=...)`` → a fresh context's page; fails the test on page errors."""
    contexts = []
    errors = PageErrors()

    def make(locale: str = "en-US", viewport: dict[str, int] | None = None) -> sync_api.Page:
        ctx = browser.new_context(locale=locale, viewport=viewport or VIEWPORT, service_workers="block")
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def screenshot(page: sync_api.Page, name: str, full_page: bool = True) -> Path:
    """Save test-output/screenshots/<name>.png. A full page is taken with the viewport stretched to
    the page's height, so sticky parts (the top bar, the question box) sit where a reader expects."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    size = page.viewport_size
    if full_page and size:
        page.evaluate("window.scrollTo(0, 0)")
        height = page.evaluate("document.documentElement.scrollHeight")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height, 4000))})
        page.wait_for_timeout(100)
    page.screenshot(path=str(path), full_page=full_page)
    if full_page and size:
        page.set_viewport_size(size)
    return path
