"""``make bench`` — DropQA against baselines, measured in one run on one machine.

    python -m benchmarks.run [--scale 5000,20000,50000] [--rounds 3] [--scale-rounds 2]
                             [--suite GOLDEN.yaml:CORPUS_DIR ...] [--dev [NAME,...]] [--limit N]
                             [--out benchmarks/results] [--no-ingestion] [--no-quality]

Steps, in this order (each in its own fresh database of one embedded PostgreSQL server):

1. ingestion — runs ``python -m benchmarks.ingestion`` (another module's job) when that file
   exists, and merges the ``benchmarks/results/ingestion.json`` it writes;
2. retrieval quality and latency on each golden suite (:mod:`benchmarks.quality`): the sample
   suite ``../shared/samples/golden.yaml`` when ``../shared`` exists, and ``suites/golden_en.yaml``;
   with ``--dev`` also the development suites of ``../shared/evals-dev`` and the cross-language
   ``suites/golden_xl`` files (each right after its corpus' own suite, sharing its indexing);
   ``--dev dragonball-dev-en,xl-dragonball-dev-en`` picks some (:func:`dev_suites`);
3. scale (:mod:`benchmarks.scale`): generated corpus at each ``--scale`` step (``BENCH_SCALE``
   overrides the default 5000,20000,50000; ``BENCH_SCALE=0`` skips the step).

Writes ``quality.json``, ``scale.json``, ``bench.json`` (everything, with the targets) and
``latest.md`` (the table, also printed) to ``--out``. Targets are printed PASS / FAIL; the exit
status is 0 whatever they say (a benchmark, not a test), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks"
RESULTS = HERE / "results"
INGESTION_MODULE = HERE / "ingestion.py"
INGESTION_JSON = RESULTS / "ingestion.json"
DEFAULT_SCALE = "5000,20000,50000"


SHARED = ROOT.parent / "shared"
DEV_CORPORA = ("samples", "dragonball-dev-en", "dragonball-dev-zh", "cmrc-dev-zh", "multihop-dev-en")


def default_suites() -> list[tuple[str, Path, Path]]:
    suites = []
    shared = SHARED / "samples"
    if (shared / "golden.yaml").exists():
        suites.append(("samples (zh, shared)", shared / "golden.yaml", shared / "corpus"))
    suites.append(("golden_en", ROOT / "suites" / "golden_en.yaml", ROOT / "suites" / "corpus_en"))
    return suites


def dev_suites(shared: Path = SHARED) -> list[tuple[str, Path, Path]]:
    """The sample suite, ``suites/golden_en.yaml``, the four ``evals-dev`` suites, and after each corpus'
    own suite its ``suites/golden_xl/<corpus>.yaml`` (named ``xl-<corpus>``) — those present on disk.
    The names are ``make eval-dev``'s suite names."""
    suites = []
    for name in DEV_CORPORA:
        folder = shared / name if name == "samples" else shared / "evals-dev" / name
        if not (folder / "corpus").is_dir():
            continue
        if (folder / "golden.yaml").exists():
            suites.append((name, folder / "golden.yaml", folder / "corpus"))
        xl = ROOT / "suites" / "golden_xl" / f"{name}.yaml"
        if xl.exists():
            suites.append((f"xl-{name}", xl, folder / "corpus"))
        if name == "samples":
            suites.append(("golden_en", ROOT / "suites" / "golden_en.yaml", ROOT / "suites" / "corpus_en"))
    return suites


def suite_name(golden: Path) -> str:
    """A ``--suite`` file's name in the tables: ``<folder>`` for a ``golden.yaml``, ``xl-<stem>`` for a
    golden_xl file, else the file's stem."""
    if golden.stem == "golden" and golden.parent.name:
        return golden.parent.name
    if golden.parent.name == "golden_xl":
        return f"xl-{golden.stem}"
    return golden.stem


def parse_levels(text: str | None) -> tuple[int, ...]:
    text = (text or "").strip()
    if text.lower() in ("", "0", "none", "off"):
        return ()
    levels = tuple(sorted({int(x.replace("_", "").replace("k", "000")) for x in text.split(",") if x.strip()}))
    if any(n <= 0 for n in levels):
        raise ValueError(f"scale steps must be positive node counts, got {text!r}")
    return levels


def run_ingestion(log: Callable[[str], None], started: float, timeout_s: float = 3600) -> dict[str, Any] | None:
    """The hook for ``benchmarks/ingestion.py``: run it when present, then read what it wrote."""
    if INGESTION_MODULE.exists():
        log("[ingestion] python -m benchmarks.ingestion …")
        try:
            proc = subprocess.run([sys.executable, "-m", "benchmarks.ingestion"], cwd=ROOT, timeout=timeout_s,
                                  check=False)
            if proc.returncode:
                log(f"[ingestion] benchmarks.ingestion exited with {proc.returncode}")
        except subprocess.TimeoutExpired:
            log(f"[ingestion] benchmarks.ingestion did not finish within {timeout_s:.0f} s")
    if not INGESTION_JSON.exists():
        return None
    data = json.loads(INGESTION_JSON.read_text(encoding="utf-8"))
    if isinstance(data, dict) and INGESTION_JSON.stat().st_mtime < started:
        data = {**data, "stale": "written before this bench run (not re-measured now)"}
    return data


INDEXING_JSON = RESULTS / "indexing.json"


