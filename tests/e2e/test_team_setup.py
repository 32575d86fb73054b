"""The README's team set-up, run as written: its five commands in a fresh data dir (the folder the index
command names holds the example corpus; the server listens on every address at a free port instead of
the README's LAN address), then the keys they printed against the running server."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Iterator

import pytest
import requests

from tests.conftest import EXAMPLES, ROOT
from tests.e2e.api_support import DROPQA, dropqa_env, free_port, fresh_data_dir, wait_until_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(55)]


def team_commands() -> list[str]:
    """The bash block under the README's "A team" heading, comments dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## A team", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)
    assert block, "the README's team set-up has no bash block"
    return [re.sub(r"\s+#.*$", "", line).strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    commands = team_commands()
    assert len(commands) == 5 and all(c.startswith("dropqa ") for c in commands)
    work = tmp_path_factory.mktemp("team")
    data = fresh_data_dir("dropqa-team-")
    env = dropqa_env(data)
    printed: list[str] = []
    for command in commands[:-1]:
        args = shlex.split(command)
        folder = next((a for a in args if a.startswith("./")), None)
        if folder:
            shutil.copytree(EXAMPLES, work / folder)
        done = subprocess.run([DROPQA, *args[1:]], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        printed.append(done.stdout)
    keys = [line for out in printed for line in out.splitlines() if line.startswith("dqa_")]
    assert len(keys) == 2, printed
    serve = shlex.split(commands[-1])
    assert serve[1] == "serve" and serve[2] == "--host"
    port = free_port()
    log = open(data / "serve.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([DROPQA, "serve", "--host", "0.0.0.0", "--port", str(port)], env=env, cwd=work,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(proc, base, 300, lambda: (data / "serve.log").read_text(errors="replace"))
        yield {"base": base, "admin": keys[0], "reader": keys[1]}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(60)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


def test_the_five_commands_set_up_a_team(team: dict) -> None:
    """Off loopback without DROPQA_API_TOKEN the server starts, because keys exist — and wants one."""
    base = team["base"]

    def get(path: str, key: str | None = None) -> requests.Response:
        return requests.get(base + path, headers={"Authorization": f"Bearer {key}"} if key else {}, timeout=60)

    assert get("/api/documents").status_code == 401
    docs = get("/api/documents", team["reader"]).json()["documents"]
    assert len(docs) == 4 and {d["kb"] for d in docs} == {"hr-policies"}
    models = [m["id"] for m in get("/v1/models", team["reader"]).json()["data"]]
    assert models == ["dropqa", "dropqa/hr-policies"]
    assert get("/api/keys", team["reader"]).status_code == 403
    keys = {k["name"]: k for k in get("/api/keys", team["admin"]).json()}
    assert keys["hr-team"]["kbs"] == ["hr-policies"] and keys["admin"]["role"] == "admin"
    answer = requests.post(base + "/v1/chat/completions", headers={"Authorization": f"Bearer {team['reader']}"},
                           json={"model": "dropqa/hr-policies",
                                 "messages": [{"role": "user", "content": "核心数据库的恢复时间目标是多少？"}]},
                           timeout=120).json()
    assert "45" in answer["choices"][0]["message"]["content"] and answer["model"] == "dropqa/hr-policies"
