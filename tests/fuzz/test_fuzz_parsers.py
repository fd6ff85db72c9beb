"""Every parser at the command line's boundary, given mutated input (hypothesis draws the
mutations): only our error, exit status 2, one line, and never a wrong acceptance (the
oracles of `fuzzing.py`). Then each case issue 13 named, as a test of its own.

`tests/fuzz/count.py` runs the same cases by the thousand and prints the counts."""

import json
import random
import subprocess
import sys

import fuzzing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from damas.engine import DxpServer, open_engine
from damas.engine.dxpwire import decode, encode
from damas.rules import FenError, Position, variant

SEEDS = st.integers(0, 2 ** 32 - 1)
SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def clean(result, text):
    kind, why = result
    assert kind in ("accepted", "clean"), f"{kind}: {why}\n{text!r}"


@pytest.mark.slow
@settings(max_examples=400, **SLOW)
@given(seed=SEEDS)
def test_fen(seed):
    rng = random.Random(seed)
    clean(*fuzzing.fen_case(rng, fuzzing.fen_seeds(rng)))


@settings(max_examples=150, **SLOW)
@given(seed=SEEDS)
def test_pdn(seed, tmp_path_factory):
    rng = random.Random(seed)
    clean(*fuzzing.pdn_case(rng, fuzzing.pdn_seeds(rng), tmp_path_factory.mktemp("pdn")))


@settings(max_examples=150, **SLOW)
@given(seed=SEEDS)
def test_observations(seed, tmp_path_factory):
    rng = random.Random(seed)
    clean(*fuzzing.observation_case(rng, fuzzing.observation_seeds(rng),
                                    tmp_path_factory.mktemp("obs")))


@settings(max_examples=100, **SLOW)
@given(seed=SEEDS)
def test_hub_server(seed):
    clean(*fuzzing.hub_server_case(random.Random(seed)))


@pytest.mark.slow
@settings(max_examples=25, **SLOW)
@given(seed=SEEDS)
def test_hub_client(seed, tmp_path_factory):
    clean(*fuzzing.hub_client_case(random.Random(seed), tmp_path_factory.mktemp("hub")))


@settings(max_examples=400, **SLOW)
@given(seed=SEEDS)
def test_dxp_wire(seed):
    clean(*fuzzing.dxp_case(random.Random(seed)))


@pytest.fixture(scope="module")
def dxp_server():
    server = DxpServer(lambda: open_engine("builtin:depth=1", "international"),
                       "international")
    server.serve_in_thread()
    yield server
    server.close()


@settings(max_examples=30, **SLOW)
@given(seed=SEEDS)
def test_dxp_server_keeps_serving(seed, dxp_server):
    clean(*fuzzing.dxp_server_case(random.Random(seed), dxp_server.port))


# --- reject, never mis-accept -----------------------------------------------------------

