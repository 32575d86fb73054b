"""A clean stop: the embedded PostgreSQL stops when the last DropQA process using it exits,
whatever ended it, and `dropqa db status` / `dropqa db stop` say and do what they claim."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import requests

from tests.e2e.api_support import DROPQA, dropqa_env, free_port, fresh_data_dir

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(100)]


def postgres_of(data_dir: Path) -> list[psutil.Process]:
    pgdata = str((data_dir / "pg").resolve())
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and pgdata in cmd:
            found.append(proc)
    return found


def wait_until_gone(data_dir: Path, seconds: float = 120) -> list[psutil.Process]:
    deadline = time.time() + seconds
    while (left := postgres_of(data_dir)) and time.time() < deadline:
        time.sleep(0.2)
    return left


def dropqa(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DROPQA, *args], env=env, capture_output=True, text=True, timeout=300)


def serve(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([DROPQA, "serve", "--port", str(port)], env={**env, "DROPQA_API__EMBEDDED_WORKERS": "0"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        try:
            if requests.get(base + "/api/health", timeout=2).ok:
                return proc, base
        except requests.RequestException:
            time.sleep(0.3)
    proc.kill()
    raise AssertionError("dropqa serve did not come up")


@pytest.fixture()
def env() -> Iterator[dict[str, str]]:
    data = fresh_data_dir("dropqa-stop-")
    yield dropqa_env(data)
    for proc in postgres_of(data):
        proc.kill()
    shutil.rmtree(data, ignore_errors=True)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_serve_stops_its_postgres_once_the_last_user_exits(env: dict[str, str], sig: int) -> None:
    data = Path(env["DROPQA_DATA_DIR"])
    proc, _ = serve(env)
    assert postgres_of(data)
    status = dropqa(env, "db", "status")
    assert status.returncode == 0 and "running" in status.stdout and f"pid {proc.pid}:" in status.stdout
    assert dropqa(env, "docs").returncode == 0  # a second user comes and goes: the server stays
    assert postgres_of(data)
    os.kill(proc.pid, sig)  # only the serve process, as systemd / docker / kill do
    assert proc.wait(60) in (0, 128 + sig, -sig)
    assert not wait_until_gone(data), "the embedded PostgreSQL outlived its last user"
    status = dropqa(env, "db", "status")
    assert status.returncode == 3 and "stopped" in status.stdout


def test_a_server_left_by_a_killed_process_is_stopped_by_the_next_one_or_db_stop(env: dict[str, str]) -> None:
    data = Path(env["DROPQA_DATA_DIR"])
    proc, _ = serve(env)
    os.killpg(proc.pid, signal.SIGKILL)  # nothing runs: the lease stays behind
    proc.wait(30)
    assert postgres_of(data)
    status = dropqa(env, "db", "status")
    assert status.returncode == 0 and "used by 0" in status.stdout and "db stop" in status.stdout
    assert dropqa(env, "docs").returncode == 0  # joins, finds the dead lease, and is the last one out
    assert not wait_until_gone(data)

    proc, _ = serve(env)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    done = dropqa(env, "db", "stop")
    assert done.returncode == 0 and "stopped" in done.stdout and not wait_until_gone(data)
    assert "was not running" in dropqa(env, "db", "stop").stdout


def test_db_stop_refuses_while_in_use_unless_forced(env: dict[str, str]) -> None:
    """Issue 23: a forced stop leaves a mark the server's watchdog honours — it used to start the server
    again while `pg_ctl stop` waited, which then timed out. The watchdog looks every 0.1 s here, so a
    watchdog that ignored the mark would restart it within the test. The server answers 503 saying why,
    and the next dropqa command that opens the database starts it again, which the server then uses."""
    data = Path(env["DROPQA_DATA_DIR"])
    proc, base = serve({**env, "DROPQA_DATABASE__WATCHDOG_S": "0.1"})
    try:
        refused = dropqa(env, "db", "stop")
        assert refused.returncode == 1 and str(proc.pid) in refused.stderr and "--force" in refused.stderr
        assert postgres_of(data) and requests.get(base + "/api/health", timeout=60).ok
        forced = dropqa(env, "db", "stop", "--force")
        assert forced.returncode == 0 and "stopped" in forced.stdout, forced.stdout + forced.stderr
        assert not wait_until_gone(data)
        for _ in range(10):  # a hundred watchdog rounds later it is still stopped
            health = requests.get(base + "/api/health", timeout=60)
            assert health.status_code == 503 and not postgres_of(data)
            time.sleep(1)
        docs = requests.get(base + "/api/documents", timeout=60)
        assert docs.status_code == 503 and "db stop --force" in docs.json()["error"]["message"], docs.text
        assert dropqa(env, "docs").returncode == 0  # opens the database: starts it again, and the server
        assert postgres_of(data)  # still holds its lease, so it outlives `dropqa docs`
        deadline = time.time() + 300
        while requests.get(base + "/api/health", timeout=60).status_code != 200:
            assert time.time() < deadline, "the server did not take the database back"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(60)
    assert not wait_until_gone(data)
