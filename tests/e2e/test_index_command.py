"""`dropqa index` a user can watch and stop, and a half-embedded store seen over HTTP.

Real processes: the command with its output piped (as in a log or CI), a SIGINT in the middle of a
run, a process killed between writing a version and embedding it, and `dropqa serve`.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.e2e.api_support import dropqa_env, dropqa_server, fresh_data_dir

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(215)]
DROPQA = str(Path(sys.executable).with_name("dropqa"))
LONG_NAME = "a_broken_report_whose_name_is_much_longer_than_any_table_column_would_show.docx"


@pytest.fixture()
def env() -> Iterator[dict[str, str]]:
    data = fresh_data_dir("dropqa-index-")
    yield dropqa_env(data)
    shutil.rmtree(data, ignore_errors=True)


def file_lines(stdout: str) -> dict[str, str]:
    """The per-file lines: source key → result."""
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in ("indexed", "new_version", "unchanged", "failed") and " nodes " in line:
            key = line.split(" s  ", 1)[1].split("  — ")[0].split("  (")[0]
            out[key] = parts[0]
    return out


def test_piped_output_has_one_whole_line_per_file(env: dict[str, str], tmp_path: Path) -> None:
    for f in EXAMPLES.iterdir():
        shutil.copy2(f, tmp_path / f.name)
    (tmp_path / LONG_NAME).write_bytes(b"PK\x03\x04 not really a zip")
    out = subprocess.run([DROPQA, "index", str(tmp_path), "--workers", "2"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = file_lines(out.stdout)
    assert lines == {**{f.name: "indexed" for f in EXAMPLES.iterdir()}, LONG_NAME: "failed"}
    failed = next(line for line in out.stdout.splitlines() if line.startswith("failed "))
    assert failed.split(" s  ", 1)[1].startswith(LONG_NAME + "  — ") and "damaged" in failed
    assert "indexed: 4" in out.stdout and "failed: 1" in out.stdout
    assert "\x1b[" not in out.stdout + out.stderr  # no bar, no colour codes in a log
    docs = subprocess.run([DROPQA, "docs"], env=env, capture_output=True, text=True, timeout=120)
    assert all(line.endswith("full-text ready · semantic 100 %") for line in docs.stdout.splitlines())
    assert len(docs.stdout.splitlines()) == 4


NOTES = 10  # enough to stop after the first: the signal comes as soon as its line is read


def test_sigint_stops_after_the_current_file_and_keeps_finished_ones(env: dict[str, str], tmp_path: Path) -> None:
    for i in range(NOTES):
        (tmp_path / f"note_{i:02d}.md").write_text(
            f"# Note {i}\n\n## Facts\n\nThe code word of note {i} is word{i * 7919}.\n", encoding="utf-8")
    proc = subprocess.Popen([DROPQA, "index", str(tmp_path)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # a line as soon as the first file is done, though piped
    assert first.startswith("indexed "), first
    proc.send_signal(signal.SIGINT)
    rest, errors = proc.communicate(timeout=300)
    stdout = first + rest
    assert proc.returncode == 130, stdout + errors
    assert "SIGINT: stopping after" in errors and "Stopped after" in stdout
    finished = file_lines(stdout)
    assert finished and set(finished.values()) == {"indexed"}
    listed = subprocess.run([DROPQA, "docs"], env=env, capture_output=True, text=True, timeout=120).stdout
    assert {line.split("\t")[0] for line in listed.splitlines()} == set(finished)  # finished work is kept

    again = subprocess.run([DROPQA, "index", str(tmp_path)], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    rerun = file_lines(again.stdout)
    assert len(rerun) == NOTES and all(rerun[k] == "unchanged" for k in finished)
    assert sum(1 for v in rerun.values() if v == "indexed") == NOTES - len(finished) > 0


KILL_AFTER_WRITE = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from dropqa.config import get_settings
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.services import Services

    svc = Services.open(get_settings())
    indexer = Indexer(svc.db, svc.settings, svc.embedder)

    def progress(stage, details=None):
        if stage == "embedding":
            os.kill(os.getpid(), signal.SIGKILL)

    indexer.index_file(Path(sys.argv[1]), Path(sys.argv[1]).name, progress=progress)
""")


