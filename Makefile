# Omaha. A newcomer types two commands:
#   make run    create .venv, install, migrate the embedded database, serve on http://127.0.0.1:8000
#   make test   install the test tools and servers, then the whole suite with ruff, mypy, docker checks beside it
# and a host, before `docker compose up -d`:
#   make init   write .env with new random secrets (never over an existing one)
# HOST, PORT and every other setting are environment variables: `PORT=9000 make run`.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
BIN  := $(VENV)/bin
PY   := $(BIN)/python

# The first Python 3.11 or newer on PATH (override with `make PYTHON=/path/to/python3.12 ...`).
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && { command -v $$p; break; }; done)

# Installs are redone only when pyproject.toml changes.
DEPS_HASH  := $(shell sha256sum pyproject.toml | cut -c1-12)
RUN_STAMP  := $(VENV)/.installed-run-$(DEPS_HASH)
TEST_STAMP := $(VENV)/.installed-test-$(DEPS_HASH)

# Programs the tests need from the system, as command:debian-package. Installed with apt-get
# when missing and root; otherwise `make test` stops with one line naming them.
# Chromium is Debian's, driven by Playwright in tests/e2e (nothing downloads a browser): its
# headless shell for the tests (less CPU), the full browser for the benchmarks. Caddy is
# Debian's too, run on loopback in front of a test server (tests/deploy).
TEST_SYSTEM_TOOLS := redis-server:redis-server docker-compose:docker-compose chromium:chromium \
	chromium-headless-shell:chromium-headless-shell caddy:caddy

.PHONY: help run init test test-full lint typecheck migrate migration install install-test system-tools \
	docker-check checks clean screenshots test-tools

help:
	@echo "make run        install and serve on http://127.0.0.1:8000 (HOST, PORT settable)"
	@echo "make init       write .env for docker compose with new secrets (DOMAIN=... to set it)"
	@echo "make test       the whole suite on SQLite, PostgreSQL and Redis; ruff, mypy, docker checks beside it"
	@echo "make test-full  the same with the full-size random samples (OMAHA_FULL=1, slower)"
	@echo "make lint       ruff check"
	@echo "make typecheck  mypy app tests bench (strict)"
	@echo "make migrate    upgrade DATABASE_URL (default: the embedded SQLite) to the latest schema"
	@echo 'make migration m="what changed"   write a migration from app/store/models.py'
	@echo "make screenshots  the README's pictures (docs/screenshots/), from real play in Chromium"
	@echo "make clean      remove .venv and caches (keeps ./data, your database)"

$(PY):
	@test -n "$(PYTHON)" || { echo "make: Omaha needs Python 3.11 or newer on PATH"; exit 1; }
	@echo "make: creating $(VENV) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
		echo "make: cannot create $(VENV): install Python's venv module (Debian: apt-get install python3-venv)"; \
		exit 1; }
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip

$(RUN_STAMP): pyproject.toml | $(PY)
	@echo "make: installing the server into $(VENV)"
	@PYTHONWARNINGS=ignore $(PY) -m pip install -q --disable-pip-version-check -e .
	@rm -f $(VENV)/.installed-run-* && touch $@

$(TEST_STAMP): pyproject.toml | $(PY)
	@echo "make: installing the server with its test and dev tools into $(VENV)"
	@PYTHONWARNINGS=ignore $(PY) -m pip install -q --disable-pip-version-check -e '.[test,dev]'
	@rm -f $(VENV)/.installed-run-* $(VENV)/.installed-test-* && touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-test: $(TEST_STAMP)

run: $(RUN_STAMP)
	@$(PY) -m app serve

# The system's Python alone: nothing is installed for it (app/envfile.py).
init:
	@test -n "$(PYTHON)" || { echo "make: Omaha needs Python 3.11 or newer on PATH"; exit 1; }
	@$(PYTHON) -m app init $(if $(DOMAIN),--domain "$(DOMAIN)")

migrate: $(RUN_STAMP)
	@$(PY) -m app migrate

