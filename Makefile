# The two commands a new user needs: `make demo` and `make test`.
# Both build their own virtual environment in .venv from pyproject.toml.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# setuptools notes every editable install ("Editable installation... be careful with
# folders"): expected here, so not shown
PIP := $(BIN)/python -W "ignore:Editable installation" -m pip install --quiet --progress-bar off

.PHONY: demo test test-fast lint typecheck bench clean firmware browser broker

# the native core (engine/native/, a C extension setup.py declares): pip install builds it,
# so editing a source installs again, which rebuilds it
NATIVE := setup.py $(wildcard engine/native/*.c engine/native/*.h)

# what the demo and every command need, nothing more
$(STAMP): pyproject.toml $(NATIVE)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "damas needs Python 3.11 or newer (found $$($(PYTHON) --version))"; exit 1; }
	@echo "setting up .venv: damas and what it runs on (numpy, OpenCV, pyserial, paho-mqtt;"
	@echo "  about 100 MB to download the first time, a minute or two; nothing to do after),"
	@echo "  and the native core compiled with gcc (engine/native/)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip
	@$(PIP) -e .
	@touch $(STAMP)

# the test tools on top: pytest, hypothesis, ruff, mypy, pydraughts, dame-rs, selenium, PyAV,
# matplotlib
$(TEST_STAMP): $(STAMP)
	@echo "adding the test tools to .venv (pytest, mypy, ruff, selenium, PyAV, matplotlib,"
	@echo "  pydraughts, dame-rs; about 150 MB more the first time)"
	@$(PIP) -e '.[test]'
	@touch $(TEST_STAMP)

demo: $(STAMP)
	$(BIN)/damas demo

lint: $(TEST_STAMP)
	@printf "lint (ruff): "; $(BIN)/ruff check .

# the whole package, stages included (damas/<stage> are symlinks to the stage folders)
typecheck: $(TEST_STAMP)
	@printf "types (mypy): "; $(BIN)/mypy -p damas

# The firmware tests run the real firmware in simavr: Debian's AVR toolchain and simavr
# are installed when missing (as root). Without them those tests skip, except in CI
# (.ci/run sets DAMAS_REQUIRE_FIRMWARE=1), where they fail.
firmware:
	@bash firmware/install-deps.sh || echo "firmware toolchain missing: its tests will skip"
	@if command -v avr-gcc >/dev/null; then $(MAKE) -s --no-print-directory -C firmware && \
		echo "firmware: built, its tests run it in simavr"; fi

# The web display is tested in headless Chromium from Debian (chromium, chromium-driver).
browser:
	@bash scripts/apt-need.sh "the web page tests" chromium chromium-driver && \
		echo "browser: headless Chromium for the page tests" || \
		echo "chromium missing: the web page tests will skip"

# The tournament hall is tested through a real MQTT broker: Debian's Mosquitto (the tests
# start their own on a free loopback port; the package's system service is not used).
broker:
	@bash scripts/apt-need.sh "the tournament hall tests" mosquitto && \
		echo "broker: Mosquitto for the hall tests" || \
		echo "mosquitto missing: the hall tests will skip"

# Every test, as CI runs them (about 25 minutes on 2 cores): a dot a test, the output of a
# failing one, pytest's count at the end.
test: $(TEST_STAMP) lint typecheck firmware browser broker
	@echo "tests (pytest): every test, about 25 minutes"
	@$(BIN)/python -m pytest

# For everyday work: every test but the firmware in simavr, Scan 2.0, the soaks and the
# pydraughts cross-checks (tests/conftest.py, --fast).
test-fast: $(TEST_STAMP) lint typecheck browser broker
	@echo "tests (pytest --fast, on every core): all but the firmware in simavr, Scan, the"
	@echo "  soaks, pydraughts and the tests marked slow"
	@$(BIN)/python -m pytest --fast -n auto

bench: $(STAMP)
	$(BIN)/damas bench rules

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis firmware/build
	rm -f engine/_core.*.so