def run_indexing(log: Callable[[str], None], started: float, args: list[str] | None = None,
                 timeout_s: float = 3600) -> dict[str, Any] | None:
    """``benchmarks/indexing_speed.py``: the embedding floor and ingestion against it (issue 12)."""
    log("[indexing] python -m benchmarks.indexing_speed …")
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.indexing_speed",
                               *(args or ["--mb", "2", "--huge-fulltext-only"])],
                              cwd=ROOT, timeout=timeout_s, check=False)
        if proc.returncode:
            log(f"[indexing] benchmarks.indexing_speed exited with {proc.returncode}")
    except subprocess.TimeoutExpired:
        log(f"[indexing] benchmarks.indexing_speed did not finish within {timeout_s:.0f} s")
    if not INDEXING_JSON.exists() or INDEXING_JSON.stat().st_mtime < started:
        return None
    return json.loads(INDEXING_JSON.read_text(encoding="utf-8"))


def machine() -> str:
    mem = ""
    try:
        kb = int(next(line for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal")).split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{platform.machine()}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def run_bench(*, suites: list[tuple[str, Path, Path]], levels: tuple[int, ...], out: Path, rounds: int = 3,
              scale_rounds: int = 2, nodes_per_doc: int = 100, server_url: str | None = None,
              ingestion: bool = True, limit: int | None = None,
              log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run every step and write the results; return them (``targets`` included)."""
    from benchmarks.quality import SuiteSpec, run_suites
    from benchmarks.report import markdown, targets
    from benchmarks.scale import run_scale
    from benchmarks.server import BenchServer
    from dropqa.config import get_settings

    started = time.time()
    results: dict[str, Any] = {"meta": {
        "created_at": time.strftime("%Y-%m-%d %H:%M:%S %z"), "machine": machine(),
        "embeddings": get_settings().models.embeddings.model, "offline": bool(get_settings().offline),
        "scale_levels": list(levels), "rounds": rounds, "scale_rounds": scale_rounds,
    }}
    results["ingestion"] = run_ingestion(log, started) if ingestion else None
    results["indexing"] = run_indexing(log, started) if ingestion else None
    server = BenchServer(server_url)
    try:
        results["meta"]["postgres"] = server.version()
        results["quality"] = run_suites(server, [SuiteSpec(name, golden, corpus, limit)
                                                 for name, golden, corpus in suites], rounds=rounds, log=log)
        results["scale"] = run_scale(server, levels, nodes_per_doc=nodes_per_doc, rounds=scale_rounds,
                                     log=log) if levels else None
    finally:
        server.close()
    results["meta"]["seconds"] = round(time.time() - started, 1)
    results["targets"] = targets(results)
    out.mkdir(parents=True, exist_ok=True)
    write = [("quality.json", results["quality"]), ("bench.json", results)]
    if results["scale"]:
        write.append(("scale.json", results["scale"]))
    for name, data in write:
        (out / name).write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
    text = markdown(results)
    if results.get("indexing"):
        from benchmarks.indexing_speed import markdown as indexing_markdown

        text += "\n" + indexing_markdown(results["indexing"])
    (out / "latest.md").write_text(text, encoding="utf-8")
    return results


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", default=os.environ.get("BENCH_SCALE", DEFAULT_SCALE),
                    help="comma-separated node counts of the scale steps (env BENCH_SCALE; 0 = skip)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds over each golden suite")
    ap.add_argument("--scale-rounds", type=int, default=2, help="timed rounds of the planted-fact questions")
    ap.add_argument("--suite", action="append", default=[], metavar="GOLDEN:CORPUS",
                    help="a golden suite and its corpus folder (repeatable; default: the sample and English suites)")
    ap.add_argument("--dev", nargs="?", const="all", default=None, metavar="NAME,...",
                    help="also the dev suites when ../shared exists: samples, golden_en, dragonball-dev-en, "
                         "dragonball-dev-zh, cmrc-dev-zh, multihop-dev-en and each one's golden_xl file "
                         "(xl-NAME); or only the named ones")
    ap.add_argument("--limit", type=int, default=None, help="only the first N questions of each suite")
    ap.add_argument("--no-quality", action="store_true", help="skip the golden suites")
    ap.add_argument("--no-ingestion", action="store_true", help="do not run benchmarks/ingestion.py")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    try:
        levels = parse_levels(args.scale)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    suites = []
    for spec in args.suite:
        golden, _, corpus = spec.partition(":")
        if not corpus:
            print(f"error: --suite wants GOLDEN.yaml:CORPUS_DIR, got {spec!r}", file=sys.stderr)
            return 2
        suites.append((suite_name(Path(golden)), Path(golden), Path(corpus)))
    if args.dev:
        dev = dev_suites()
        if not dev:
            print(f"--dev: {SHARED} not found (or holds no suite): the dev suites are skipped", file=sys.stderr)
        if args.dev != "all":
            wanted = [n.strip() for n in args.dev.split(",") if n.strip()]
            unknown = sorted(set(wanted) - {n for n, _, _ in dev})
            if unknown:
                print(f"error: --dev: unknown or absent suite(s) {', '.join(unknown)}; known: "
                      f"{', '.join(n for n, _, _ in dev)}", file=sys.stderr)
                return 2
            dev = [s for s in dev if s[0] in wanted]
        suites += dev
    if not args.no_quality and not suites:
        suites = default_suites()
    if args.no_quality:
        suites = []
    results = run_bench(suites=suites, levels=levels, out=args.out, rounds=args.rounds,
                        scale_rounds=args.scale_rounds, ingestion=not args.no_ingestion, limit=args.limit)
    from benchmarks.report import markdown, verdict

    print()
    print(markdown(results))
    for t in results["targets"]:
        print(f"{verdict(t['pass']):>4}  {t['target']}: {t['measured']}")
    print(f"\nwrote {args.out}/latest.md, bench.json, quality.json" + (", scale.json" if results["scale"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
