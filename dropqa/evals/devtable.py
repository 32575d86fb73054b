"""One Markdown table over several eval reports: ``make eval-dev`` writes ``eval-report/dev.md`` with it.

    python -m dropqa.evals.devtable eval-report/*/report.json --out eval-report/dev.md

A row per report (the suite is the report's folder name: ``eval-report/<suite>/report.json``),
the ``summary`` numbers of :func:`dropqa.evals.metrics.summarize` as columns, then a few
``summary.by_type`` numbers (:data:`TYPE_COLUMNS`; "–" when the suite has no question of that
type), the date and the git commit the numbers were measured at. :func:`render` is a pure
function of the report dicts; :func:`main` reads the files and asks git for the commit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# (summary key, column label), in the order of dropqa.evals.metrics.summarize
COLUMNS: tuple[tuple[str, str], ...] = (
    ("n", "n"),
    ("evidence_recall_at_5", "recall@5"),
    ("evidence_recall_at_10", "recall@10"),
    ("all_evidence_at_10", "all@10"),
    ("mrr_at_10", "MRR@10"),
    ("answer_accuracy", "answer acc"),
    ("no_answer_accuracy", "no-answer acc"),
    ("false_abstention_rate", "false abst."),
    ("citation_precision", "cite prec."),
    ("latency_p50_ms", "p50 ms"),
    ("latency_p95_ms", "p95 ms"),
)
# Present only when the LLM judge ran; shown after "answer acc" when some report has it.
JUDGE_COLUMN = ("answer_correctness", "judge")
# (question type, summary key, column label) read from summary.by_type
TYPE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("multi_hop", "all_evidence_at_10", "multi_hop all@10"),
    ("comparison", "all_evidence_at_10", "comparison all@10"),
    ("no_answer", "no_answer_accuracy", "no_answer acc"),
)


def fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def suite_name(path: Path, report: dict[str, Any]) -> str:
    """``eval-report/<suite>/report.json`` → ``<suite>``; a report at the top of a folder keeps its meta suite."""
    parent = path.parent.name
    return parent or str((report.get("meta") or {}).get("suite") or path.stem)


def columns(reports: Sequence[tuple[str, dict[str, Any]]]) -> tuple[tuple[str, str], ...]:
    if not any(JUDGE_COLUMN[0] in (r.get("summary") or {}) for _, r in reports):
        return COLUMNS
    i = [k for k, _ in COLUMNS].index("answer_accuracy") + 1
    return (*COLUMNS[:i], JUDGE_COLUMN, *COLUMNS[i:])


def _by_type(summary: dict[str, Any], qtype: str, key: str) -> Any:
    group = (summary.get("by_type") or {}).get(qtype)
    return group.get(key) if isinstance(group, dict) else None


def render(reports: Sequence[tuple[str, dict[str, Any]]], *, date: str, commit: str) -> str:
    """The Markdown page: a heading with ``date`` and ``commit``, one table row per (suite, report dict)."""
    cols = columns(reports)
    header = ["suite", *(label for _, label in cols), *(label for _, _, label in TYPE_COLUMNS)]
    lines = [f"# DropQA dev suites — {date}, commit {commit}", ""]
    metas = [r.get("meta") or {} for _, r in reports]
    modes = sorted({"offline (extractive answers)" if m.get("offline") else "chat model" for m in metas
                    if "offline" in m})
    embeddings = sorted({str(m["embeddings"]) for m in metas if m.get("embeddings")})
    judges = sorted({str(m["judge"]) for m in metas if m.get("judge")})
    facts = []
    if modes:
        facts.append(" and ".join(modes))
    if embeddings:
        facts.append("embeddings " + ", ".join(embeddings))
    if judges:
        facts.append("judge " + ", ".join(judges))
    if facts:
        text = "; ".join(facts)
        lines += [text[0].upper() + text[1:] + ".", ""]
    lines += [
        "Overall columns are the report's `summary` (`dropqa eval`; recall and MRR over answerable questions, "
        "all@10 over questions with several evidence items); the last columns are `summary.by_type`. "
        "'–': no question the number applies to.",
        "",
        "| " + " | ".join(header) + " |",
        "|---|" + "---:|" * (len(header) - 1),
    ]
    for name, report in reports:
        s = report.get("summary") or {}
        cells = [name, *(fmt(s.get(k)) for k, _ in cols), *(fmt(_by_type(s, t, k)) for t, k, _ in TYPE_COLUMNS)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Reports:", ""]
    for (name, _report), meta in zip(reports, metas, strict=True):
        corpus = meta.get("corpus")
        when = meta.get("created_at")
        lines.append(f"- `{name}`: {meta.get('suite') or '?'}" + (f" on `{corpus}`" if corpus else "")
                     + (f", run {when}" if when else ""))
    return "\n".join(lines) + "\n"


def git_commit(cwd: Path | None = None) -> str:
    """Short hash of HEAD, marked when tracked files have uncommitted changes; "unknown" outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def load(paths: Sequence[Path]) -> list[tuple[str, dict[str, Any]]]:
    return [(suite_name(p, r), r) for p in paths for r in [json.loads(p.read_text(encoding="utf-8"))]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dropqa.evals.devtable",
                                 description="One Markdown table over several dropqa eval report.json files.")
    ap.add_argument("reports", nargs="+", type=Path, help="report.json files, one row each (in this order)")
    ap.add_argument("--out", type=Path, default=None, help="write the table here (default: print it)")
    ap.add_argument("--commit", default=None, help="the commit to name (default: git rev-parse --short HEAD)")
    ap.add_argument("--date", default=None, help="the date to name (default: today)")
    args = ap.parse_args(argv)
    missing = [str(p) for p in args.reports if not p.is_file()]
    if missing:
        print(f"error: no such report: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        reports = load(args.reports)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = render(reports, date=args.date or time.strftime("%Y-%m-%d"), commit=args.commit or git_commit())
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out} ({len(reports)} suite(s))")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
