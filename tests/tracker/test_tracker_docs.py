"""The tracker's examples (module docstring, README section) run as written."""

import doctest
from pathlib import Path

import damas.rules.tracker

RULES = Path(__file__).resolve().parents[2] / "rules"


def test_module_example():
    result = doctest.testmod(damas.rules.tracker)
    assert result.attempted > 0 and result.failed == 0


def test_readme_section_example():
    doc = RULES / "README.md"
    assert "damas.rules.tracker" in doc.read_text(encoding="utf-8")
    result = doctest.testfile(str(doc), module_relative=False)
    assert result.attempted > 0 and result.failed == 0
