"""The bench's verdicts (targets) and its Markdown table."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

SYSTEM_LABELS = {
    "dropqa retrieval": "DropQA retrieval (`hybrid_search`)",
    "dropqa ask": "DropQA ask (compiled graph)",
    "bm25": "BM25 (rank-bm25, jieba, 500-char chunks)",
    "pgvector": "PGVector (langchain-postgres, same e5 vectors)",
    "bm25+pgvector rrf": "BM25 + PGVector, RRF",
    "contextual": "Contextual chunks (title-prefixed; BM25 + PGVector, RRF)",
}
SHORT_NAMES = {"dropqa retrieval": "DropQA retrieval", "dropqa ask": "DropQA ask", "bm25": "BM25",
               "pgvector": "PGVector", "bm25+pgvector rrf": "RRF", "contextual": "Contextual"}
BASELINE_NAMES = ("bm25", "pgvector", "bm25+pgvector rrf", "contextual")
# (key, label) of the quality numbers DropQA is compared on against the contextual baseline
QUALITY_COLUMNS = (("recall_at_5", "recall@5"), ("recall_at_10", "recall@10"),
                   ("all_evidence_at_10", "all-evidence@10"), ("mrr_at_10", "MRR@10"))
ASK_P95_MAX = 3.0
INGESTION_MIN = 0.7
ROOT = Path(__file__).resolve().parents[1]


def shown_path(path: Path | str) -> str:
    """A path as results show it: relative to the repository (``../shared/…`` for the shared suites), never
    the absolute path of the machine the benchmark ran on."""
    target = Path(path).resolve()
    for base, prefix in ((ROOT, ""), (ROOT.parent, "../")):
        if target.is_relative_to(base):
            return prefix + str(target.relative_to(base))
    return target.name


def write_results(out: Path, stem: str, data: dict[str, Any], text: str) -> None:
    """A benchmark's figures (``<stem>.json``) and its Markdown table (``<stem>.md``, also printed)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (out / f"{stem}.md").write_text(text, encoding="utf-8")
    print(text)


