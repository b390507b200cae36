# The two commands a newcomer needs: `make demo` and `make test`. Both create .venv/ first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_KIT := examples/javascript/node_modules/.installed

.PHONY: demo demo-games demo-fish demo-ladder demo-cluster test test-busy bench soak local clean

$(STAMP): setup.cfg pyproject.toml
	@echo "Installing the host and its test tools (Twisted, jsonschema, openskill, pytest, Playwright...) into $(VENV)/;" \
		"pip is quiet and this takes a minute or so the first time"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

# The JavaScript example bot's one dependency (Ajv); skipped, with a note, where npm is missing.
# --no-progress: on a terminal npm draws a spinner that stays in the output as stray characters.
$(NODE_KIT): examples/javascript/package.json examples/javascript/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix examples/javascript --no-audit --no-fund --no-progress --loglevel=error && touch $@; \
	else echo "npm not found: the JavaScript tests will be skipped"; fi

## demo: a knockout tournament of 20 bot processes on loopback, a line per round, the standings
demo: $(STAMP)
	$(BIN)/python -m evolution.cli.demo

## demo-games: the host and 8 client processes play 3 single games; the results table
demo-games: $(STAMP)
	$(BIN)/python -m evolution.cli.demo --games 3

## demo-fish: a knockout of 20 Fish bot processes in the course's protocol, with the live web view; the standings
demo-fish: $(STAMP)
	$(BIN)/python -m evolution.cli.demo --game fish

## demo-ladder: the same 20 bot processes on a ladder for a minute, with the web view; the games, the leaders, then the ladder
demo-ladder: $(STAMP)
	$(BIN)/python -m evolution.cli.demo --ladder

## demo-cluster: one ladder fed by three hosts behind HAProxy sharing one PostgreSQL (throw-away, on loopback), 60 bots;
## the leaders as they change and each host's games (needs Debian's postgresql and haproxy: it says so if missing)
demo-cluster: $(STAMP)
	$(BIN)/python -m evolution.cli.cluster_demo

## test: the whole test suite, conformance cases included
test: $(STAMP) $(NODE_KIT)
	$(BIN)/python -m pytest

## test-busy: the whole suite while other processes keep every core busy (stress-ng --cpu N, else Python loops)
test-busy: $(STAMP) $(NODE_KIT)
	$(BIN)/python tests/support/busy.py $(BIN)/python -m pytest

## bench: speed figures (printed, never asserted); the load part alone: python -m bench load --bots N
bench: $(STAMP)
	$(BIN)/python -m bench

## soak: first the tests marked outage (three hosts on one PostgreSQL through a 20 s outage and a host killed,
## the cluster demo: about 2 minutes); then 2,000 bots on one host for 2 minutes, then 2,000 on a ladder for 1;
## fails if an honest bot is removed,
## a game is not stored (or, on the ladder, not counted in its standings) or a bot plays far less than the others.
## Then 20 tournaments (both games, both formats, no --seed, workers off and on) whose host is killed with SIGKILL
## at random moments and resumed (2 to 3 minutes on 2 cores, each tournament bounded by a deadline); fails
## unless each finishes with every round played once, one game per player per round, standings its games give
soak: $(STAMP) $(NODE_KIT)
	$(BIN)/python -m pytest -m outage
	$(BIN)/python -m bench.soak
	$(BIN)/python -m bench.ladder_soak
	$(BIN)/python -m bench.resume_soak

## local: one in-process game of 8 silly players
local: $(STAMP)
	$(BIN)/evolution-local 8 --seed 1

clean:
	rm -rf $(VENV) examples/javascript/node_modules build *.egg-info .pytest_cache .hypothesis twisted/plugins/dropin.cache
