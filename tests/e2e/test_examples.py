"""The first ten minutes: every example a new user copies works from a clone.

`dropqa run examples/corpus` (what `make run` does) is started on a free port; the commands it
prints and every `curl` / `dropqa ask` command in README.md's bash blocks are run as written
(through bash, real curl, real HTTP) with only the address and `<job_id>` filled in. Each
question must be answered from the example corpus, citing the section that holds the answer.
A new example question fails here until EXPECTED says where its answer is.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import ROOT
from tests.e2e.api_support import dropqa_env, free_port, fresh_data_dir, wait_until_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(80)]
DROPQA = str(Path(sys.executable).with_name("dropqa"))
README = ROOT / "README.md"
DEFAULT_BASE = "http://127.0.0.1:8000"

# question -> (document, a piece of the cited section path, a piece of the answer)
EXPECTED: dict[str, tuple[str, str, str]] = {
    "核心数据库的恢复时间目标是多少？": ("云栖数据平台运维手册.md", "3.2 恢复演练", "45"),
    "How many days of annual leave do full-time employees get?": ("aurora_handbook.md", "3.1 Annual Leave", "27"),
    "一线城市出差住宿费每晚不超过多少？": ("云栖科技差旅报销规定.docx", "住宿标准", "600"),
    "云栖数据平台3.0的发布日期是哪天？": ("会议纪要_2025年4月.txt", "会议决定", "5月20日"),
    "How much does business support cost per month?": ("pricing.md", "Support", "300 EUR"),
}


def readme_commands() -> list[str]:
    """`curl …` and `… dropqa ask …` commands of README.md's bash blocks, continuation lines joined."""
    commands: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        text = re.sub(r"\\\n\s*", " ", block)
        for line in text.splitlines():
            line = re.sub(r"\s{2,}#.*$", "", line).strip()
            if line.startswith("curl ") or re.match(r"^(\.venv/bin/)?dropqa ask ", line):
                commands.append(line)
    return commands


def questions_in(command: str) -> list[str]:
    found = re.findall(r'"(?:question|content)": "([^"]+)"', command)
    ask = re.match(r'^(?:\.venv/bin/)?dropqa ask "([^"]+)"', command)
    return found + ([ask.group(1)] if ask else [])


@pytest.fixture(scope="module")
def served() -> Iterator[dict[str, Any]]:
    data = fresh_data_dir("dropqa-examples-")
    env = dropqa_env(data, NO_COLOR="1", COLUMNS="400")
    port = free_port()
    log_path = data / "run.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([DROPQA, "run", "examples/corpus", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(proc, base, 600, lambda: log_path.read_text(errors="replace"))
        yield {"base": base, "env": env, "output": log_path.read_text(errors="replace"), "port": port}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(60)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


