# blinkc developer entry points. Both `make demo` and `make test` create the
# virtual environment on first use and install what they need into it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-long lint bench clean venv

venv: $(STAMP)

# setup.py builds the C++ world core into blinkc/native_world/core (docs/native.md): a change to its
# sources installs again, which rebuilds it.
CORE_SOURCES := $(wildcard blinkc/native_world/core/*.cpp blinkc/native_world/core/*.h) blinkc/native_world/core/sources.py \
                blinkc/native_world/core/view_fields.py \
                blinkc/native/blinkc_native.h blinkc/native/blinkc_tile.h

$(STAMP): pyproject.toml setup.py $(CORE_SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

## demo: generate Pirates & Lasers and play a laser shot and an HP transfer in the emulator
demo: $(STAMP)
	$(BIN)/python -m blinkc.demo

# pytest workers: one more than the cores, since many tests wait on a subprocess, a browser
# or a timer (on 2 cores: 3:21 with 3 workers, 3:44 with 2, 2026-12-06). Idle workers steal
# queued tests from busy ones, so a few slow tests do not leave one worker running alone at
# the end (on 2 cores: 3:37 against 3:49 for xdist's default, the same commit, in turn).
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_PARALLEL = -n $(WORKERS) --dist worksteal

## test: lint, then the default test tier (in parallel on all cores): every test not marked `long`
test: $(STAMP)
	$(BIN)/ruff check blinkc tests bench
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -q -m "not long"

## test-long: the long tier (long campaigns, marked `long`); .ci/run runs it after `make test`.
## pytest's exit code 5 (no test selected) is not a failure here.
test-long: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -q -m long || [ $$? -eq 5 ]

lint: $(STAMP)
	$(BIN)/ruff check blinkc tests bench
	$(BIN)/ruff format --check blinkc tests bench || true

## bench: print the performance figures
bench: $(STAMP)
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build .pytest_cache .ruff_cache blinkc/native_world/core/_world_core.so
