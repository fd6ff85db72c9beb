"""The native core (damas.engine._core, engine/native/): perft tables exact, and the same
legal moves as the pure-Python damas.rules on random positions of every variant.

The extension is built by `pip install -e .` (make test): these tests fail, not skip,
when it is missing."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from damas.engine import native
from damas.engine.nativecheck import compare
from damas.rules import ENGLISH, BackRowInCapture, CaptureChoice, Position, Variant, perft

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT.parent / "shared" / "references" / "rules.md"  # optional, beside the clone
LEAVES_BUDGET = 120_000_000  # deeper reference counts: up to about a second each


def perft_tables():
    """The tables of tests/rules/test_perft.py (one copy of the data)."""
    if "perft_tables" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "perft_tables", ROOT / "tests" / "rules" / "perft_tables.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["perft_tables"] = module
    return sys.modules["perft_tables"]


def test_the_extension_is_built():
    assert native.available(), "damas.engine._core is not built: pip install -e ."


@pytest.mark.parametrize("name", ["international", "brazilian", "english"])
def test_start_position_tables(name):
    table = perft_tables().START_TABLES[name]
    start = Position.start(name)
    assert [native.perft(start, d) for d in range(1, len(table) + 1)] == table


def test_woldouby_table():
    tables = perft_tables()
    pos = Position.from_fen(tables.WOLDOUBY_FEN, "international")
    assert [native.perft(pos, d) for d in range(1, len(tables.WOLDOUBY) + 1)] == tables.WOLDOUBY


def reference_tables() -> dict[str, list[int]]:
    """The deeper published counts of ../shared/references/rules.md, by heading."""
    text = REFERENCE.read_text()
    out = {}
    for heading, numbers in re.findall(r"^(International \"Woldouby\"|International|Brazilian|"
                                       r"English)[^\n]*depth 1\.\.\d+:\n([\d,; ]+)$",
                                       text, flags=re.M):
        out[heading] = [int(n.replace(",", "")) for n in numbers.split(";")]
    return out


@pytest.mark.skipif(not REFERENCE.exists(), reason="../shared/references is not beside the clone")
def test_deeper_reference_counts():
    tables = reference_tables()
    assert len(tables) == 4
    positions = {"International": Position.start("international"),
                 "Brazilian": Position.start("brazilian"),
                 "English": Position.start("english"),
                 'International "Woldouby"': Position.from_fen(perft_tables().WOLDOUBY_FEN,
                                                               "international")}
    checked = 0
    for heading, counts in tables.items():
        for depth, expected in enumerate(counts, start=1):
            if expected > LEAVES_BUDGET:
                break
            assert native.perft(positions[heading], depth) == expected, (heading, depth)
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("name", ["international", "brazilian", "english"])
def test_same_moves_as_the_rules_on_random_positions(name):
    report = compare(name, 3000, seed=44, perft_every=4)
    assert report["mismatches"] == 0, report["first_mismatch"]
    # the sample must exercise kings, king captures and long chains, or it proves little
    assert report["with_kings"] >= 1000
    assert report["king_captures"] >= 300
    assert report["chains_of_3"] >= 20
    assert report["longest_chain"] >= 5


SEED_003_LITERAL = Variant(
    name="english-seed-003", size=8, first_to_move=ENGLISH.first_to_move,
    men_capture_backwards=False, flying_kings=True, capture_choice=CaptureChoice.FREE,
    back_row_in_capture=BackRowInCapture.CROWNS_AND_STOPS, draw_rules=ENGLISH.draw_rules,
    gametype=ENGLISH.gametype)


def test_any_other_rules_run_the_generic_copy():
    """A variant that is none of the three (the seed's literal English: flying kings, free
    capture) runs the copy that reads the rules at run time."""
    report = compare(SEED_003_LITERAL, 1000, seed=3, perft_every=2)
    assert report["mismatches"] == 0, report["first_mismatch"]
    assert report["king_captures"] >= 100
    start = Position.start(SEED_003_LITERAL)
    assert native.perft(start, 6) == perft(start, 6)


def test_moves_are_rules_moves():
    pos = Position.from_fen("W:WK46:B10,19,28", "international")
    (move,) = native.legal_moves(pos)
    assert move == pos.legal_moves()[0] and move.captured == (28, 19, 10)
    assert move.path == (46, 23, 14, 5) or pos._is_route(move, list(move.path))


def test_perft_zero_and_bad_input():
    start = Position.start("english")
    assert native.perft(start, 0) == 1
    with pytest.raises(ValueError):
        native.perft(start, -1)
    core = native.module()
    flags = native.rules_flags(start.variant)
    for white, black, kings in ((1, 1, 0), (1 << 40, 2, 0), (1, 2, 4), (-1, 0, 0)):
        with pytest.raises(ValueError):
            core.perft(flags, white, black, kings, 0, 2)


def test_damas_perft_counts_with_the_native_core(capsys):
    from damas.cli import main

    counts = {}
    for extra in ([], ["--python"]):
        assert main(["perft", "--variant", "english", "6", "--json", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        counts[out["core"]] = out["nodes"]
    assert counts == {"native": 36768, "python": 36768}
    assert main(["perft", "--fen", "W:WK46:B10,19,28", "2", "--divide"]) == 0
    out = capsys.readouterr().out
    assert "46x5" in out and "(native)" in out


def test_bench_native_prints_the_comparison(capsys):
    from damas.cli import main

    assert main(["bench", "native", "--positions", "60", "--variant", "brazilian"]) == 0
    out = capsys.readouterr().out
    assert "brazilian: 60 positions, 0 mismatches" in out
