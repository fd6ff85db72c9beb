# The two commands a new user needs: `make demo` and `make test`.
# Both build their own virtual environment in .venv from pyproject.toml.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean firmware browser broker

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "damas needs Python 3.11 or newer (found $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# setuptools notes every editable install ("Editable installation... be careful with
	@# folders"): expected here, so not shown
	$(BIN)/python -W "ignore:Editable installation" -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/damas demo

lint: $(STAMP)
	$(BIN)/ruff check .

# the whole package, stages included (damas/<stage> are symlinks to the stage folders)
typecheck: $(STAMP)
	$(BIN)/mypy -p damas

# The firmware tests run the real firmware in simavr: Debian's AVR toolchain and simavr
# are installed when missing (as root). Without them those tests skip, except in CI
# (.ci/run sets DAMAS_REQUIRE_FIRMWARE=1), where they fail.
firmware:
	@bash firmware/install-deps.sh || echo "firmware toolchain missing: its tests will skip"
	@if command -v avr-gcc >/dev/null; then $(MAKE) --no-print-directory -C firmware; fi

# The web display is tested in headless Chromium from Debian (chromium, chromium-driver).
browser:
	@bash scripts/apt-need.sh "the web page tests" chromium chromium-driver || \
		echo "chromium missing: the web page tests will skip"

# The tournament hall is tested through a real MQTT broker: Debian's Mosquitto (the tests
# start their own on a free loopback port; the package's system service is not used).
broker:
	@bash scripts/apt-need.sh "the tournament hall tests" mosquitto || \
		echo "mosquitto missing: the hall tests will skip"

test: $(STAMP) lint typecheck firmware browser broker
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/damas bench rules

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis firmware/build
