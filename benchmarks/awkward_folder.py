"""Issue 23's bad-input-like folder through `dropqa index`, measured once: wall time and peak memory.

    python -m benchmarks.awkward_folder [--out benchmarks/results] [--no-wait]

The folder (:func:`build`, generated): eight broken files (truncated Word / PowerPoint / Excel, a garbage and
an encrypted PDF, binary bytes named .md, a zip bomb, an empty file), five awkward good ones (an emoji and
Chinese path, GBK and UTF-16 text, a Word file named .txt, a 20,000-row sheet), a Markdown file of 20,000
headings with one line under each (40,001 nodes), a 2 MB text on one line (~3,800 nodes) and a 600-page PDF
with one line per page. `dropqa index` runs on it in a fresh data dir as a user would run it (its own
process, output piped); the target (issue 23) is ≤ 10 minutes on 2 cores including every embedding, peak RSS
≤ 1 GiB. Peak RSS is sampled every 0.2 s over the `dropqa` process and its parse children (the embedded
PostgreSQL, a separate server, is reported apart). The machine is shared: the load average is recorded.
PostgreSQL's figure is the sum of its processes' PSS (their shared buffers counted once). Writes
``awkward_folder.json`` and prints Markdown.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SENTENCE = "the archive keeps every invoice for seven years and the auditors sample them each quarter "
BROKEN = ("truncated.docx", "truncated.pptx", "truncated.xlsx", "garbage.pdf", "encrypted.pdf", "binary.md",
          "bomb.docx", "empty.txt")
GOOD = ("季度 报告 🚀/2025 年 Q1 总结 🚀 final (v2).md", "制度-gbk.txt", "notes-utf16.txt", "policy.txt",
        "inventory.xlsx")
BIG = ("headings.md", "one-line.txt", "inspection-log.pdf")


def build(folder: Path) -> dict[str, str]:
    """Write the folder; returns the expected result per source key (``indexed`` / ``failed``)."""
    import pymupdf

    from tests.support import documents as gen

    folder.mkdir(parents=True, exist_ok=True)
    docx = gen.docx_bytes([("h1", "差旅管理办法"), ("h2", "住宿"), ("p", "一线城市住宿标准为每晚 600 元。")])
    pptx = gen.pptx_bytes([("Roadmap", ["point one", "point two"])])
    xlsx = gen.xlsx_bytes({"Sheet": [["a", "b"], [1, 2]]})
    locked = pymupdf.open()
    locked.new_page().insert_text((72, 72), "The vault code is kept in the safe.")
    broken = {
        "truncated.docx": docx[: len(docx) // 2], "truncated.pptx": pptx[: len(pptx) // 2],
        "truncated.xlsx": xlsx[: len(xlsx) // 2], "garbage.pdf": b"%PDF-1.7\n" + bytes(range(256)) * 8,
        "encrypted.pdf": locked.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret",
                                        owner_pw="secret"),
        "binary.md": bytes(range(256)) * 40,
        "bomb.docx": gen.with_extra_part(docx, "word/media/filler.bin", 40 << 20), "empty.txt": b"",
    }
    for name, data in broken.items():
        (folder / name).write_bytes(data)
    odd = folder / GOOD[0]
    odd.parent.mkdir(parents=True, exist_ok=True)
    odd.write_text("# 总结\n\n## 销售\n\n一季度华东区销售额同比增长 18%。\n", encoding="utf-8")
    rules = "第一章 总则\n\n本制度适用于集团全体员工。\n\n第二章 考勤\n\n员工每月可申请两次弹性工作日。\n"
    (folder / "制度-gbk.txt").write_bytes(rules.encode("gbk"))
    (folder / "notes-utf16.txt").write_bytes("\ufeffMeeting notes\n\nThe drill is on Friday.\n".encode("utf-16-le"))
    (folder / "policy.txt").write_bytes(docx)  # a Word file under a wrong name: parsed by its real type
    (folder / "inventory.xlsx").write_bytes(gen.xlsx_bytes(
        {"库存": [["编号", "物料", "库位"], *([i, f"SKU-{i:06d}", i % 97] for i in range(20_000))]}))
    (folder / "headings.md").write_text("\n".join(
        f"{'#' * (1 + i % 4)} Heading {i}\n\nUnder heading {i} the quokka quota is {10_000 + i * 7 % 20_011} units.\n"
        for i in range(20_000)), encoding="utf-8")
    line = (SENTENCE * (2_000_000 // len(SENTENCE) + 1))[:2_000_000]
    (folder / "one-line.txt").write_bytes(line.encode())
    log = pymupdf.open()
    for i in range(600):
        log.new_page().insert_text((72, 72), f"Page {i + 1} of the long inspection log. Reading {i * 7 % 997}.")
    (folder / "inspection-log.pdf").write_bytes(log.tobytes())
    return {**dict.fromkeys(BROKEN, "failed"), **dict.fromkeys(GOOD + BIG, "indexed")}


class _Peak(threading.Thread):
    """Samples the RSS of a process tree, and apart of the PostgreSQL processes serving ``data_dir``."""

    def __init__(self, pid: int, data_dir: Path) -> None:
        super().__init__(daemon=True)
        self.pid, self.data_dir = pid, str(data_dir)
        self.tree_mb, self.main_mb, self.postgres_mb = 0.0, 0.0, 0.0
        self.done = threading.Event()

    @staticmethod
    def _rss(procs: list[psutil.Process], proportional: bool = False) -> float:
        """Resident MB; ``proportional``: PSS, so the shared buffers PostgreSQL's processes all map count once."""
        total = 0.0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                total += (p.memory_full_info().pss if proportional else p.memory_info().rss) / 2**20
        return total

    def run(self) -> None:
        while not self.done.wait(0.2):
            try:
                main = psutil.Process(self.pid)
                tree = [main, *main.children(recursive=True)]
            except psutil.Error:
                continue
            postgres = []
            for p in psutil.process_iter(["name", "cmdline"]):
                with contextlib.suppress(psutil.Error, TypeError):
                    if "postgres" in (p.info["name"] or "") and (
                            self.data_dir in " ".join(p.parent().cmdline() + p.cmdline())):
                        postgres.append(p)
            self.main_mb = max(self.main_mb, self._rss([main]))
            self.tree_mb = max(self.tree_mb, self._rss([p for p in tree if p not in postgres]))
            self.postgres_mb = max(self.postgres_mb, self._rss(postgres, proportional=True))


