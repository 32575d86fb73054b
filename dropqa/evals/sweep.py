"""Try values of one setting on golden suites and compare the answers: how a weight in Settings is chosen.

    .venv/bin/python -m dropqa.evals.sweep answer.sentence_similarity_weight 0 0.5 1 \\
        --suite ../shared/evals-dev/dragonball-dev-en/golden.yaml:../shared/evals-dev/dragonball-dev-en/corpus \\
        --suite ../shared/samples/golden.yaml:../shared/samples/corpus --stores data/sweep-stores

Each value runs ``dropqa eval --reuse`` on every suite (the setting passed as its environment variable,
``DROPQA_ANSWER__SENTENCE_SIMILARITY_WEIGHT``; the store of each corpus is indexed once, under
``--stores``, and reused), then one table lists, per value and suite, the measures the reviewers' scorer
reports: evidence recall@5, all-evidence@10, MRR@10, answer accuracy, no-answer accuracy, false
abstention, ``cited_precision`` (sources marked cited that hold evidence) and ``confident_wrong`` (items
answered ``high`` that are wrong). Pick the value that is best across the suites, not on one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

KEYS = ("evidence_recall_at_5", "all_evidence_at_10", "mrr_at_10", "answer_accuracy", "no_answer_accuracy",
        "false_abstention_rate")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "").lower()).strip()


def extra_measures(report: dict[str, Any]) -> dict[str, float | None]:
    """``cited_precision`` and ``confident_wrong`` of a ``dropqa eval`` report, as ``score_golden.py`` counts
    them."""
    marked = ok = 0
    wrong = []
    for item in report["items"]:
        answer = _norm(item["answer"])
        expected = item["expected_answers"]
        accurate = any(_norm(a) in answer for a in expected) if expected else None
        wrong.append(item.get("confidence") == "high" and ((item["no_answer"] and item["answerable"])
                                                          or accurate is False))
        if not item["no_answer"]:
            for source in item["sources"][:10]:
                if source.get("cited"):
                    marked += 1
                    ok += bool(source.get("supports"))
    return {"cited_precision": round(ok / marked, 3) if marked else None,
            "confident_wrong": round(sum(wrong) / len(wrong), 3) if wrong else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("setting", help="dotted setting name, e.g. answer.sentence_similarity_weight")
    ap.add_argument("values", nargs="+")
    ap.add_argument("--suite", action="append", required=True, metavar="GOLDEN:CORPUS")
    ap.add_argument("--stores", type=Path, required=True, help="one store per corpus, indexed once and reused")
    ap.add_argument("--out", type=Path, default=Path("eval-report/sweep"))
    ap.add_argument("--dropqa", default=str(Path(sys.executable).with_name("dropqa")))
    args = ap.parse_args()
    env_name = "DROPQA_" + args.setting.upper().replace(".", "__")
    rows = []
    for value in args.values:
        for spec in args.suite:
            golden, corpus = (Path(p) for p in spec.split(":", 1))
            name = f"{golden.parent.name}-{golden.stem}"
            out = args.out / f"{value}" / name
            env = {**os.environ, env_name: value, "DROPQA_DATA_DIR": str(args.stores / corpus.parent.name)}
            subprocess.run([args.dropqa, "eval", str(golden), "--corpus", str(corpus), "--out", str(out), "--reuse"],
                           env=env, check=True, stdout=subprocess.DEVNULL)
            report = json.loads((out / "report.json").read_text(encoding="utf-8"))
            rows.append({"value": value, "suite": name, **{k: report["summary"].get(k) for k in KEYS},
                         **extra_measures(report)})
            print(json.dumps(rows[-1]), file=sys.stderr)
    cols = ["value", "suite", *KEYS, "cited_precision", "confident_wrong"]
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join("—" if r[c] is None else str(r[c]) for c in cols) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