def test_half_embedded_document_answers_and_shows_its_status_over_http(tmp_path: Path) -> None:
    shutil.copy2(EXAMPLES / "云栖数据平台运维手册.md", tmp_path / "云栖数据平台运维手册.md")
    with dropqa_server(api__embedded_workers="0") as server:
        killed = subprocess.run([sys.executable, "-c", KILL_AFTER_WRITE, str(tmp_path / "云栖数据平台运维手册.md")],
                                env=server.env, capture_output=True, text=True, timeout=300)
        assert killed.returncode == -9, killed.stdout + killed.stderr
        docs = server.get("/api/documents").json()["documents"]
        status = docs[0]["index_status"]
        assert status["fulltext"] == "ready" and status["semantic_percent"] == 0 and status["pending"] > 0
        assert status["label"] == "full-text ready · semantic 0 %"
        detail = server.get(f"/api/documents/{docs[0]['id']}").json()
        assert detail["index_status"]["pending"] == status["pending"]
        health = server.get("/api/health").json()
        assert health["embeddings"] == {"pending_passages": status["pending"], "documents_filling": 1}
        answer = server.post("/api/qa/ask", json={"question": "核心数据库的恢复时间目标是多少？"}).json()
        assert answer["answerable"] is True and "45 分钟" in answer["answer"]

        rerun = subprocess.run([DROPQA, "index", str(tmp_path)], env=server.env, capture_output=True, text=True,
                               timeout=300)
        assert rerun.returncode == 0 and "unchanged: 1" in rerun.stdout, rerun.stdout + rerun.stderr
        after = server.get("/api/documents").json()["documents"][0]["index_status"]
        assert after["semantic_percent"] == 100 and after["pending"] == 0
        assert server.get("/api/health").json()["embeddings"]["pending_passages"] == 0


WORDS = ("amber basalt cedar delta ember fjord granite harbor indigo juniper kelp lagoon meadow nectar orchid "
         "pewter quartz river saffron tundra umber violet willow yarrow zephyr anchor beacon canyon dune estuary "
         "falcon glacier heron inlet jasper kestrel lantern marble nebula otter")


def distinct_notes(path: Path, seed: int, passages: int) -> None:
    """A Markdown file of ``passages`` sections whose lines differ in their words, not only in numbers."""
    rng = random.Random(seed)
    path.write_text("\n".join(f"## Note {i}\n\nThe {' '.join(rng.sample(WORDS.split(), 9))} survey log entry.\n"
                              for i in range(passages)), encoding="utf-8")


def semantic_labels(env: dict[str, str]) -> list[str]:
    docs = subprocess.run([DROPQA, "docs"], env=env, capture_output=True, text=True, timeout=120)
    return [line.rsplit("\t", 1)[-1] for line in docs.stdout.splitlines()]


def test_no_wait_leaves_the_embeddings_and_waiting_shows_the_backlog(env: dict[str, str], tmp_path: Path) -> None:
    """Issue 23: `--no-wait` returns once the files answer by full-text, embedding nothing (the workers do:
    test_deferred_embeddings.py); a waiting `dropqa index` prints the backlog — passages, texts to embed, rate,
    time left — while it waits, and returns with nothing left."""
    distinct_notes(tmp_path / "first.md", 1, 30)
    quick = subprocess.run([DROPQA, "index", str(tmp_path), "--no-wait"], env=env, capture_output=True, text=True,
                           timeout=300)
    assert quick.returncode == 0, quick.stdout + quick.stderr
    assert "indexed: 1" in quick.stdout and "embedded 0 passage(s)" in quick.stdout, quick.stdout
    assert "30 passage(s) still to embed (--no-wait)" in quick.stdout, quick.stdout
    assert semantic_labels(env) == ["full-text ready · semantic 0 %"]

    distinct_notes(tmp_path / "second.md", 2, 30)
    slow = {**env, "DROPQA_INGESTION__BACKLOG_REPORT_S": "0.05", "DROPQA_INGESTION__EMBED_FILL_BATCH": "8"}
    waited = subprocess.run([DROPQA, "index", str(tmp_path)], env=slow, capture_output=True, text=True,
                            timeout=300)
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert "indexed: 1" in waited.stdout and "unchanged: 1" in waited.stdout, waited.stdout
    backlog = [line for line in waited.stdout.splitlines() if line.startswith("embedding: ")]
    assert backlog and all(" passage(s) left (" in line for line in backlog), waited.stdout
    assert any(" texts/s · about " in line and line.endswith(" left") for line in backlog), backlog
    assert "still to embed" not in waited.stdout
    assert semantic_labels(env) == ["full-text ready · semantic 100 %"] * 2
