"""Load on a real ``dropqa serve`` (loopback only, bounded in time; a benchmark, not a test).

    python -m benchmarks.load [--corpus DIR] [--golden FILE] [--clients 8] [--seconds 60]
                              [--single-seconds 20] [--burst 50] [--out benchmarks/results]

In one run, on one server (its own data dir, the embedded PostgreSQL, offline mode):

1. index the sample corpus (``../shared/samples`` when present, else ``examples/corpus``);
2. one client asking the golden questions in turn for ``--single-seconds``: the single-client p50/p95;
3. ``--clients`` clients for ``--seconds``: errors, p50/p95 beside the single-client figures, the
   server's RSS before/after/peak; half-way, a 1 MB question on every entry point (REST ask, REST
   stream, ``/v1``, MCP ``ask``): how fast each is refused, and the clients' p95 around it;
4. ``--burst`` clients at once: how many got 429 and how fast, the slowest answer — none may hang.

Writes ``load.json`` and ``load.md`` to ``--out`` and prints the table. Targets (issue 15): 0 errors
under 8 clients, RSS growth ≤ 10 %, 429s within 1 s, a 1 MB question refused in < 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests
import yaml

from benchmarks.report import shown_path, write_results
from benchmarks.timing import percentiles

ROOT = Path(__file__).resolve().parents[1]
DROPQA = str(Path(sys.executable).with_name("dropqa"))
FALLBACK_QUESTIONS = ["How many days of annual leave do full-time employees get?", "核心数据库的恢复时间目标是多少？",
                      "How much does business support cost per month?", "远程办公需要满足什么条件？"]
MEGABYTE = "why is that? " * 80_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, corpus: Path):
        self.data = Path(tempfile.mkdtemp(prefix="dropqa-load-"))
        self.data.chmod(0o755)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DROPQA_") and k != "DATABASE_URL"}
        self.env.update(DROPQA_DATA_DIR=str(self.data), OPENBLAS_NUM_THREADS="1")
        started = time.perf_counter()
        subprocess.run([DROPQA, "index", str(corpus)], env=self.env, check=False, stdout=subprocess.DEVNULL)
        self.index_s = time.perf_counter() - started
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(self.data / "server.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([DROPQA, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                                     env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if requests.get(self.base + "/api/health", timeout=2).ok:
                    return
            except requests.RequestException:
                time.sleep(0.3)
        raise RuntimeError("the server did not come up")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


def ask(base: str, question: str, timeout: float = 120) -> tuple[int, float]:
    started = time.perf_counter()
    try:
        status = requests.post(base + "/api/qa/ask", json={"question": question}, timeout=timeout).status_code
    except requests.RequestException:
        status = -1
    return status, (time.perf_counter() - started) * 1000


def clients(base: str, questions: list[str], n: int, seconds: float) -> list[tuple[float, int, float]]:
    """``n`` clients asking in turn for ``seconds``: (start offset s, status, ms) per request."""
    results: list[tuple[float, int, float]] = []
    lock = threading.Lock()
    t0 = time.perf_counter()

    def client(k: int) -> None:
        i = k
        while time.perf_counter() - t0 < seconds:
            offset = time.perf_counter() - t0
            status, ms = ask(base, questions[i % len(questions)])
            with lock:
                results.append((offset, status, ms))
            i += n

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def refuse_megabyte(base: str) -> dict[str, dict[str, Any]]:
    """The 1 MB question on each entry point: status and ms until the refusal."""
    out: dict[str, dict[str, Any]] = {}
    mcp_headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    calls = {
        "rest_ask": ("/api/qa/ask", {"question": MEGABYTE}, {}),
        "rest_stream": ("/api/qa/stream", {"question": MEGABYTE}, {}),
        "v1": ("/v1/chat/completions", {"model": "dropqa", "messages": [{"role": "user", "content": MEGABYTE}]}, {}),
        "mcp_ask": ("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "ask", "arguments": {"question": MEGABYTE}}}, mcp_headers),
    }
    for name, (path, body, headers) in calls.items():
        started = time.perf_counter()
        r = requests.post(base + path, json=body, headers=headers, timeout=120)
        ms = (time.perf_counter() - started) * 1000
        refused = r.status_code == 422 or (name == "mcp_ask" and '"isError":true' in r.text.replace(" ", ""))
        out[name] = {"status": r.status_code, "ms": round(ms, 1), "refused": refused}
    return out


def burst(base: str, question: str, n: int) -> list[tuple[int, float, str | None]]:
    results: list[tuple[int, float, str | None]] = []
    lock = threading.Lock()
    gate = threading.Barrier(n)

    def one() -> None:
        gate.wait()
        started = time.perf_counter()
        try:
            r = requests.post(base + "/api/qa/ask", json={"question": question}, timeout=120)
            status, retry = r.status_code, r.headers.get("retry-after")
        except requests.RequestException:
            status, retry = -1, None
        with lock:
            results.append((status, (time.perf_counter() - started) * 1000, retry))

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def p(values: list[float]) -> dict[str, float | None]:
    q = percentiles(values)
    return {"p50": q["p50_ms"], "p95": q["p95_ms"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    shared = ROOT.parent / "shared" / "samples"
    parser.add_argument("--corpus", type=Path,
                        default=shared / "corpus" if shared.exists() else ROOT / "examples" / "corpus")
    parser.add_argument("--golden", type=Path, default=shared / "golden.yaml" if shared.exists() else None)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--single-seconds", type=float, default=20.0)
    parser.add_argument("--burst", type=int, default=50)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    questions = FALLBACK_QUESTIONS
    if args.golden and args.golden.exists():
        items = yaml.safe_load(args.golden.read_text(encoding="utf-8"))
        items = items.get("questions", items) if isinstance(items, dict) else items
        questions = [q["question"] for q in items if isinstance(q, dict) and q.get("question")] or questions

    server = Server(args.corpus)
    try:
        pid = server.proc.pid
        for q in questions[:4]:  # warm-up: models loaded, pools filled
            ask(server.base, q)
        single = clients(server.base, questions, 1, args.single_seconds)
        rss_before = rss_mb(pid)
        peak = [rss_before]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(1.0):
                peak.append(rss_mb(pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        refusals: dict[str, Any] = {}

        def refuse_later() -> None:
            time.sleep(args.seconds / 2)
            refusals.update(refuse_megabyte(server.base))
            refusals["_at_s"] = args.seconds / 2

        refuser = threading.Thread(target=refuse_later)
        refuser.start()
        multi = clients(server.base, questions, args.clients, args.seconds)
        refuser.join()
        stop.set()
        rss_after = rss_mb(pid)
        burst_results = burst(server.base, questions[0], args.burst)
        health = requests.get(server.base + "/api/health", timeout=10).json()
    finally:
        server.stop()

    single_ms = [ms for _, s, ms in single if s == 200]
    multi_ok = [ms for _, s, ms in multi if s == 200]
    mid = args.seconds / 2
    around = [ms for t, s, ms in multi if s == 200 and mid - 5 <= t <= mid + 5]
    refused_429 = [(ms, r) for s, ms, r in burst_results if s == 429]
    report = {
        "corpus": shown_path(args.corpus), "questions": len(questions), "index_s": round(server.index_s, 1),
        "single": {"requests": len(single), "errors": sum(1 for _, s, _ in single if s != 200), **p(single_ms)},
        "multi": {"clients": args.clients, "seconds": args.seconds, "requests": len(multi),
                  "errors": sum(1 for _, s, _ in multi if s != 200), **p(multi_ok),
                  "p95_around_1mb_refusals": p(around)["p95"]},
        "rss_mb": {"before": round(rss_before, 1), "after": round(rss_after, 1), "peak": round(max(peak), 1),
                   "growth_pct": round(100 * (rss_after - rss_before) / rss_before, 1) if rss_before else None},
        "megabyte_question": refusals,
        "burst": {"clients": args.burst, "ok": sum(1 for s, _, _ in burst_results if s == 200),
                  "429": len(refused_429), "other": sum(1 for s, _, _ in burst_results if s not in (200, 429)),
                  "max_429_ms": round(max((ms for ms, _ in refused_429), default=0), 1),
                  "all_429_have_retry_after": all(r for _, r in refused_429),
                  "max_ms": round(max((ms for _, ms, _ in burst_results), default=0), 1)},
        "load_after": health.get("load"),
    }
    write_results(args.out, "load", report, render(report))
    return 0


def render(r: dict[str, Any]) -> str:
    s, m, rss, b, mb = r["single"], r["multi"], r["rss_mb"], r["burst"], r["megabyte_question"]
    lines = [
        f"# Load ({r['corpus']}, {r['questions']} questions, offline)", "",
        "| phase | requests | errors | p50 ms | p95 ms |", "|---|---|---|---|---|",
        f"| 1 client | {s['requests']} | {s['errors']} | {s['p50']} | {s['p95']} |",
        f"| {m['clients']} clients, {m['seconds']:.0f} s | {m['requests']} | {m['errors']} | {m['p50']} | {m['p95']} |",
        "",
        f"p95 ratio {m['clients']} clients / 1 client: "
        f"{(m['p95'] / s['p95']) if s['p95'] and m['p95'] else float('nan'):.2f} "
        f"(2 cores; runs at most api.max_concurrent_runs at a time). "
        f"p95 within ±5 s of the 1 MB refusals: {m['p95_around_1mb_refusals']} ms.",
        f"Server RSS: {rss['before']} MB before, {rss['after']} MB after, peak {rss['peak']} MB "
        f"(growth {rss['growth_pct']} %; target ≤ 10 %).",
        "1 MB question: " + ", ".join(f"{k} {v['status']}{' refused' if v['refused'] else ' NOT refused'} in "
                                       f"{v['ms']} ms" for k, v in mb.items()
                                       if not k.startswith("_")) + " (target < 1000 ms each).",
        f"Burst of {b['clients']}: {b['ok']} answered, {b['429']} got 429 (slowest 429: {b['max_429_ms']} ms; "
        f"Retry-After on all: {b['all_429_have_retry_after']}), {b['other']} other; slowest response "
        f"{b['max_ms']} ms (none hung).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
