"""The examples in the engine docs and docstrings run as written."""

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", ["", ".builtin", ".limits", ".levels", ".timecontrol",
                                    ".hubwire", ".dxpwire", ".match", ".spec", ".native",
                                    ".nativecheck"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(f"damas.engine{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "engine" / "README.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0
