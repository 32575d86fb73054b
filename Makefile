# DropQA — what the README tells people to type.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: run test lint eval bench studio clean-data help browser

help:
	@echo "make run    - install, index ./examples into the embedded database, serve on 127.0.0.1:8000"
	@echo "make test   - install with test extras, run unit + integration + e2e + browser tests"
	@echo "make lint   - ruff"
	@echo "make bench  - DropQA against BM25 / PGVector / RRF baselines, ingestion, 5k-50k scale (BENCH_SCALE=5000,20000 to shorten)"

$(BIN)/dropqa: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	@touch $@

$(VENV)/.test-installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(BIN)/dropqa $@

run: $(BIN)/dropqa
	$(BIN)/dropqa run examples/corpus --host 127.0.0.1 --port 8000

# The browser tests drive Debian's chromium (Playwright never downloads a browser); a CJK font for the screenshots.
browser:
	@command -v chromium >/dev/null && fc-list :lang=zh | grep -q . || \
		(apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null) || \
		echo "could not install chromium: the browser tests will be skipped"

# langgraph-cli[inmem] pins libraries that clash with the test tools: LangGraph Studio gets its own venv.
STUDIO_VENV := .venv-studio
$(STUDIO_VENV)/.installed: pyproject.toml
	@test -x $(STUDIO_VENV)/bin/python || $(PYTHON) -m venv $(STUDIO_VENV)
	$(STUDIO_VENV)/bin/pip install -q --upgrade pip
	$(STUDIO_VENV)/bin/pip install -q -e '.[studio]'
	@touch $@

test: $(VENV)/.test-installed browser $(STUDIO_VENV)/.installed
	$(BIN)/ruff check dropqa tests benchmarks
	$(BIN)/pytest -q -p no:cacheprovider tests

lint: $(VENV)/.test-installed
	$(BIN)/ruff check dropqa tests benchmarks

# LangGraph Studio on the embedded defaults (offline): open the printed Studio link to watch runs step by step.
studio: $(STUDIO_VENV)/.installed
	$(STUDIO_VENV)/bin/langgraph dev --no-browser

eval: $(BIN)/dropqa
	@if [ -d ../shared ]; then \
		$(BIN)/dropqa eval ../shared/samples/golden.yaml --corpus ../shared/samples/corpus --out eval-report; \
	else \
		echo "../shared not found: run e.g. '$(BIN)/dropqa eval evals/golden_en.yaml --corpus evals/corpus_en --out eval-report'"; \
	fi

$(VENV)/.bench-installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[bench]'
	@touch $(BIN)/dropqa $@

# One run, one machine: DropQA and the baselines on the same corpora; ratios, PASS/FAIL targets.
# Writes benchmarks/results/{bench,quality,scale}.json and latest.md. BENCH_SCALE=5000,20000 shortens the scale step.
bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks.run
