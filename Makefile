# Throne — the two commands of the README: `make serve` and `make test`.
#
#   make serve          .venv with the web platform only (extra `server`), then `throne serve`
#   make cluster        the same venv, then `throne cluster`: PostgreSQL, Redis, 3 nodes, HAProxy on :8000
#                       (installs the Debian packages postgresql, redis-server and haproxy first; docs/deploy.md)
#   make test           .venv with everything the tests need (dev,server,rl,ray), Debian packages, ruff, pytest
#   make install-all    .venv with every extra (the research API and Ray included), for research work
#   make install EXTRAS=rl,ray   .venv with the extras named (the core package alone: EXTRAS=)
#   make lint           ruff, and import-linter (the layer table of docs/architecture.md)
#   make axe            axe-core (npm, pinned) into tests/e2e/.axe for the accessibility browser tests
#   make system-deps    the Debian packages the tests and `make cluster` use (scripts/system-deps.sh)
#   make clean          removes .venv and the caches
#   make help           this list
#
# One .venv serves them all: it is created once, and each set of extras is installed into it on first use
# (stamp .venv/.installed-<extras>; pyproject.toml changing reinstalls that set).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

SERVE_EXTRAS := server
TEST_EXTRAS  := dev,server,rl,ray
ALL_EXTRAS   := dev,server,rl,ray
EXTRAS       ?= $(ALL_EXTRAS)

comma := ,
empty :=
space := $(empty) $(empty)
# The stamp of a set of extras, names sorted: dev,server -> .venv/.installed-dev-server (none: -core).
stamp = $(VENV)/.installed-$(or $(subst $(space),-,$(sort $(subst $(comma),$(space),$(1)))),core)

# axe-core for the accessibility browser tests (tests/e2e/test_axe_e2e.py): a test-only, git-ignored folder,
# installed once per pinned version (the stamp names it); the app itself never loads it.
AXE_VERSION := 4.14.1
AXE_DIR     := tests/e2e/.axe
AXE_STAMP   := $(AXE_DIR)/.installed-$(AXE_VERSION)

.PHONY: serve cluster test install install-all system-deps lint axe clean help
.PRECIOUS: $(VENV)/.installed-%

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamp of one set of extras; the venv is created only when it does not exist (order-only prerequisite).
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.$(if $(filter core,$*),,[$(subst -,$(comma),$*)])'
	touch $@

install: $(call stamp,$(EXTRAS))

install-all: $(call stamp,$(ALL_EXTRAS))

serve: $(call stamp,$(SERVE_EXTRAS))
	$(BIN)/throne serve

cluster: $(call stamp,$(SERVE_EXTRAS)) system-deps
	$(BIN)/throne cluster

system-deps:
	bash scripts/system-deps.sh

$(AXE_STAMP): | system-deps
	rm -rf $(AXE_DIR)
	npm install --prefix $(AXE_DIR) --no-save --no-audit --no-fund --no-package-lock --ignore-scripts axe-core@$(AXE_VERSION)
	touch $@

axe: $(AXE_STAMP)

lint: $(call stamp,$(TEST_EXTRAS))
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports

test: $(call stamp,$(TEST_EXTRAS)) system-deps $(AXE_STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadgroup

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis $(AXE_DIR)

help:
	@sed -n 's/^#   //p' Makefile