def _f(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _ms(v: Any) -> str:
    return "–" if v is None else (f"{v:.1f}" if v < 100 else f"{v:.0f}")


def _x(v: Any) -> str:
    return "–" if v is None else ("<0.01×" if v < 0.005 else f"{v:.2f}×")


def _mb(b: Any) -> str:
    return "–" if b is None else f"{b / 1e6:.1f}"


def ingestion_ratios(data: Any, path: str = "") -> list[tuple[str, float]]:
    """Every number in the ingestion results whose key compares with embedding-only throughput."""
    out: list[tuple[str, float]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            key = f"{path}.{k}" if path else str(k)
            if isinstance(v, int | float) and not isinstance(v, bool) and re.search(r"(ratio|vs|_x_|relative).*embed",
                                                                                    str(k), re.I):
                out.append((key, float(v)))
            else:
                out.extend(ingestion_ratios(v, key))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.extend(ingestion_ratios(v, f"{path}[{i}]"))
    return out


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's three targets, each with what was measured and PASS / FAIL (or n/a)."""
    out = []
    steps = (results.get("scale") or {}).get("steps") or []
    if steps:
        last = steps[-1]
        r = last["ratios"]
        at = f"{last['nodes']:,} nodes" + ("" if last["level"] >= 50_000 else " (not the 50k step: BENCH_SCALE)")
        out.append({"target": f"fast-path p95 ≤ {ASK_P95_MAX:g}× naive PGVector p95 at 50k nodes",
                    "measured": f"ask {_x(r['ask_p95_vs_pgvector'])}, retrieval {_x(r['retrieval_p95_vs_pgvector'])} "
                                f"at {at}",
                    "pass": r["ask_p95_vs_pgvector"] is not None and r["ask_p95_vs_pgvector"] <= ASK_P95_MAX})
    else:
        out.append({"target": f"fast-path p95 ≤ {ASK_P95_MAX:g}× naive PGVector p95 at 50k nodes",
                    "measured": "scale step not run", "pass": None})
    ing = results.get("ingestion")
    text = ing.get("text_target") if isinstance(ing, dict) else None
    ratios = ingestion_ratios(ing) if isinstance(ing, dict) else []
    if isinstance(text, dict) and text.get("ratio_vs_embedding") is not None:
        r, target = text["ratio_vs_embedding"], text.get("target", INGESTION_MIN)
        out.append({"target": f"ingestion ≥ {target:g}× embedding-only throughput on text",
                    "measured": f"{r:.2f}× on generated {' + '.join(text.get('formats') or ['text'])}"
                                + (" (stale: not re-measured in this run)" if ing.get("stale") else ""),
                    "pass": r >= target})
    elif ratios:
        worst = min(ratios, key=lambda kv: kv[1])
        out.append({"target": f"ingestion ≥ {INGESTION_MIN:g}× embedding-only throughput on text",
                    "measured": ", ".join(f"{k} {v:.2f}×" for k, v in ratios),
                    "pass": worst[1] >= INGESTION_MIN})
    else:
        out.append({"target": f"ingestion ≥ {INGESTION_MIN:g}× embedding-only throughput on text",
                    "measured": "no benchmarks/results/ingestion.json (benchmarks/ingestion.py not run or absent)",
                    "pass": None})
    for suite in results.get("quality") or []:
        s = suite["systems"]
        best = suite["ratios"]["best_baseline"]
        mine = s["dropqa retrieval"]["recall_at_5"]
        out.append({"target": f"recall@5 ≥ best baseline on {suite['suite']}",
                    "measured": f"DropQA retrieval {_f(mine)} (ask {_f(s['dropqa ask']['recall_at_5'])}) "
                                f"vs {best} {_f(s[best]['recall_at_5'])}",
                    "pass": mine is not None and mine >= (s[best]["recall_at_5"] or 0)})
    return out


def verdict(p: bool | None) -> str:
    return "n/a" if p is None else ("PASS" if p else "FAIL")


def markdown(results: dict[str, Any]) -> str:
    meta = results.get("meta", {})
    lines = [f"# DropQA bench — {meta.get('created_at', '')}", "",
             f"Machine: {meta.get('machine', '')}. PostgreSQL {meta.get('postgres', '')}; embeddings "
             f"{meta.get('embeddings', '')}; {'offline (extractive answers)' if meta.get('offline') else 'chat model'}."
             " "
             "Every ratio compares figures measured in this run, on this machine.", ""]
    for suite in results.get("quality") or []:
        s, r = suite["systems"], suite["ratios"]
        n_ans = s["dropqa retrieval"]["n_answerable"]
        lines += [f"## Retrieval — {suite['suite']} ({suite['questions']} questions, {n_ans} answerable, "
                  f"{suite['rounds']} timed rounds; {suite['index']['dropqa_nodes']} DropQA nodes, "
                  f"{suite['index']['chunks']} baseline chunks)", "",
                  "| system | recall@5 | recall@10 | all-evidence@10 | MRR@10 | p50 ms | p95 ms | p95 ÷ PGVector p95 |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        pg95 = s["pgvector"]["p95_ms"]
        shown = {n: label for n, label in SYSTEM_LABELS.items() if n in s}
        for name, label in shown.items():
            x = s[name]
            rel = None if not pg95 or x["p95_ms"] is None else round(x["p95_ms"] / pg95, 2)
            lines.append(f"| {label} | {_f(x['recall_at_5'])} | {_f(x['recall_at_10'])} | "
                         f"{_f(x.get('all_evidence_at_10'))} | {_f(x['mrr_at_10'])} | "
                         f"{_ms(x['p50_ms'])} | {_ms(x['p95_ms'])} | {_x(rel)} |")
        if s.get("e5 query embedding"):
            e = s["e5 query embedding"]
            lines.append(f"| *reference: the e5 query embedding alone (paid by every system but BM25)* | | | | | "
                         f"{_ms(e['p50_ms'])} | {_ms(e['p95_ms'])} | |")
        d = r["dropqa retrieval"]
        lines += ["", f"Best baseline: **{r['best_baseline']}**; DropQA retrieval recall@5 "
                      f"{d['recall_at_5_minus_best']:+.3f}, MRR@10 {d['mrr_at_10_minus_best']:+.3f} against it."
                  if d["recall_at_5_minus_best"] is not None else "", ""]
        types = sorted({t for x in s.values() for t in (x.get("recall_at_5_by_type") or {})})
        if len(types) > 1:
            lines += ["recall@5 by question type:", "",
                      "| type | " + " | ".join(SHORT_NAMES[n] for n in shown) + " |",
                      "|---|" + "---:|" * len(shown)]
            for t in types:
                lines.append(f"| {t} | " + " | ".join(_f(s[n]["recall_at_5_by_type"].get(t), 2)
                                                     for n in shown) + " |")
            lines.append("")
        lost = [it for it in suite["items"] if not it["no_answer"] and _loses(it["first_evidence_rank"])]
        if lost:
            lines.append("Questions where a baseline ranks the evidence in the top 5 and DropQA retrieval does not: "
                         + ", ".join(f"`{it['id']}` ({it['type']})" for it in lost))
            lines.append("")
    lines += _contextual_lines(results.get("quality") or [])
    scale = results.get("scale")
    if scale and scale.get("steps"):
        lines += [f"## Scale — generated zh/en corpus ({scale['nodes_per_doc']} nodes a document, "
                  f"{scale['rounds']} timed rounds of the planted-fact questions)", "",
                  "| nodes | retrieval p50 / p95 ms | ask p50 / p95 ms | PGVector p50 / p95 ms | "
                  "ask ÷ PGVector p50 / p95 | retrieval ÷ PGVector p50 / p95 | recall@5 retrieval / ask / PGVector | "
                  "DropQA MB (HNSW) | PGVector MB |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for st in scale["steps"]:
            sy, r = st["systems"], st["ratios"]
            ret, ask, pgv = sy["dropqa retrieval"], sy["dropqa ask"], sy["pgvector"]
            lines.append(
                f"| {st['nodes']:,} | {_ms(ret['p50_ms'])} / {_ms(ret['p95_ms'])} | {_ms(ask['p50_ms'])} / "
                f"{_ms(ask['p95_ms'])} | {_ms(pgv['p50_ms'])} / {_ms(pgv['p95_ms'])} | "
                f"{_x(r.get('ask_p50_vs_pgvector'))} / {_x(r['ask_p95_vs_pgvector'])} | "
                f"{_x(r['retrieval_p50_vs_pgvector'])} / {_x(r['retrieval_p95_vs_pgvector'])} | "
                f"{_f(ret['recall_at_5'], 2)} / {_f(ask['recall_at_5'], 2)} / "
                f"{_f(pgv['recall_at_5'], 2)} | {_mb(st['dropqa_bytes'])} ({_mb(st['dropqa_hnsw_bytes'])}) | "
                f"{_mb(st['pgvector_bytes'])} |")
        emb = [st["systems"].get("e5 query embedding") for st in scale["steps"]]
        if all(emb):
            lines += ["", "The e5 query embedding alone (paid by all three) took p50 / p95 "
                      + ", ".join(f"{_ms(e['p50_ms'])} / {_ms(e['p95_ms'])} ms" for e in emb)
                      + " at these steps."]
            tails = [st["nodes"] for st, e in zip(scale["steps"], emb, strict=True)
                     if e["p95_ms"] and st["systems"]["pgvector"]["p95_ms"]
                     and e["p95_ms"] >= 0.8 * st["systems"]["pgvector"]["p95_ms"]]
            if tails:
                lines.append(f"At {', '.join(f'{n:,}' for n in tails)} nodes the p95 of every system is the query "
                             "embedding's own tail (the model stalling on a busy machine), so the p95 ratios say "
                             "little there: compare the p50 ratios.")
        prep = scale.get("embedding_cache") or {}
        if prep.get("embedded_now"):
            lines += ["", f"Embedding the scale corpus this run: {prep['embedded_now']} passages, "
                          f"{prep['ms_per_passage']} ms each (cached in benchmarks/.cache for the next run)."]
        lines.append("")
    ing = results.get("ingestion")
    lines += ["## Ingestion (benchmarks/ingestion.py)", ""]
    if isinstance(ing, dict):
        lines += _ingestion_lines(ing)
    else:
        lines.append("Not measured in this run: benchmarks/ingestion.py is absent or wrote no "
                     "benchmarks/results/ingestion.json.")
    lines += ["", "## Targets", "", "| target | measured | verdict |", "|---|---|---|"]
    for t in results.get("targets") or targets(results):
        lines.append(f"| {t['target']} | {t['measured']} | **{verdict(t['pass'])}** |")
    return "\n".join(lines) + "\n"


def _loses(ranks: dict[str, int | None]) -> bool:
    mine = ranks.get("dropqa retrieval")
    return (mine is None or mine > 5) and any(ranks.get(b) is not None and ranks[b] <= 5 for b in BASELINE_NAMES)


def _vs(mine: Any, theirs: Any) -> str:
    if mine is None and theirs is None:
        return "–"
    diff = "" if mine is None or theirs is None else f" ({mine - theirs:+.3f})"
    return f"{_f(mine)} / {_f(theirs)}{diff}"


def _contextual_lines(quality: list[dict[str, Any]]) -> list[str]:
    """One row per suite: DropQA retrieval's top 10 against the contextual chunk-RAG baseline's."""
    suites = [q for q in quality if "contextual" in q["systems"]]
    if not suites:
        return []
    lines = ["## DropQA against the contextual chunk-RAG baseline", "",
             "DropQA retrieval (`hybrid_search`, top 10) / the contextual baseline (500-character chunks, each "
             "indexed with its document's title in front; BM25 + PGVector, RRF), (difference). Same evidence rule "
             "as `dropqa eval`; recall and MRR over answerable questions, all-evidence@10 over those with several "
             "evidence items.", "",
             "| suite | answerable (several evidence) | " + " | ".join(label for _, label in QUALITY_COLUMNS)
             + " | DropQA ask recall@5 |",
             "|---|---:|" + "---:|" * (len(QUALITY_COLUMNS) + 1)]
    wins = 0
    for q in suites:
        mine, ctx, ask = q["systems"]["dropqa retrieval"], q["systems"]["contextual"], q["systems"]["dropqa ask"]
        multi = mine.get("n_multi_evidence")
        lines.append(f"| {q['suite']} | {mine['n_answerable']}" + (f" ({multi})" if multi else "") + " | "
                     + " | ".join(_vs(mine.get(k), ctx.get(k)) for k, _ in QUALITY_COLUMNS)
                     + f" | {_vs(ask.get('recall_at_5'), ctx.get('recall_at_5'))} |")
        wins += (mine["recall_at_5"] or 0) >= (ctx["recall_at_5"] or 0)
    lines += ["", f"DropQA retrieval's recall@5 is at least the contextual baseline's on {wins} of {len(suites)} "
                  "suite(s).", ""]
    return lines


def _ingestion_lines(ing: dict[str, Any]) -> list[str]:
    """``benchmarks.ingestion``'s own table when it can render these results, else a generic one."""
    lines = [f"*{ing['stale']}*", ""] if ing.get("stale") else []
    try:
        from benchmarks.ingestion import table

        return [*lines, table(ing)]
    except Exception:  # another module's format: fall back to one row per scalar
        pass
    rows = []
    for k, v in ing.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                if not isinstance(v2, dict | list):
                    rows.append((f"{k}.{k2}", v2))
        elif not isinstance(v, list):
            rows.append((k, v))
    return [*lines, "| measure | value |", "|---|---|", *[f"| {k} | {_f(v)} |" for k, v in rows[:40]]]


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.report [bench.json]``: render (and rewrite) latest.md from a run's results."""
    import json
    import sys
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else Path(__file__).resolve().parent / "results" / "bench.json"
    text = markdown(json.loads(path.read_text(encoding="utf-8")))
    (path.parent / "latest.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
