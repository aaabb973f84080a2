# comprules: two commands on a fresh machine.
#   make site CORPUS="../shared/corpus/en ../shared/corpus/zh ../shared/seeds"   # venv, install, build the knowledge base + site
#   make site                                                # the same from the latest edition, fetched (comprules fetch)
#   make test                                                # the test suite on the real corpus
#   make lint                                                # ruff check, ruff format --check, mypy
#   make docs                                                # the documentation with MkDocs, into build-docs/ (offline)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?=
KB     ?= build
JOBS   ?= 1
# pytest-xdist: one test worker per core (auto), each test file in one worker, handed out in
# the order tests/conftest.py gives them (the files that do not read the whole-corpus
# knowledge base first, while it is built beside them)
TEST_WORKERS ?= auto

.PHONY: site test lint docs install bench clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q src  # read even where PYTHONDONTWRITEBYTECODE is set: 0.2 s a command
	touch $@

install: $(BIN)/.installed

site: install
	@sources='$(CORPUS)'; \
	if [ -z "$$sources" ]; then sources=$$($(BIN)/comprules fetch --latest) || exit 2; fi; \
	echo "$(BIN)/comprules build $$sources --kb $(KB) --jobs $(JOBS)"; \
	$(BIN)/comprules build $$sources --kb $(KB) --jobs $(JOBS)
	@echo "open $(KB)/site/index.html"

test: install
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

docs: install
	$(BIN)/mkdocs build --strict --site-dir build-docs
	@echo "open build-docs/index.html"

bench: install
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(KB) build-docs .pytest_cache .mypy_cache .ruff_cache