def run_example(served: dict[str, Any], command: str, job_ids: list[str] | None = None) -> str:
    command = command.replace(DEFAULT_BASE, served["base"]).replace("$B", served["base"])
    if job_ids:
        command = command.replace("<job_id>", ",".join(job_ids))
    command = re.sub(r"^\.venv/bin/dropqa ", f"{DROPQA} ", command)
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=served["env"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def sse_data(text: str) -> list[tuple[str, Any]]:
    events, name = [], "message"
    for line in text.splitlines():
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            raw = line.split(":", 1)[1].strip()
            try:
                events.append((name, json.loads(raw)))
            except json.JSONDecodeError:
                events.append((name, raw))
            name = "message"
    return events


def check_answer(question: str, answer: str, sources: list[tuple[str, str]]) -> None:
    document, section, fact = EXPECTED[question]
    assert fact in answer, f"{question}: {answer!r}"
    assert any(d == document and section in s for d, s in sources[:3]), f"{question}: {sources[:3]}"


def check_output(command: str, out: str) -> None:
    """Whatever the command printed: an Answer, an SSE stream, a chat.completion or the CLI's text."""
    for question in questions_in(command):
        if "/v1/chat/completions" in command:
            body = json.loads(out)
            check_answer(question, body["choices"][0]["message"]["content"],
                         [(c["document_name"], c["section"]) for c in body["citations"]])
        elif "/api/qa/stream" in command:
            done = [d for e, d in sse_data(out) if e == "done"]
            assert len(done) == 1, out[-2000:]
            check_answer(question, done[0]["answer"], [(s["document_name"], s["section"]) for s in done[0]["sources"]])
        elif "/api/qa/ask" in command:
            body = json.loads(out)
            assert body["answerable"], body
            check_answer(question, body["answer"], [(s["document_name"], s["section"]) for s in body["sources"]])
        else:  # dropqa ask: "[1] document > section …" lines
            cited = re.findall(r"^\[\d+\] (\S+) > (.+?) · v\d", out, flags=re.M)
            check_answer(question, out, cited)


def test_every_example_question_has_an_expected_answer() -> None:
    commands = readme_commands()
    assert any("/api/documents/upload" in c for c in commands) and any("/v1/" in c for c in commands)
    asked = [q for c in commands for q in questions_in(c)]
    assert asked and set(asked) <= set(EXPECTED), set(asked) - set(EXPECTED)
    for command in commands:
        for path in re.findall(r"files=@([^' ]+)", command):
            assert (ROOT / path).is_file(), f"the README uploads {path}, which is not in the repository"


def test_make_run_prints_examples_that_answer(served: dict[str, Any]) -> None:
    output = served["output"]
    assert "listening on" in output
    printed = [ln.split(":", 1)[1].strip() for ln in output.splitlines()
               if re.match(r"^\s+(ask|or|upload):", ln)]
    assert len(printed) >= 3, output
    for command in printed:
        if "/api/documents/upload" in command:
            assert (ROOT / re.findall(r"files=@([^' ]+)", command)[0]).is_file()
            continue
        assert questions_in(command), command
        check_output(command, run_example(served, command))


def test_readme_commands_work_against_the_example_corpus(served: dict[str, Any]) -> None:
    """In README order: the upload, its job stream (`ids=a,b` form), then the questions — the
    uploaded file's question included."""
    job_ids: list[str] = []
    for command in readme_commands():
        out = run_example(served, command, job_ids)
        if "/api/documents/upload" in command:
            body = json.loads(out)
            assert body["success"] and body["documents"][0]["status"] == "queued", body
            job_ids = [d["job_id"] for d in body["documents"]]
        elif "/api/jobs/stream" in command:
            events = sse_data(out)
            assert events[-1][0] == "end", events[-3:]
            assert {d["id"]: d["state"] for e, d in events if e == "job"} == dict.fromkeys(job_ids, "done")
        else:
            check_output(command, out)


def _finished_jobs(base: str) -> list[str]:
    """Ids of finished jobs: the README upload's when an earlier test made it, else one made here (so the test does
    not depend on which tests ran before it on its worker)."""
    finished = [j["id"] for j in requests.get(base + "/api/jobs", timeout=30).json()["jobs"] if j["state"] == "done"]
    if finished:
        return finished
    upload = ROOT / "examples" / "upload" / "云栖科技差旅报销规定.docx"
    with upload.open("rb") as f:
        body = requests.post(base + "/api/documents/upload", files={"files": (upload.name, f)}, timeout=120).json()
    ids = [d["job_id"] for d in body["documents"] if d.get("job_id")]
    with requests.get(base + "/api/jobs/stream", params={"ids": ",".join(ids)}, stream=True, timeout=600) as r:
        sse_data(r.text)  # the stream ends when every job has finished
    return [j["id"] for j in requests.get(base + "/api/jobs", timeout=30).json()["jobs"] if j["state"] == "done"]


def test_job_stream_accepts_comma_separated_and_repeated_ids(served: dict[str, Any]) -> None:
    base = served["base"]
    finished = _finished_jobs(base)
    assert finished
    ids = [finished[0], finished[-1]]
    for params in ({"ids": ",".join(ids)}, [("ids", i) for i in ids]):
        with requests.get(base + "/api/jobs/stream", params=params, stream=True, timeout=60) as r:
            assert r.status_code == 200
            events = sse_data(r.text)
        assert events[-1][0] == "end" and {d["id"] for e, d in events if e == "job"} == set(ids)
    unknown = "00000000-0000-0000-0000-000000000000"  # no such job (or one of a base the caller may not read)
    missing = requests.get(base + "/api/jobs/stream", params={"ids": f"{finished[0]},{unknown}"}, timeout=30)
    assert missing.status_code == 404 and unknown in missing.json()["error"]["message"]
    bad = requests.get(base + "/api/jobs/stream", params={"ids": f"{finished[0]},nope"}, timeout=30)
    assert bad.status_code == 422 and "nope" in json.dumps(bad.json())


def test_a_taken_port_is_said_plainly_before_any_banner(served: dict[str, Any]) -> None:
    done = subprocess.run([DROPQA, "serve", "--host", "127.0.0.1", "--port", str(served["port"])], cwd=ROOT,
                          env=served["env"], capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "listening on" not in said and "Errno" not in said
    assert f"port {served['port']}" in said and "already in use" in said
    assert "PORT=" in said and "DROPQA_PORT=" in said and "--port" in said
    env = {**served["env"], "DROPQA_PORT": str(served["port"])}  # DROPQA_PORT is the port asked for
    done = subprocess.run([DROPQA, "serve"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"port {served['port']}" in done.stderr + done.stdout
