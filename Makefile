# One command equals CI: `make test` sets up everything a fresh machine needs, then runs every test.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
BUNDLE := static/dist/app.js
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup run test test-fast lint selftest bench chromium clean test-cgroup2

setup: $(PY_STAMP) $(BUNDLE)

$(PY_STAMP): pyproject.toml
	command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH" >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(BUNDLE): $(NODE_STAMP) $(shell find static/src -type f 2>/dev/null) scripts/build-frontend.mjs
	npm run --silent build

# Browser tests drive Debian's Chromium; Playwright's own browser download cannot reach its host here.
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: setup
	$(PY) -m app serve --host $(HOST) --port $(PORT)

lint: $(PY_STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

selftest: $(PY_STAMP)
	$(PY) -m grader selftest --all

test-fast: setup
	$(PY) -m pytest -m "not browser and not services and not slow" -q

test: setup chromium lint
	$(PY) -m pytest -q

bench: setup
	$(PY) -m bench

# The sandbox on the unified cgroup v2 hierarchy (most servers boot with it; these machines use v1): a Debian 12
# guest under QEMU runs the probe, the hostile limit and isolation tests and MoCo gradings, as root and as a user
# holding a delegated subtree. The guest image is cached in ~/.cache/paperlab-cgroup2-guest (scripts/cgroup2-guest).
test-cgroup2: $(PY_STAMP)
	PYTHON=$(abspath $(PY)) scripts/cgroup2-guest/run.sh

clean:
	rm -rf $(VENV) node_modules static/dist var .pytest_cache

# ---- container-test (scripts/container/): build the image with podman and run web + 2 workers from it against
# this machine's PostgreSQL and Redis, through the HTTP API; installs podman/runc/debootstrap/docker-compose with
# apt when missing. Skips only where podman cannot run at all, never with CI=true.
.PHONY: container-test
container-test:
	scripts/container/test.sh
