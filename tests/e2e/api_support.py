"""Helpers for the API tests: a real `dropqa serve` on a random loopback port with its own data dir,
and a small server-sent-events reader."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from tests.conftest import VECTOR_CACHE

DROPQA = str(Path(sys.executable).with_name("dropqa"))


PORTS_PER_WORKER = 2000


def free_port() -> int:
    """A loopback port nothing listens on, picked at random below the kernel's ephemeral range (where
    client sockets come and go) and, under pytest-xdist, in this worker's own slice of it: parallel
    workers never hand out the same port between this check and their server's bind."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    low = 12_000 + (int(worker) if worker.isdigit() else 0) % 10 * PORTS_PER_WORKER
    for _ in range(500):
        port = random.randrange(low, low + PORTS_PER_WORKER)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # every try taken: let the kernel choose
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    base: str
    env: dict[str, str]
    data_dir: Path
    proc: subprocess.Popen[bytes]
    token: str | None = None

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def request(self, method: str, path: str, **kw: Any) -> requests.Response:
        headers = {**self.headers(), **kw.pop("headers", {})}
        return requests.request(method, self.base + path, headers=headers, timeout=kw.pop("timeout", 60), **kw)

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> requests.Response:
        return self.request("POST", path, **kw)

    def delete(self, path: str, **kw: Any) -> requests.Response:
        return self.request("DELETE", path, **kw)


def dropqa_env(data: Path | None = None, **extra: str) -> dict[str, str]:
    """This process' environment without DropQA's own settings (``DATABASE_URL``, ``DROPQA_*``), so a
    spawned ``dropqa`` sees only what the test gives it: ``data`` as its data dir, the run's passage-vector
    cache, and ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("DROPQA_")}
    env["OPENBLAS_NUM_THREADS"] = "1"
    if os.environ.get(VECTOR_CACHE):  # the run's passage-vector cache (tests/conftest.py)
        env[VECTOR_CACHE] = os.environ[VECTOR_CACHE]
    if data is not None:
        env["DROPQA_DATA_DIR"] = str(data)
    return {**env, **extra}


def fresh_data_dir(prefix: str = "dropqa-api-") -> Path:
    data = Path(tempfile.mkdtemp(prefix=prefix))
    data.chmod(0o755)  # the embedded PostgreSQL runs as an unprivileged user when tests run as root
    return data


@contextmanager
def dropqa_server(data: Path | None = None, **settings: str) -> Iterator[Server]:
    """``dropqa serve`` in ``data`` (default: a fresh data dir, removed afterwards); ``settings`` become
    ``DROPQA_*`` variables."""
    data = data or fresh_data_dir()
    env = dropqa_env(data, **{f"DROPQA_{k.upper()}": v for k, v in settings.items()})
    port = free_port()
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([DROPQA, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", env, data, proc, settings.get("api_token"))
    try:
        wait_until_healthy(proc, server.base, 300, lambda: (data / "server.log").read_text(errors="replace"))
        yield server
    finally:
        stop_group(proc, signal.SIGTERM, 30)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


def wait_until_healthy(proc: subprocess.Popen, base: str, seconds: float, output: Callable[[], str],
                       path: str = "/api/health") -> None:
    """Until ``base`` + ``path`` (DropQA's health, or another server's, e.g. an OpenAI-compatible ``/models``)
    answers OK; RuntimeError (with ``output()``) if the process exits or ``seconds`` pass first."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {output()}")
        try:
            if requests.get(base + path, timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server did not come up in {seconds:.0f} s: {output()[-2000:]}")


def stop_group(proc: subprocess.Popen, sig: int, seconds: float) -> None:
    """Send ``sig`` to the process group, wait ``seconds``, then SIGKILL it."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, sig)
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def sse_events(response: requests.Response) -> Iterator[tuple[str, Any]]:
    """``(event, data)`` from a text/event-stream response; ``data`` parsed as JSON when it is JSON."""
    event, data = "message", []
    for raw in response.iter_lines(decode_unicode=True):
        line = raw or ""
        if not line:
            if data:
                text = "\n".join(data)
                try:
                    yield event, json.loads(text)
                except json.JSONDecodeError:
                    yield event, text
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)


def wait_for_jobs(server: Server, job_ids: list[str], timeout_s: float = 120) -> list[tuple[str, Any]]:
    """Follow ``GET /api/jobs/stream?ids=…`` until its ``end`` event; returns every event."""
    with requests.get(server.base + "/api/jobs/stream", params=[("ids", j) for j in job_ids], stream=True,
                      headers=server.headers(), timeout=timeout_s) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = []
        for event, data in sse_events(r):
            events.append((event, data))
            if event == "end":
                return events
    raise AssertionError(f"the job stream ended without 'end': {events}")
