"""Screenshots of the topics page over the labelled mixed corpus, in Chinese and in English (issue 24).

    python -m benchmarks.topics_mixed --data-dir DIR          # index suites/topics_mixed once
    python -m benchmarks.topics_screenshots --data-dir DIR [--out docs/img]

Starts ``dropqa serve`` on that data dir (a random loopback port, its own worker), opens the topics page in
Debian's chromium through Playwright (never a downloaded browser) with a Chinese and an English browser
locale, and saves ``topics-zh.png`` and ``topics-en.png``. The page is drawn as a user sees it; the topics are
the ones ``benchmarks.topics_mixed`` scored.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("DROPQA_")}
    env.update(DROPQA_DATA_DIR=str(args.data_dir), OPENBLAS_NUM_THREADS="1", DROPQA_API__EMBEDDED_WORKERS="0")
    dropqa = str(Path(sys.executable).with_name("dropqa"))
    proc = subprocess.Popen([dropqa, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if requests.get(base + "/api/health", timeout=2).ok:
                    break
            except requests.RequestException:
                time.sleep(0.3)
        args.out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
                ctx = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
                page = ctx.new_page()
                page.goto(base + "/#/topics")
                page.wait_for_selector(".topic-card")
                page.wait_for_timeout(300)
                path = args.out / f"topics-{lang}.png"
                page.screenshot(path=str(path), full_page=True)
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
                ctx.close()
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
