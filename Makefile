# The two commands a newcomer needs: `make demo` and `make test`. Both create .venv/ first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_KIT := examples/javascript/node_modules/.installed

.PHONY: demo demo-games test test-busy bench soak local clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

# The JavaScript example bot's one dependency (Ajv); skipped, with a note, where npm is missing.
$(NODE_KIT): examples/javascript/package.json examples/javascript/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix examples/javascript --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the JavaScript tests will be skipped"; fi

## demo: a knockout tournament of 20 bot processes on loopback, a line per round, the standings
demo: $(STAMP)
	$(BIN)/python -m evolution.host.demo

## demo-games: the host and 8 client processes play 3 single games; the results table
demo-games: $(STAMP)
	$(BIN)/python -m evolution.host.demo --games 3

## test: the whole test suite, conformance cases included
test: $(STAMP) $(NODE_KIT)
	$(BIN)/python -m pytest

## test-busy: the whole suite while other processes keep every core busy (stress-ng --cpu N, else Python loops)
test-busy: $(STAMP) $(NODE_KIT)
	$(BIN)/python tests/busy.py $(BIN)/python -m pytest

## bench: speed figures (printed, never asserted); the load part alone: python -m bench load --bots N
bench: $(STAMP)
	$(BIN)/python -m bench

## soak: 2,000 bots on one host for 2 minutes; fails if an honest bot is removed or a game is not stored
soak: $(STAMP)
	$(BIN)/python -m bench.soak

## local: one in-process game of 8 silly players
local: $(STAMP)
	$(BIN)/evolution-local 8 --seed 1

clean:
	rm -rf $(VENV) examples/javascript/node_modules build *.egg-info .pytest_cache .hypothesis twisted/plugins/dropin.cache
