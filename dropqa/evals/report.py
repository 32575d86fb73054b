"""Write an eval report: ``report.json``, one self-contained ``report.html``, and a console table.

``report.json`` = ``{"summary": {...}, "items": [...], "meta": {...}}``; ``summary`` has exactly
:data:`SUMMARY_KEYS`. The HTML page has no external resources: inline CSS and SVG charts drawn here.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

SUMMARY_KEYS = (
    "n", "evidence_recall_at_5", "evidence_recall_at_10", "all_evidence_at_10", "mrr_at_10", "answer_accuracy",
    "no_answer_accuracy", "false_abstention_rate", "citation_precision", "latency_p50_ms", "latency_p95_ms",
    "index_seconds", "by_type", "by_language",
)
# Present only when the LLM judge ran (a chat model is configured); it follows answer_accuracy.
OPTIONAL_SUMMARY_KEYS = ("answer_correctness",)
GROUP_COLUMNS = (
    ("n", "n"), ("evidence_recall_at_5", "recall@5"), ("evidence_recall_at_10", "recall@10"),
    ("all_evidence_at_10", "all@10"), ("mrr_at_10", "MRR@10"), ("answer_accuracy", "answer acc"),
    ("no_answer_accuracy", "no-answer acc"), ("false_abstention_rate", "false abst."),
    ("citation_precision", "cite prec."), ("latency_p50_ms", "p50 ms"), ("latency_p95_ms", "p95 ms"),
)
SHORT_LABELS = {"n": "n", "evidence_recall_at_5": "r@5", "evidence_recall_at_10": "r@10",
                "all_evidence_at_10": "all@10", "mrr_at_10": "mrr", "answer_accuracy": "acc",
                "answer_correctness": "judge", "no_answer_accuracy": "noans", "false_abstention_rate": "f.abst",
                "citation_precision": "cite", "latency_p50_ms": "p50ms", "latency_p95_ms": "p95ms"}


def columns(summary: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The group columns, with the judge's ``answer_correctness`` after ``answer acc`` when it ran."""
    if "answer_correctness" not in summary:
        return GROUP_COLUMNS
    i = [k for k, _ in GROUP_COLUMNS].index("answer_accuracy") + 1
    return (*GROUP_COLUMNS[:i], ("answer_correctness", "answer correct. (judge)"), *GROUP_COLUMNS[i:])


def fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def write_json(report: dict[str, Any], out: Path) -> Path:
    path = out / "report.json"
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    return path


# ---------------------------------------------------------------- SVG charts


def _esc(s: Any) -> str:
    return html.escape(str(s), quote=True)


