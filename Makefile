# comprules: two commands on a fresh machine.
#   make site CORPUS="../shared/corpus/en ../shared/seeds"   # venv, install, build the knowledge base + site
#   make test                                                # the test suite on the real corpus
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/en ../shared/seeds
KB     ?= build
JOBS   ?= 2

.PHONY: site test install bench clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/.installed

site: install
	$(BIN)/comprules build $(CORPUS) --kb $(KB) --jobs $(JOBS)
	@echo "open $(KB)/site/index.html"

test: install
	$(BIN)/python -m pytest

bench: install
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(KB) .pytest_cache
