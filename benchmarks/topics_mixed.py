"""Topics against a person's grouping (issue 24): purity and adjusted Rand index, names side by side.

    python -m benchmarks.topics_mixed [--data-dir DIR] [--reuse] [--out benchmarks/results]

Indexes ``suites/topics_mixed/corpus`` (34 documents, Chinese and English, 7 subjects) into a fresh
embedded PostgreSQL with the default settings (offline: no chat model), recomputes the topics as a
``dropqa index`` run does, and compares them with ``suites/topics_mixed/labels.yaml``.

Scoring: a document's *primary* topic is the topic linked to it with the highest confidence (the cluster
it was placed in); purity and ARI compare primaries with the labelled subjects (a document without a topic
is a cluster of its own). Secondary topics (a document whose sections are about another subject) are
reported apart: how many of the labelled ``also`` subjects a document got, and how many extra topics
documents got that no label names.

``--data-dir`` keeps the embedded database between runs; ``--reuse`` skips indexing (only the topics are
recomputed). ``--suite topics_guard`` only indexes the guard corpus of the fit (:mod:`benchmarks.topics_fit`). Writes
``benchmarks/results/topics_mixed.{json,md}`` and prints the Markdown.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from benchmarks.report import write_results  # noqa: E402

SUITE = ROOT / "suites" / "topics_mixed"
GUARD = ROOT / "suites" / "topics_guard"
OUT = ROOT / "benchmarks" / "results"
TARGET = 0.8


def load_labels(path: Path = SUITE / "labels.yaml") -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def open_services(data_dir: Path) -> Any:
    from dropqa.config import Settings
    from dropqa.services import Services

    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o755)  # the embedded server may run as another user when this runs as root
    return Services.open(Settings(data_dir=data_dir))


def index_corpus(services: Any, files: list[Path]) -> dict[str, str]:
    """Every file into the default base; file name → status."""
    from dropqa.ingestion.pipeline import Indexer

    indexer = Indexer(services.db, services.settings, services.embedder)
    statuses = {}
    for path in sorted(files):
        outcome = indexer.index_file(path, f"topics_mixed/{path.name}")
        statuses[path.name] = outcome.status if outcome.status != "failed" else f"failed: {outcome.error}"
    return statuses


def stored_topics(services: Any) -> tuple[dict[str, list[tuple[str, float]]], dict[str, dict[str, Any]]]:
    """(file name → [(topic name, confidence)] best first, topic name → its row) from the store."""
    from dropqa.store import topics as topic_store
    from dropqa.store.bases import DEFAULT_KB
    from dropqa.store.scope import Scope

    scope = Scope(kbs=(DEFAULT_KB,))
    per_doc: dict[str, list[tuple[str, float]]] = {}
    rows = {}
    for t in topic_store.list_topics(services.db, scope, limit=1000):
        rows[t["name"]] = t
        for d in topic_store.topic_documents(services.db, scope, t["id"], limit=1000):
            per_doc.setdefault(d["filename"], []).append((t["name"], float(d["confidence"])))
    for links in per_doc.values():
        links.sort(key=lambda x: -x[1])
    return per_doc, rows


def score(labels: dict[str, Any], per_doc: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
    """Purity and ARI of the primary topics against the subjects; secondary topics apart."""
    from sklearn.metrics import adjusted_rand_score

    docs = labels["documents"]
    truth = [docs[f]["subject"] for f in docs]
    predicted = [per_doc[f][0][0] if per_doc.get(f) else f"(none: {f})" for f in docs]
    clusters: dict[str, list[str]] = {}
    for subject, topic in zip(truth, predicted, strict=True):
        clusters.setdefault(topic, []).append(subject)
    purity = sum(Counter(members).most_common(1)[0][1] for members in clusters.values()) / len(truth)
    also_wanted = [(f, s) for f, d in docs.items() for s in d.get("also") or []]
    majority = {topic: Counter(members).most_common(1)[0][0] for topic, members in clusters.items()}
    also_found = [(f, s) for f, s in also_wanted
                  if any(majority.get(name) == s for name, _ in per_doc.get(f, [])[1:])]
    extra = sum(max(0, len(per_doc.get(f, [])) - 1 - len(d.get("also") or [])) for f, d in docs.items())
    return {"documents": len(truth), "subjects": len(set(truth)), "topics": len(clusters),
            "purity": round(purity, 4), "ari": round(float(adjusted_rand_score(truth, predicted)), 4),
            "secondary_found": f"{len(also_found)}/{len(also_wanted)}", "secondary_unlabelled": extra,
            "primary": dict(zip(docs, predicted, strict=True)), "majority": majority}


def names_side_by_side(labels: dict[str, Any], result: dict[str, Any], rows: dict[str, dict[str, Any]],
                       per_doc: dict[str, list[tuple[str, float]]]) -> list[dict[str, Any]]:
    subjects = labels["subjects"]
    docs = labels["documents"]
    out = []
    for topic, subject in sorted(result["majority"].items(), key=lambda kv: kv[1]):
        members = [f for f, t in result["primary"].items() if t == topic]
        secondary = [f for f, links in per_doc.items() if any(n == topic for n, _ in links[1:])]
        row = rows.get(topic) or {}
        out.append({"subject": subject, "person": f"{subjects[subject]['zh']} / {subjects[subject]['en']}",
                    "dropqa": topic, "documents": len(members),
                    "others": sorted(f for f in members if docs[f]["subject"] != subject),
                    "also": sorted(secondary),
                    "description_zh": (row.get("descriptions") or {}).get("zh", ""),
                    "description_en": (row.get("descriptions") or {}).get("en", "")})
    return out


def markdown(result: dict[str, Any], table: list[dict[str, Any]], seconds: dict[str, float]) -> str:
    ok = lambda v: "✓" if v >= TARGET else "✗"  # noqa: E731
    lines = [
        "# Topics against a person's grouping (suites/topics_mixed)", "",
        f"{result['documents']} documents, {result['subjects']} labelled subjects, {result['topics']} topics. "
        "Primary topic = the document's most confident link.", "",
        "| measure | value | target |", "|---|---|---|",
        f"| purity | {result['purity']:.3f} | ≥ {TARGET} {ok(result['purity'])} |",
        f"| adjusted Rand index | {result['ari']:.3f} | ≥ {TARGET} {ok(result['ari'])} |",
        f"| labelled second subjects found | {result['secondary_found']} | |",
        f"| second topics no label names | {result['secondary_unlabelled']} | |", "",
        "| a person's subject | DropQA's topic | documents | not of that subject | second topic of |",
        "|---|---|---|---|---|",
    ]
    for r in table:
        lines.append(f"| {r['person']} | {r['dropqa']} | {r['documents']} | {', '.join(r['others']) or '–'} | "
                     f"{', '.join(r['also']) or '–'} |")
    lines += ["", "| DropQA's topic | description (zh) | description (en) |", "|---|---|---|"]
    lines += [f"| {r['dropqa']} | {r['description_zh']} | {r['description_en']} |" for r in table]
    lines += ["", f"Indexing {seconds.get('index', 0):.0f} s, topics {seconds['topics']:.2f} s (offline defaults)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="embedded database folder (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true", help="the corpus is indexed in --data-dir already")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--suite", choices=["topics_mixed", "topics_guard"], default="topics_mixed",
                        help="topics_guard: only index the fit's guard corpus (suites/topics_guard) into --data-dir")
    args = parser.parse_args(argv)
    if args.suite == "topics_guard":
        if not args.data_dir:
            parser.error("--suite topics_guard needs --data-dir (the fit reads it)")
        services = open_services(args.data_dir)
        try:
            guard = load_labels(GUARD / "labels.yaml")["documents"]
            print(index_corpus(services, [GUARD / key for key in guard]))
        finally:
            services.close()
        return 0
    labels = load_labels()
    with tempfile.TemporaryDirectory(prefix="dropqa-topics-") as tmp:
        services = open_services(args.data_dir or Path(tmp) / "data")
        try:
            seconds: dict[str, float] = {}
            if not args.reuse:
                start = time.perf_counter()
                statuses = index_corpus(services, list((SUITE / "corpus").iterdir()))
                seconds["index"] = time.perf_counter() - start
                failed = {f: s for f, s in statuses.items() if s.startswith("failed")}
                if failed:
                    print(f"could not index: {failed}", file=sys.stderr)
            from dropqa.ingestion.pipeline import Indexer

            start = time.perf_counter()
            Indexer(services.db, services.settings, services.embedder).refresh_topics()
            seconds["topics"] = time.perf_counter() - start
            per_doc, rows = stored_topics(services)
        finally:
            services.close()
    result = score(labels, per_doc)
    table = names_side_by_side(labels, result, rows, per_doc)
    text = markdown(result, table, seconds)
    write_results(args.out, "topics_mixed", {**result, "names": table, "seconds": seconds}, text)
    return 0 if result["purity"] >= TARGET and result["ari"] >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