# Autogenerate against a scratch SQLite database at head, numbered after the last migration
# (0002_..., 0003_...); read the result before committing.
migration: $(TEST_STAMP)
	@test -n "$(m)" || { echo 'usage: make migration m="what changed"'; exit 2; }
	@scratch=$$(mktemp -d); trap 'rm -rf "$$scratch"' EXIT; \
	export DATABASE_URL="sqlite+aiosqlite:///$$scratch/scratch.sqlite3"; \
	last=$$(ls migrations/versions | sed -n 's/^\([0-9]\{4\}\)_.*\.py$$/\1/p' | sort | tail -n 1); \
	next=$$(printf '%04d' $$((10#$${last:-0} + 1))); \
	LOG_LEVEL=warning $(PY) -m app migrate && \
	LOG_LEVEL=warning $(BIN)/alembic revision --autogenerate --rev-id "$$next" -m "$(m)"

# The programs above, and a PostgreSQL server (its binaries, not a running service).
system-tools:
	@missing=""; \
	for pair in $(TEST_SYSTEM_TOOLS); do \
		command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	pgbin=$$(pg_config --bindir 2>/dev/null); \
	[ -x "$$pgbin/pg_ctl" ] || pgbin=$$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1); \
	[ -x "$$pgbin/pg_ctl" ] && [ -x "$$pgbin/initdb" ] || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "make: installing$$missing with apt-get"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 \
			|| { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing >/dev/null; } \
			|| { echo "make: apt-get could not install$$missing"; exit 1; }; \
		else \
			echo "make test needs:$$missing (Debian/Ubuntu: sudo apt-get install$$missing)"; exit 1; \
		fi; \
	fi

# The suite in parallel (pytest-xdist), one worker more than the cores, at most four: its tests
# wait on servers, browsers and leases' clocks, and on two quiet cores a third worker takes the
# sixth of the cores two left idle (measured: idle 136 -> 31 core-s, 442 -> 418 s). Each worker
# starts its own PostgreSQL and redis-server.
# `make test JOBS=0` runs it serially. Bytecode is cached even where the environment says
# PYTHONDONTWRITEBYTECODE (these machines do): each of the suite's ~150 Python processes
# (servers, workers, the CLI) and each worker's collection would compile the sources again
# (about 0.4 s a server start, 7 s a collection).
# ruff, mypy and the compose checks run beside the suite at the lowest priority: they take the
# cycles the suite leaves while it waits on servers and browsers, instead of the half minute
# they took after it. Their output follows the suite's; either failing fails `make test`.
JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: test-tools
	@checks=$$(mktemp); \
	nice -n 19 $(MAKE) --no-print-directory checks > "$$checks" 2>&1 & checker=$$!; \
	echo "env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n $(JOBS) --maxprocesses 4 --dist worksteal"; \
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n $(JOBS) --maxprocesses 4 --dist worksteal; \
	suite=$$?; wait $$checker; checked=$$?; cat "$$checks"; rm -f "$$checks"; \
	[ $$suite -eq 0 ] && [ $$checked -eq 0 ]

checks: lint typecheck docker-check

# On a fresh machine the Python tools (pip) and the system's (apt-get, Chromium's download the
# longest) are fetched side by side: neither needs the other, and each waits on the network.
test-tools:
	@$(MAKE) --no-print-directory -j2 $(TEST_STAMP) system-tools

# The sampled tests at full size (tests/sizes.py): 20,000 deals per hole count against
# pokerkit, 3,000 hands of each variant, 1,000 hands of every game through the table actors,
# twenty hands of every game in the browser. `make test` runs seeded samples of them.
test-full:
	@OMAHA_FULL=1 $(MAKE) --no-print-directory test

# Real play on a throwaway server, in Debian's Chromium (installed like `make test` does).
screenshots: test-tools
	$(PY) -m tests.e2e.screenshots docs/screenshots

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The server, its tests and the benchmarks, all strict (pyproject.toml's [tool.mypy]).
typecheck: $(TEST_STAMP)
	$(BIN)/mypy app tests bench

# No Docker engine is needed: the compose file and the Dockerfile are checked statically, the
# compose file without DOMAIN (plain HTTP), with it (HTTPS) and with the scale profile; the
# proxy's configuration is validated by Caddy itself in the tests (tests/deploy).
docker-check: $(TEST_STAMP)
	docker-compose --env-file .env.example -f docker-compose.yml config -q
	DOMAIN=poker.example.org docker-compose --env-file .env.example -f docker-compose.yml config -q
	docker-compose --env-file .env.example -f docker-compose.yml --profile scale config -q
	$(BIN)/hadolint Dockerfile
	@echo "docker-compose.yml and Dockerfile: clean"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
