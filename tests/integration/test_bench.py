"""The `make bench` harness on a tiny corpus and a tiny scale step, so the code keeps working.

No timing is asserted (the machine is shared and noisy): only that every step runs, every
system answers, and the results and the table are written with the documented shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("rank_bm25", reason="the bench extra is not installed (pip install -e '.[bench]')")
pytest.importorskip("langchain_postgres", reason="the bench extra is not installed (pip install -e '.[bench]')")

pytestmark = [pytest.mark.integration, pytest.mark.heavy(60)]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    from benchmarks.run import run_bench

    out = tmp_path_factory.mktemp("bench")
    mp = pytest.MonkeyPatch()
    mp.setenv("DROPQA_BENCH_CACHE", str(tmp_path_factory.mktemp("bench-cache")))
    try:
        en = (ROOT / "suites" / "golden_en.yaml", ROOT / "suites" / "corpus_en")
        # a second suite on the same corpus folder shares the first one's indexing
        results = run_bench(suites=[("golden_en", *en), ("golden_en again", *en)],
                            levels=(20, 40), nodes_per_doc=20, rounds=1, scale_rounds=1, limit=4,
                            server_url=pg_server_url, ingestion=False, out=out, log=lambda _m: None)
    finally:
        mp.undo()
    return results, out


def test_quality_step_measures_every_system(bench):
    from benchmarks.quality import SYSTEMS

    results, _ = bench
    suite, again = results["quality"]
    assert again["suite"] == "golden_en again" and again["index"]["shared_with"] == "golden_en"
    assert again["index"]["dropqa_nodes"] == suite["index"]["dropqa_nodes"] and "shared_with" not in suite["index"]
    assert suite["questions"] == 4 and suite["index"]["chunks"] > 0 and suite["index"]["dropqa_nodes"] > 0
    assert not suite["index"]["failed"]
    for name in SYSTEMS:
        s = suite["systems"][name]
        assert s["n"] == 4 and s["p50_ms"] is not None and s["p95_ms"] >= s["p50_ms"]
        assert s["n_answerable"] == 4 and 0 <= s["recall_at_5"] <= s["recall_at_10"] <= 1
        assert "all_evidence_at_10" in s and "n_multi_evidence" in s
    assert "errors" not in suite["systems"]["dropqa ask"], suite["systems"]["dropqa ask"]
    assert suite["systems"]["e5 query embedding"]["n"] == 4
    # the first question's evidence sits in one short section: every system finds it
    first = suite["items"][0]
    assert first["id"] == "en-annual-leave" and all(first["first_evidence_rank"].values())
    assert suite["ratios"]["best_baseline"] in ("bm25", "pgvector", "bm25+pgvector rrf", "contextual")
    assert suite["index"]["contextual_titles"] >= 1
    d = suite["ratios"]["dropqa retrieval"]
    assert d["recall_at_5_minus_contextual"] == round(
        suite["systems"]["dropqa retrieval"]["recall_at_5"] - suite["systems"]["contextual"]["recall_at_5"], 3)


def test_scale_steps_grow_and_both_stores_hold_the_same_vectors(bench):
    results, _ = bench
    steps = results["scale"]["steps"]
    assert [s["nodes"] for s in steps] == [20, 40]
    for s in steps:
        assert s["pgvector_rows"] == s["nodes"]
        assert s["questions"] >= 1 and s["dropqa_bytes"] > s["dropqa_hnsw_bytes"] > 0 and s["pgvector_bytes"] > 0
        assert set(s["systems"]) == {"dropqa retrieval", "dropqa ask", "pgvector", "e5 query embedding"}
        assert s["ratios"]["ask_p95_vs_pgvector"] is not None
    assert steps[1]["dropqa_bytes"] > steps[0]["dropqa_bytes"]
    assert results["scale"]["embedding_cache"]["passages"] >= 40


def test_results_files_and_table(bench):
    _, out = bench
    assert {p.name for p in out.iterdir()} >= {"bench.json", "quality.json", "scale.json", "latest.md"}
    data = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    assert set(data) >= {"meta", "quality", "scale", "ingestion", "targets"}
    assert [t["pass"] for t in data["targets"]][1] is None  # ingestion not run here: n/a, not a fake number
    assert len(data["targets"]) == 4  # scale, ingestion, recall@5 on each of the two suites
    table = (out / "latest.md").read_text(encoding="utf-8")
    for text in ("## Retrieval — golden_en", "| DropQA ask (compiled graph) |", "| Contextual chunks (",
                 "## DropQA against the contextual chunk-RAG baseline", "| golden_en again | 4 |",
                 "## Scale", "| 40 |", "## Targets", "**n/a**"):
        assert text in table


def test_scale_corpus_is_deterministic_and_prefix_stable():
    from benchmarks.scale_corpus import document, questions

    a, b = document(3), document(3)
    assert a[0] == b[0] and [n.content for n in a[1].walk()] == [n.content for n in b[1].walk()]
    assert sum(1 for n in a[1].walk() if n.node_type == "paragraph") == 100
    qs = questions(50)
    assert len(qs) == 40 and len({q.question for q in qs}) == 40
    assert {q.language for q in qs} == {"zh", "en"}
    for q in qs[:6]:  # the evidence is really in the generated document
        name = q.evidence[0].document
        doc = document(int(name.rsplit("_", 1)[1].split(".")[0]))[1]
        assert any(q.evidence[0].contains in n.content for n in doc.walk())


def test_chunks_and_bm25_baseline():
    from benchmarks.baselines import BM25Baseline, rrf
    from benchmarks.chunks import Chunk, split

    pieces = split("第一段。" * 300 + "\n\n" + "Second paragraph. " * 60)
    assert pieces and all(len(p) <= 500 for p in pieces)
    chunks = [Chunk(f"c{i}", "a.md", 1, t) for i, t in enumerate(
        ["差旅住宿标准为每晚500元", "Annual leave is 25 days", "会议室预订规则"])]
    bm25 = BM25Baseline(chunks)
    assert bm25.search("住宿标准是多少", 2)[0].id == "c0"
    assert bm25.search("annual leave days", 2)[0].id == "c1"
    assert [c.id for c in rrf([[chunks[0], chunks[1]], [chunks[1], chunks[2]]])] == ["c1", "c0", "c2"]


def test_contextual_chunks_carry_the_document_title_but_score_on_their_own_text():
    from benchmarks.baselines import BM25Baseline
    from benchmarks.chunks import Chunk, contextual_chunks, document_title

    assert document_title("TRIAL_12.txt", "吕志兴\n\n吕志兴（Lui Chi Hing），生于香港") == "TRIAL 12 — 吕志兴"
    assert document_title("11th-lok-sabha.md", "11th Lok Sabha\n\nGeneral elections …") == "11th Lok Sabha"
    assert document_title("112_Bayside, Roseville, Court.md", "Bayside, Roseville, Court\n…") == \
        "112 Bayside, Roseville, Court"
    assert document_title("2024年度绩效考核.xlsx", "考核结果\n…") == "2024年度绩效考核 — 考核结果"
    assert document_title("notes.txt", "x" * 101 + "\nmore") == "notes"  # a long first line is body text
    plain = [Chunk("a.txt#0", "a.txt", 1, "住宿标准为每晚500元"), Chunk("b.txt#0", "b.txt", 2, "会议室预订规则"),
             Chunk("c.txt#0", "c.txt", 1, "Annual leave is 25 days")]
    ctx = contextual_chunks(plain, {"a.txt": "差旅费报销管理办法\n住宿标准为每晚500元", "b.txt": "会议室预订规则",
                                    "c.txt": "Annual leave is 25 days"})
    assert [c.id for c in ctx] == ["ctx:a.txt#0", "ctx:b.txt#0", "ctx:c.txt#0"]
    assert [c.text for c in ctx] == [c.text for c in plain] and ctx[1].version == 2
    assert ctx[0].indexed == "a — 差旅费报销管理办法\n住宿标准为每晚500元" and plain[0].indexed == plain[0].text
    # the title is searchable: only the contextual index finds the chunk by its document's name
    assert BM25Baseline(ctx).search("差旅费报销管理办法", 1)[0].id == "ctx:a.txt#0"
    assert not BM25Baseline(plain).search("差旅费报销管理办法", 1)


def test_dev_suites_follow_the_shared_folders(tmp_path: Path):
    from benchmarks.run import dev_suites, suite_name

    for folder in ("samples", "evals-dev/cmrc-dev-zh", "evals-dev/multihop-dev-en"):
        (tmp_path / folder / "corpus").mkdir(parents=True)
        (tmp_path / folder / "golden.yaml").write_text("[]\n", encoding="utf-8")
    names = [n for n, _, _ in dev_suites(tmp_path)]
    assert names == ["samples", "xl-samples", "golden_en", "cmrc-dev-zh", "xl-cmrc-dev-zh", "multihop-dev-en",
                     "xl-multihop-dev-en"]
    assert dev_suites(tmp_path / "absent") == []
    assert suite_name(Path("../shared/evals-dev/cmrc-dev-zh/golden.yaml")) == "cmrc-dev-zh"
    assert suite_name(Path("suites/golden_xl/samples.yaml")) == "xl-samples"
    assert suite_name(Path("suites/golden_en.yaml")) == "golden_en"


def test_targets_read_the_ingestion_results():
    from benchmarks.report import markdown, targets

    ing = {"generated": {"md": {"files": 2, "failed": 0, "pages": 4, "nodes": 40, "seconds": 2.0, "pages_per_s": 2.0,
                                "nodes_per_s": 20.0, "embedding_only_s": 1.6, "ratio_vs_embedding": 0.8,
                                "peak_rss_mb": 300, "peak_rss_parse_children_mb": 200}},
           "text_target": {"formats": ["md", "txt"], "target": 0.7, "ratio_vs_embedding": 0.65}}
    (t,) = [t for t in targets({"ingestion": ing}) if t["target"].startswith("ingestion")]
    assert t["pass"] is False and "0.65×" in t["measured"]
    table = markdown({"ingestion": ing, "meta": {}})
    assert "| generated | md |" in table and "**FAIL**" in table
    (t,) = [t for t in targets({"ingestion": None}) if t["target"].startswith("ingestion")]
    assert t["pass"] is None