@given(st.sampled_from(fuzzing.VARIANTS), st.integers(1, 30), st.data())
def test_a_fen_with_more_pieces_than_a_side_starts_with_is_refused(name, extra, data):
    v = variant(name)
    most = v.start_rows * v.size // 2
    squares = data.draw(st.lists(st.integers(v.size // 2 + 1, v.squares), unique=True,
                                 min_size=min(most + 1, v.squares - v.size // 2),
                                 max_size=v.squares - v.size // 2))
    with pytest.raises(FenError, match="a side has at most"):
        Position.from_fen("W:W" + ",".join(map(str, squares)), name)


@given(st.text(alphabet="RAMEBKC0123456789WZwze _+-", max_size=60))
def test_a_dxp_message_read_is_the_message_sent(text):
    try:
        msg = decode(text, variant("international"))
    except Exception as e:  # noqa: BLE001
        assert type(e).__name__ == "EngineProtocolError"
        return
    if not text.startswith("C"):
        assert encode(msg)[:-1].decode() == text


# --- the cases of issue 13, one by one ----------------------------------------------------

def test_fen_with_a_unicode_digit_or_a_huge_number_is_one_clean_line():
    for fen in ("W:W²", "W:W" + "9" * 4301, "W:W31-50:B1-٢٠", "W:W6-45:B1-5"):
        outcome = fuzzing.run_cli(["show", "--fen", fen])
        assert outcome.clean_error, (fen[:20], outcome)
        assert len(outcome.err) < 200


@pytest.mark.parametrize("tag, words", [
    ('[GameType "²"]', "not PDN 3.0"), ('[GameType "' + "2" * 4400 + '"]', "not PDN 3.0"),
    ('[GameType "20"]\n[FEN "W:W' + "4" * 4400 + '"]', "not a square"),
])
def test_pdn_numbers_in_tags_are_one_clean_line(tmp_path, tag, words):
    path = tmp_path / "g.pdn"
    path.write_text(f"{tag}\n\n1. 32-28 *\n")
    (tmp_path / "none").write_text("")
    outcome = fuzzing.run_cli(["track", "--resume", str(path), str(tmp_path / "none")])
    assert outcome.clean_error and words in outcome.err and len(outcome.err) < 300


def test_nags_of_other_digits_or_huge_are_one_clean_line(tmp_path):
    for nag in ("$²", "$" + "1" * 5000, "$٣", "$999"):
        path = tmp_path / "g.pdn"
        path.write_text(f'[GameType "20"]\n\n1. 32-28 {nag} *\n')
        (tmp_path / "none").write_text("")
        outcome = fuzzing.run_cli(["track", "--resume", str(path), str(tmp_path / "none")])
        assert outcome.clean_error, (nag[:10], outcome)


@pytest.mark.parametrize("line", ["t=nan " + "e" * 50, "t=inf " + "e" * 50,
                                  "t=1e400 " + "e" * 50, "t=٣ " + "e" * 50,
                                  "t=0 " + "e" * 50 + " light=b²:w",
                                  "t=0 " + "e" * 50 + " light=b" + "1" * 5000 + ":w"])
def test_observation_lines_with_non_numbers_are_refused(tmp_path, line):
    path = tmp_path / "obs.txt"
    path.write_text(line + "\n")
    outcome = fuzzing.run_cli(["track", str(path)])
    assert outcome.clean_error, outcome


@pytest.mark.parametrize("settle", ["inf", "nan", "1e308", "-1", "3601"])
def test_a_settle_time_that_is_not_a_time_is_refused(tmp_path, settle):
    path = tmp_path / "obs.txt"
    path.write_text("t=0 " + "b" * 20 + "e" * 10 + "w" * 20 + "\n")
    outcome = fuzzing.run_cli(["track", "--settle", settle, str(path)])
    assert outcome.clean_error and "settle" in outcome.err, outcome


def test_track_output_stays_json(tmp_path):
    path = tmp_path / "obs.txt"
    start = "b" * 20 + "e" * 10 + "w" * 20
    path.write_text(f"t=0 {start}\nt=1.5 {start}\n")
    outcome = fuzzing.run_cli(["track", "--settle", "1e3", str(path)])
    assert outcome.code == 0
    for line in outcome.out.splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the output"))


def test_a_pdn_file_that_is_not_utf8_is_read_as_windows_1252_by_play_pdn(tmp_path):
    """`damas robot play-pdn` on `[Event "Caf\\xe9"]`: the documented fallback reads it
    (damas/pdnfile.py) and plays it."""
    path = tmp_path / "cafe.pdn"
    path.write_bytes(b'[Event "Caf\xe9"]\n[GameType "21"]\n\n1. 11-15 23-19 *\n')
    done = subprocess.run([sys.executable, "-m", "damas", "robot", "play-pdn", str(path),
                           "--port", "sim-python", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches_game"] is True
    from damas.pdnfile import read_pdn_file

    (game,) = read_pdn_file(path)
    assert game.tags["Event"] == "Café"