def latency_histogram_svg(latencies_ms: list[float], bins: int = 12, width: int = 560, height: int = 220) -> str:
    """A bar histogram of latencies (ms) as an inline ``<svg>``."""
    pad_l, pad_b, pad_t, pad_r = 40, 36, 14, 10
    if not latencies_ms:
        return f'<svg width="{width}" height="40"><text x="4" y="24">no data</text></svg>'
    lo, hi = min(latencies_ms), max(latencies_ms)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in latencies_ms:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    top = max(counts)
    pw, ph = width - pad_l - pad_r, height - pad_t - pad_b
    bw = pw / bins
    parts = [f'<svg width="{width}" height="{height}" role="img" '
             f'aria-label="latency histogram">',
             f'<line x1="{pad_l}" y1="{pad_t + ph}" x2="{pad_l + pw}" y2="{pad_t + ph}" stroke="#444"/>',
             f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + ph}" stroke="#444"/>',
             f'<text x="{pad_l - 6}" y="{pad_t + 4}" text-anchor="end" font-size="10">{top}</text>',
             f'<text x="{pad_l - 6}" y="{pad_t + ph}" text-anchor="end" font-size="10">0</text>']
    for i, c in enumerate(counts):
        h = ph * c / top if top else 0
        x = pad_l + i * bw
        a, b = lo + span * i / bins, lo + span * (i + 1) / bins
        parts.append(f'<rect x="{x + 1:.1f}" y="{pad_t + ph - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
                     f'fill="#4e79a7"><title>{a:.0f}–{b:.0f} ms: {c}</title></rect>')
    for i in range(0, bins + 1, max(1, bins // 4)):
        x = pad_l + i * bw
        parts.append(f'<text x="{x:.1f}" y="{pad_t + ph + 14}" text-anchor="middle" font-size="10">'
                     f'{lo + span * i / bins:.0f}</text>')
    parts.append(f'<text x="{pad_l + pw / 2:.1f}" y="{height - 4}" text-anchor="middle" font-size="11">'
                 'latency (ms)</text></svg>')
    return "".join(parts)


def recall_by_type_svg(by_type: dict[str, dict[str, Any]], width: int = 560) -> str:
    """Horizontal grouped bars: recall@5 and recall@10 per question type (no-answer types show no-answer acc)."""
    rows = list(by_type.items())
    row_h, pad_l, pad_t, pad_r = 30, 120, 24, 50
    height = pad_t + row_h * max(1, len(rows)) + 10
    pw = width - pad_l - pad_r
    parts = [f'<svg width="{width}" height="{height}" role="img" '
             f'aria-label="recall by type">',
             '<rect x="0" y="4" width="10" height="10" fill="#4e79a7"/>'
             '<text x="14" y="13" font-size="10">recall@5</text>',
             '<rect x="80" y="4" width="10" height="10" fill="#f28e2b"/>'
             '<text x="94" y="13" font-size="10">recall@10</text>',
             '<rect x="170" y="4" width="10" height="10" fill="#59a14f"/>'
             '<text x="184" y="13" font-size="10">no-answer accuracy</text>']
    for i, (t, s) in enumerate(rows):
        y = pad_t + i * row_h
        parts.append(f'<text x="{pad_l - 6}" y="{y + 17}" text-anchor="end" font-size="11">{_esc(t)}</text>')
        bars = [("#4e79a7", s.get("evidence_recall_at_5")), ("#f28e2b", s.get("evidence_recall_at_10"))]
        if s.get("evidence_recall_at_5") is None:
            bars = [("#59a14f", s.get("no_answer_accuracy"))]
        for j, (color, v) in enumerate(bars):
            w = pw * (v or 0)
            by = y + 3 + j * 12
            parts.append(f'<rect x="{pad_l}" y="{by}" width="{w:.1f}" height="10" fill="{color}">'
                         f'<title>{_esc(t)}: {fmt(v)}</title></rect>')
            parts.append(f'<text x="{pad_l + w + 4:.1f}" y="{by + 9}" font-size="9">{fmt(v)}</text>')
    parts.append(f'<line x1="{pad_l}" y1="{pad_t - 4}" x2="{pad_l}" y2="{height - 6}" stroke="#444"/></svg>')
    return "".join(parts)


# ---------------------------------------------------------------- HTML

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC",sans-serif;margin:24px;color:#222;
max-width:1200px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:120px}
.card b{display:block;font-size:20px}.card span{font-size:12px;color:#666}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ddd;padding:4px 6px;vertical-align:top}
th{background:#f5f5f5;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#2a7d2a}.bad{color:#b22}.muted{color:#777;font-size:12px}ol{margin:0;padding-left:18px}
.fail{border:1px solid #e5c7c7;border-radius:6px;padding:8px 12px;margin:10px 0;background:#fffafa}
.cols{display:flex;gap:16px}.cols>div{flex:1;min-width:0}pre{white-space:pre-wrap;margin:4px 0;font-size:12px}
"""


def _group_table(groups: dict[str, dict[str, Any]], label: str,
                 cols: tuple[tuple[str, str], ...] = GROUP_COLUMNS) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for _, c in cols)
    rows = "".join(
        f"<tr><td>{_esc(g)}</td>" + "".join(f'<td class="num">{fmt(s.get(k))}</td>' for k, _ in cols)
        + "</tr>" for g, s in groups.items())
    return f"<table><tr><th>{_esc(label)}</th>{head}</tr>{rows}</table>"


def _failure(r: dict[str, Any]) -> str:
    exp = "".join(
        f"<li><b>{_esc(e['document'])}</b> › {_esc(e['section'] or '—')}"
        f"{' (p.' + _esc(e['page']) + ')' if e.get('page') else ''}<br><code>{_esc(e['contains'])}</code>"
        f" — {('found at rank ' + str(rank)) if rank else '<span class=bad>not found</span>'}</li>"
        for e, rank in zip(r["expected_evidence"], r["metrics"]["evidence_ranks"], strict=False))
    got = "".join(
        f"<li>{_esc(s['document_name'])} › {_esc(s['section'])} · v{_esc(s['version'])} · "
        f"{s['relevance']:.2f}{' · <span class=ok>supports</span>' if s['supports'] else ''}"
        f"<div class=muted>{_esc(s['snippet'][:160])}</div></li>" for s in r["sources"][:5])
    m = r["metrics"]
    verdict = []
    if r.get("error"):
        verdict.append(f"error: {r['error']}")
    if r["no_answer"]:
        verdict.append("answered a question the corpus cannot answer")
    else:
        if m["recall_at_10"] == 0:
            verdict.append("evidence not in top 10")
        if m["answer_accuracy"] == 0:
            verdict.append("answer misses every expected string")
        if m["false_abstention"] == 1:
            verdict.append("abstained")
    answers = ", ".join(r["expected_answers"]) or "(no answer expected)"
    j = r.get("judge")
    if j:
        verdict.append(f"judge: {j['verdict']} — {j['reason']}" if j.get("verdict") else f"judge error: {j['error']}")
    return (f'<div class="fail"><b>{_esc(r["id"])}</b> <span class=muted>{_esc(r["type"])} · '
            f'{_esc(r["language"])} · {r["latency_ms"]:.0f} ms · {_esc(r["mode"])}</span> — '
            f'<span class=bad>{_esc("; ".join(verdict))}</span>'
            f'<div>{_esc(r["question"])}</div>'
            f'<div class=cols><div><b>expected</b>: {_esc(answers)}<ol>{exp or "<li>no evidence</li>"}</ol></div>'
            f'<div><b>got</b> (answerable={_esc(r["answerable"])}):<pre>{_esc(r["answer"][:600])}</pre>'
            f'<ol>{got or "<li>no sources</li>"}</ol></div></div></div>')


def render_html(report: dict[str, Any]) -> str:
    s, items, meta = report["summary"], report["items"], report.get("meta", {})
    cards = "".join(f'<div class="card"><b>{fmt(s.get(k))}</b><span>{_esc(label)}</span></div>' for k, label in (
        ("n", "questions"), ("evidence_recall_at_5", "evidence recall@5"),
        ("evidence_recall_at_10", "evidence recall@10"), ("all_evidence_at_10", "all evidence@10"),
        ("mrr_at_10", "MRR@10"), ("answer_accuracy", "answer accuracy"),
        *((("answer_correctness", "answer correctness (LLM judge)"),) if "answer_correctness" in s else ()),
        ("no_answer_accuracy", "no-answer accuracy"), ("false_abstention_rate", "false abstention"),
        ("citation_precision", "citation precision"), ("latency_p50_ms", "latency p50 (ms)"),
        ("latency_p95_ms", "latency p95 (ms)"), ("index_seconds", "index seconds")))
    failed = [r for r in items if r.get("failed")]
    all_rows = "".join(
        f"<tr><td>{_esc(r['id'])}</td><td>{_esc(r['type'])}</td><td>{_esc(r['language'])}</td>"
        f"<td class=num>{fmt(r['metrics']['recall_at_5'])}</td><td class=num>{fmt(r['metrics']['answer_accuracy'])}"
        f"</td><td class=num>{fmt(r['metrics']['no_answer_accuracy'])}</td><td>{_esc(r['answerable'])}</td>"
        f"<td class=num>{r['latency_ms']:.0f}</td><td class={'bad' if r.get('failed') else 'ok'}>"
        f"{'FAIL' if r.get('failed') else 'ok'}</td></tr>" for r in items)
    title = f"DropQA eval — {meta.get('suite') or 'suite'}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{_esc(title)}</h1>"
        f'<p class=muted>corpus {_esc(meta.get("corpus", ""))} · {len(meta.get("files", []))} file(s) · '
        f'{"offline (extractive)" if meta.get("offline") else "chat model"} · embeddings '
        f'{_esc(meta.get("embeddings", ""))} · {_esc(meta.get("created_at", ""))}</p>'
        f'<h2>Summary</h2><div class="cards">{cards}</div>'
        f"<h2>By type</h2>{_group_table(s.get('by_type', {}), 'type', columns(s))}"
        f"<h2>By language</h2>{_group_table(s.get('by_language', {}), 'language', columns(s))}"
        f'<h2>Charts</h2><div class="cols"><div><b>Recall by type</b><br>{recall_by_type_svg(s.get("by_type", {}))}'
        f'</div><div><b>Latency</b><br>{latency_histogram_svg([r["latency_ms"] for r in items])}</div></div>'
        f"<h2>Failed questions ({len(failed)})</h2>{''.join(_failure(r) for r in failed) or '<p>none</p>'}"
        f"<h2>All questions</h2><table><tr><th>id</th><th>type</th><th>lang</th><th>recall@5</th><th>answer acc"
        f"</th><th>no-answer acc</th><th>answerable</th><th>ms</th><th></th></tr>{all_rows}</table>"
        "</body></html>")


def write_html(report: dict[str, Any], out: Path) -> Path:
    path = out / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    return path


def _short(v: Any) -> str:
    return f"{v:.2f}" if isinstance(v, float) else fmt(v)


def print_console(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    items = Table(title="Questions", show_lines=False)
    id_width = max([len(r["id"]) for r in report["items"]] + [2])
    items.add_column("id", no_wrap=True, min_width=id_width)
    items.add_column("type", no_wrap=True, min_width=max([len(r["type"]) for r in report["items"]] + [4]))
    for col in ("lang", "r@5", "rank", "acc", "answerable", "ms", ""):
        items.add_column(col, justify="right" if col in {"r@5", "rank", "acc", "ms"} else "left", no_wrap=True)
    for r in report["items"]:
        m = r["metrics"]
        ranks = [x for x in m["evidence_ranks"] if x]
        items.add_row(r["id"], r["type"], r["language"] or "", _short(m["recall_at_5"]),
                      str(min(ranks)) if ranks else "–", _short(m["answer_accuracy"]), str(r["answerable"]),
                      f"{r['latency_ms']:.0f}", "[red]FAIL[/red]" if r.get("failed") else "[green]ok[/green]")
    console.print(items)
    s = report["summary"]
    groups = Table(title="By type")
    groups.add_column("type", no_wrap=True)
    cols = columns(s)
    for key, _ in cols:
        groups.add_column(SHORT_LABELS[key], justify="right", no_wrap=True)
    for g, gs in [*s["by_type"].items(), ("ALL", s)]:
        groups.add_row(g, *[_short(gs.get(k)) for k, _ in cols])
    console.print(groups)
    console.print(f"index {fmt(s['index_seconds'])} s · " + " · ".join(
        f"{label} {fmt(s.get(k))}" for k, label in cols[1:-2]))


def write_report(report: dict[str, Any], out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    return write_json(report, out), write_html(report, out)
