"""`damas think`, `damas match`, `damas dxp`: output shapes, and bad input as one clear
line with status 2."""

import json
import re

import pytest

from damas.cli import build_parser, main
from damas.rules.pdn import read_pdn


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_think_json_has_the_move_and_the_search(capsys):
    code, out, _ = run(capsys, "think", "--variant", "brazilian", "--depth", "4", "--json")
    result = json.loads(out)
    assert code == 0
    assert result["depth"] == 4 and result["nodes"] > 0 and result["pv"][0] == result["move"]
    assert [i["depth"] for i in result["info"]] == [1, 2, 3, 4]
    assert result["fen_after"].startswith("B:")


def test_think_text_prints_each_depth_then_the_move(capsys):
    code, out, _ = run(capsys, "think", "--variant", "english", "--depth", "3")
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 4
    assert lines[0].startswith("depth  1") and lines[-1].startswith("bestmove ")


def test_think_after_moves_and_at_a_level(capsys):
    code, out, _ = run(capsys, "think", "--moves", "32-28 19-23", "--level", "3", "--json")
    assert code == 0
    assert json.loads(out)["move"] == "28x19"  # the only move: a capture


@pytest.mark.parametrize("argv, message", [
    (["think", "--fen", "W:W99:B1"], "square"),
    (["think", "--fen", "B:W48:B"], "no legal move"),
    (["think", "--engine", "stockfish"], "unknown engine spec"),
    (["think", "--engine", "builtin:speed=9"], "unknown option"),
    (["think", "--engine", "builtin:threads=0"], "threads must be 1 to 16"),
    (["think", "--level", "11"], "level"),
    (["think", "--depth", "0"], "depth"),
    (["think", "--moves", "32-27 32-28"], "not a legal move"),
    (["think", "--engine", "hub:/nonexistent/engine"], "is not a program"),
    (["match", "--engine", "random"], "exactly twice"),
    (["match", "--engine", "random", "--engine", "random", "--time-control", "fast"],
     "time control"),
])
def test_user_errors_are_one_line_and_status_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("damas: ") and err.count("\n") == 1 and message in err


def test_match_json_counts_games_from_engine_a(capsys, tmp_path):
    pdn = tmp_path / "games.pdn"
    code, out, err = run(capsys, "match", "--variant", "english", "--engine", "builtin:depth=3",
                         "--engine", "random:seed=1", "--games", "4", "--time-control", "none",
                         "--pdn", str(pdn), "--json")
    result = json.loads(out)
    assert code == 0
    assert result["wins"] + result["draws"] + result["losses"] == 4
    assert result["wins"] >= 3  # depth 3 against a random mover
    assert result["elo"] > 0 and result["elo_error"] > 0
    games = read_pdn(pdn.read_text(), "english")
    assert len(games) == 4
    assert [g.tags["White"] for g in games] == ["builtin:depth=3", "random:seed=1"] * 2
    assert all(re.fullmatch(r"[0-9]{4}\.[0-9]{2}\.[0-9]{2}", g.tags["Date"]) for g in games)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.pdn"]  # no temp left
    assert err.count("game ") == 4  # progress goes to stderr with --json


def test_match_plays_each_opening_twice_with_colours_swapped(capsys, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("# two openings\n11-15 23-19\nB:W18,21,23-32:B1-12\n")
    code, out, _ = run(capsys, "match", "--variant", "english", "--engine", "random:seed=3",
                       "--engine", "random:seed=4", "--games", "4", "--time-control", "none",
                       "--openings", str(openings))
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("game")]
    assert [line.split("opening ")[1] for line in lines] == [
        "11-15 23-19", "11-15 23-19", "B:W18,21,23-32:B1-12", "B:W18,21,23-32:B1-12"]
    assert "random:seed=3 vs random:seed=4" in lines[0]
    assert "random:seed=4 vs random:seed=3" in lines[1]
    assert "Elo" in out.splitlines()[-1]


def test_dxp_on_a_busy_port_is_a_clear_error(capsys):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        code, _, err = run(capsys, "dxp", "--listen", str(port))
    assert code == 2 and "cannot listen" in err


def test_the_engine_benchmark_is_offered():
    parser = build_parser()
    args = parser.parse_args(["bench", "engine"])
    assert args.what == "engine"


def test_the_engine_benchmark_searches_ten_middle_games():
    from damas.engine.bench import run_bench

    figures = run_bench(movetime=0.05, variants=("english",))["english"]
    assert len(figures["positions"]) == 10
    assert all(r["depth"] >= 1 and r["nodes"] > 0 for r in figures["positions"])
    assert figures["nps"] > 0 and figures["median_depth"] >= 1
