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

# The catalogue's tests grade every problem's reference, mutants and variants in the sandbox: a third of `make
# test`'s work, one call after another. They run beside the rest of the suite, whose tests leave about half of the
# two cores idle (waiting on templates starting, limits running out, browsers and services: 37-89% idle, sampled),
# in two processes that each take the next test when free (worksteal: the self-tests are minutes long and must not
# queue behind one). On a 2-core AMD machine, one after the other they took 20.2 + 11.6 minutes; side by side,
# 24.0-27.7 (the catalogue's done in 16.7-20.0; two runs). Their output is kept in var/catalogue-tests.log and
# printed after the rest; either failing fails the target.
CATALOGUE_TESTS := tests/problems/test_selftest_every_problem.py tests/problems/test_hints_never_lie.py \
	tests/problems/test_merging_changes_no_verdict.py
CATALOGUE_JOBS ?= 2

test: setup chromium lint
	@mkdir -p var
	$(PY) -m pytest -q -n $(CATALOGUE_JOBS) --dist worksteal $(CATALOGUE_TESTS) >var/catalogue-tests.log 2>&1 & \
	catalogue=$$!; \
	$(PY) -m pytest -q $(addprefix --ignore=,$(CATALOGUE_TESTS)); rest=$$?; \
	wait $$catalogue; catalogue_status=$$?; \
	echo "---- the catalogue's tests (var/catalogue-tests.log):"; cat var/catalogue-tests.log; \
	exit $$(( rest || catalogue_status ))

bench: setup
	$(PY) -m bench

# The sandbox on the unified cgroup v2 hierarchy (most servers boot with it; these machines use v1): a Debian 12
# guest under QEMU runs the probe, the hostile limit and isolation tests and MoCo gradings, as root, as a user
# holding a delegated subtree and in a private cgroup namespace (10-12 min here). The guest image is cached in
# ~/.cache/paperlab-cgroup2-guest (scripts/cgroup2-guest).
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

# --- mutation testing (docs/mutation.md) ------------------------------------------------------------------------
# mutmut mutates the engine modules that decide verdicts ([tool.mutmut] in pyproject.toml) and runs each mutant
# against the fast tests that reach it; tests/mutation/score.py prints killed / total per module and fails under
# 97% or on a survivor not reviewed in tests/mutation/equivalent.toml. `mutation` runs every mutant (about 3,700
# mutants of ten modules, 10-13 minutes on a 2-core machine; run it before pushing a change to a mutated module);
# `mutation-sample` runs the fifth whose number ends in one of two digits chosen by the commit, which is what CI runs.
MUTMUT := $(VENV)/bin/mutmut
MUTATION_JOBS ?= 2
MUTATION_LOG := var/mutation.log
MUTATION_DIGITS = $(shell git rev-parse HEAD 2>/dev/null | $(PY) -c 'import sys; d = int(sys.stdin.read().strip() or "0", 16) % 5; print(d, d + 5)')

.PHONY: mutation mutation-sample

mutation: $(PY_STAMP)
	rm -rf mutants && mkdir -p var
	$(MUTMUT) run --max-children $(MUTATION_JOBS) > $(MUTATION_LOG) 2>&1 || { tail -c 3000 $(MUTATION_LOG); exit 1; }
	$(PY) -m tests.mutation.score

mutation-sample: $(PY_STAMP)
	rm -rf mutants && mkdir -p var
	@echo "mutation: sampled run, mutants numbered *$(word 1,$(MUTATION_DIGITS)) and *$(word 2,$(MUTATION_DIGITS))"
	$(MUTMUT) run --max-children $(MUTATION_JOBS) '*__mutmut_*$(word 1,$(MUTATION_DIGITS))' \
		'*__mutmut_*$(word 2,$(MUTATION_DIGITS))' > $(MUTATION_LOG) 2>&1 || { tail -c 3000 $(MUTATION_LOG); exit 1; }
	$(PY) -m tests.mutation.score --sample