def run(no_wait: bool = False) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="dropqa-awkward-"))
    work.chmod(0o755)  # the embedded PostgreSQL runs unprivileged when this runs as root
    try:
        expected = build(work / "folder")
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("DROPQA_")}
        env.update(DROPQA_DATA_DIR=str(work / "data"), OPENBLAS_NUM_THREADS="1")
        dropqa = str(Path(sys.executable).with_name("dropqa"))
        load_before = os.getloadavg()
        started = time.perf_counter()
        proc = subprocess.Popen([dropqa, "index", str(work / "folder"), *(["--no-wait"] if no_wait else [])],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        peak = _Peak(proc.pid, work / "data")
        peak.start()
        output = proc.communicate()[0]
        seconds = time.perf_counter() - started
        peak.done.set()
        subprocess.run([dropqa, "db", "stop"], env=env, capture_output=True, timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    got = {}
    for line in output.splitlines():
        parts = line.split()
        if parts and parts[0] in ("indexed", "failed") and " nodes " in line:
            got[line.split(" s  ", 1)[1].split("  — ")[0].split("  (")[0]] = (parts[0], int(parts[1]))
    return {
        "no_wait": no_wait, "exit_code": proc.returncode, "seconds": round(seconds, 1),
        "target_s": 600, "within_target": seconds <= 600 and all(got.get(k, ("?",))[0] == v
                                                                  for k, v in expected.items()),
        "peak_rss_mb": {"dropqa_and_parse_children": round(peak.tree_mb), "dropqa": round(peak.main_mb),
                        "embedded_postgresql": round(peak.postgres_mb)},
        "memory_target_mb": 1024, "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()], "cores": os.cpu_count(),
        "files": {k: {"expected": v, "got": got.get(k, ("missing", 0))[0], "nodes": got.get(k, ("", 0))[1]}
                  for k, v in expected.items()},
        "summary": [line for line in output.splitlines() if not line.startswith(("indexed ", "failed ", "  "))],
    }


def markdown(result: dict[str, Any]) -> str:
    out = [f"## `dropqa index` on issue 23's awkward folder{' (--no-wait)' if result['no_wait'] else ''}", "",
           f"{result['seconds']} s (target ≤ {result['target_s']} s), exit {result['exit_code']}, peak RSS "
           f"{result['peak_rss_mb']['dropqa_and_parse_children']} MB for dropqa and its parse children (dropqa "
           f"alone {result['peak_rss_mb']['dropqa']} MB; PostgreSQL {result['peak_rss_mb']['embedded_postgresql']}"
           f" MB PSS), {result['cores']} cores, load {result['load_average_before']} → {result['load_average_after']}.",
           "", "| file | expected | got | nodes |", "|---|---|---|---|"]
    out += [f"| {k} | {v['expected']} | {v['got']} | {v['nodes']} |" for k, v in result["files"].items()]
    return "\n".join([*out, "", "```", *result["summary"], "```", ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--no-wait", action="store_true", help="dropqa index --no-wait (embeddings left pending)")
    args = parser.parse_args()
    result = run(args.no_wait)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "awkward_folder_no_wait.json" if args.no_wait else "awkward_folder.json"
    (args.out / name).write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
