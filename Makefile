# The two commands a new user needs: `make demo` and `make test`.
# Both build their own virtual environment in .venv from pyproject.toml.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "damas needs Python 3.11 or newer (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/damas demo

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/damas bench rules

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
