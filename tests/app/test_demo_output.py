"""What `damas demo` prints: its own games only, a board every few plies (not after each
one), the summary alone with --quiet, and each irregular move said once."""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from damas.play import irregular_line, move_list
from damas.rules.pdn import read_pdn


def demo(journal, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "damas", "demo", "--variant", "english",
                           "--robot", "sim-python", "--seed", "3", "--journal", str(journal),
                           *flags], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs on one journal and PDN file: 12 plies with a board every 5, then 6
    plies, then 2 plies with --quiet."""
    journal = tmp_path_factory.mktemp("demo") / "demo.jsonl"
    first = demo(journal, "--max-plies", "12", "--board-every", "5")
    second = demo(journal, "--max-plies", "6")
    third = demo(journal, "--max-plies", "2", "--quiet")
    for run in (first, second, third):
        assert run.returncode == 0, run.stderr
    return journal, first, second, third


def boards(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.endswith(" to move"))


def test_a_board_every_n_plies_with_the_moves_between(runs):
    _, first, _, _ = runs
    # plies 1-5, 6-10, 11-12: three boards, each after its moves in PDN numbering
    assert boards(first.stderr) == 3
    lines = first.stderr.splitlines()
    assert lines[lines.index("the board is set up") + 1].startswith("1. ")
    assert "3... " in first.stderr and "6. " in first.stderr
    assert len(first.stdout.splitlines()) + len(first.stderr.splitlines()) < 100


def test_each_run_prints_its_own_game_and_its_round_counts_on(runs):
    journal, first, second, third = runs
    for run, round_ in ((first, 1), (second, 2)):
        shown = read_pdn(run.stdout[run.stdout.index("[Event"):run.stdout.index("event log")],
                         "english")
        assert len(shown) == 1 and shown[0].tags["Round"] == str(round_)
        assert f"(round {round_}; the file keeps every demo game" in run.stdout
    kept = read_pdn(journal.with_suffix(".pdn").read_text(), "english")
    assert [g.tags["Round"] for g in kept] == ["1", "2", "3"]
    assert [len(g.game.moves) for g in kept] == [12, 6, 2]


def test_quiet_prints_the_summary_only(runs):
    _, _, _, third = runs
    lines = third.stdout.splitlines()
    assert lines[0].startswith("1 english game: 2 plies")
    assert lines[-1].startswith("journal: ") and "[Event" not in third.stdout
    assert third.stderr == ""  # no boards, no progress lines off a terminal
    assert len(lines) < 15


def test_an_irregular_move_names_its_squares_once():
    told = SimpleNamespace(article="5.4.02", squares=(32, 37), message_en=(
        "Irregular move of a man or king: no rule allows it (squares 32, 37)."))
    assert irregular_line(told) == ("irregular (5.4.02): Irregular move of a man or king: "
                                    "no rule allows it (squares 32, 37).")
    untold = SimpleNamespace(article="5.4.08", squares=(28, 32),
                             message_en="The move 32-28 was taken back.")
    assert irregular_line(untold) == ("irregular (5.4.08): The move 32-28 was taken back. "
                                      "Squares 28, 32.")


def test_a_move_list_is_numbered_as_pdn_numbers_moves():
    assert move_list([(1, "32-28"), (2, "19-23"), (3, "37-32")]) == "1. 32-28 19-23 2. 37-32"
    assert move_list([(4, "18-22"), (5, "28x17")]) == "2... 18-22 3. 28x17"
