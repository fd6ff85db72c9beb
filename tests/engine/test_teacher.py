"""`damas train engine --teacher`: the windows are read the same from either side, the
tables add to the evaluation as the fit models them, the fit finds tables that made the
scores, the teacher's scores are its own, and pattern files are read strictly."""

import json
from itertools import islice

import numpy as np
import pytest
from engine_helpers import random_games

from damas.cli import main
from damas.engine import BuiltinEngine, Limit, open_engine
from damas.engine.errors import EngineSpecError
from damas.engine.evaluation import Weights, WeightsError, load_weights, read_weights, write_weights
from damas.engine.native import module
from damas.engine.search import new_searcher
from damas.engine.teacher import (
    WINDOW,
    Inputs,
    PatternModel,
    inputs,
    quiet_positions,
    teacher_scores,
)
from damas.rules import Game, Position, variant

VARIANTS = ["international", "brazilian", "english"]
FEATURES = module().FEATURES


def half_turned(p: Position) -> Position:
    """The same position with the colours swapped and the board turned half round."""
    n = p.variant.squares
    swap = {"w": "b", "b": "w", "W": "B", "B": "W"}
    pieces = {n + 1 - sq: swap[piece] for sq, piece in p.pieces().items()}
    return Position.from_pieces(p.variant, pieces, 1 - int(p.turn))


def random_positions(name, count, seed):
    return list(islice((game.position for game in random_games(name, count, seed)), count))


def random_tables(name, seed, spread=400):
    """Pattern bytes of random entries (1/16 of a hundredth of a man)."""
    n_windows = 16 if variant(name).size == 10 else 9
    rng = np.random.default_rng(seed)
    return rng.integers(-spread, spread, size=(2, n_windows, WINDOW)).astype("<i2")


@pytest.mark.parametrize("name", VARIANTS)
def test_each_side_sees_the_windows_from_its_own_side(name):
    v = variant(name)
    core = new_searcher(v)
    start = Position.start(name)
    a = core.pattern_indices(start.white, start.black, start.kings, int(start.turn))
    half = len(a) // 2
    # the start is the same for both sides. The first window's four rows are the far
    # ones, the last window's the near ones; each row is two base-3 digits, a man of the
    # opponent's a 2, one's own a 1: 10x10 has four full rows a side, 8x8 three.
    assert a[:half] == a[half:]
    digits = [2, 2, 2, 2, 2, 2, 2, 2] if v.size == 10 else [2, 2, 2, 2, 2, 2, 0, 0]
    assert a[0] == sum(d * 3 ** k for k, d in enumerate(digits))
    near = [1, 1, 1, 1, 1, 1, 1, 1] if v.size == 10 else [0, 0, 1, 1, 1, 1, 1, 1]
    assert a[half - 1] == sum(d * 3 ** k for k, d in enumerate(near))
    for p in random_positions(name, 60, seed=3):
        mine = core.pattern_indices(p.white, p.black, p.kings, int(p.turn))
        q = half_turned(p)
        theirs = core.pattern_indices(q.white, q.black, q.kings, int(q.turn))
        assert mine == theirs
        other = core.pattern_indices(p.white, p.black, p.kings, 1 - int(p.turn))
        assert other[:half] == mine[half:] and other[half:] == mine[:half]


@pytest.mark.parametrize("name", VARIANTS)
def test_the_tables_add_to_the_evaluation_as_the_fit_models_them(name):
    v = variant(name)
    shipped = load_weights(v)
    plain = Weights(v.name, shipped.terms, scale=shipped.scale)  # no adjustments
    tables = random_tables(name, seed=1)
    core = new_searcher(v)
    core.set_weights(plain.vector(FEATURES), 0, 0, 1)
    core.set_patterns(tables.tobytes())
    positions = [p for p in random_positions(name, 300, seed=2)
                 if p.legal_moves() and not p.legal_moves()[0].captured]
    model = PatternModel(np.array(plain.vector(FEATURES)) / 16, tables.shape[1])
    model.tables = tables.reshape(2, -1).astype(float) / 16
    predicted = model.score(inputs(v, positions))
    got = np.array([core.evaluate(p.white, p.black, p.kings, int(p.turn)) for p in positions])
    movable = np.abs(got) < 9000  # a side that cannot move has lost, whatever the tables
    assert movable.sum() > 200
    assert np.max(np.abs(predicted[movable] - got[movable])) <= 1.0  # C rounds down
    core.set_patterns(None)
    without = np.array([core.evaluate(p.white, p.black, p.kings, int(p.turn))
                        for p in positions])
    assert np.mean(np.abs(without - got)[movable]) > 10  # the tables did count


def test_the_fit_finds_tables_that_made_the_scores():
    rng = np.random.default_rng(5)
    n, n_windows, used = 20_000, 4, 6
    # each window shows one of a few patterns, so every entry the scores use is seen often
    windows = rng.integers(0, used, size=(n, 2 * n_windows)) * 97
    share = rng.random(n)
    terms = rng.integers(-3, 4, size=(n, 2)).astype(float)
    truth = PatternModel(np.array([100.0, 30.0]), n_windows)
    truth.tables[:, :] = 0
    for w in range(n_windows):
        for k in range(used):
            truth.tables[:, w * WINDOW + k * 97] = rng.normal(0, 40, size=2)
    x = Inputs(terms, windows, share)
    scores = truth.score(x)
    model = PatternModel(np.array([100.0, 0.0]), n_windows)
    before = model.error(x, scores)
    model.fit(x, scores, steps=400, fixed=(0,))
    assert model.error(x, scores) < before / 50
    assert model.terms[1] == pytest.approx(30, abs=3)
    # the two views enter with opposite signs, so a table is found up to a constant a
    # window: compare entries within a window
    for w in range(n_windows):
        cols = [w * WINDOW + k * 97 for k in range(used)]
        for phase in range(2):
            found = model.tables[phase, cols] - model.tables[phase, cols].mean()
            made = truth.tables[phase, cols] - truth.tables[phase, cols].mean()
            assert np.max(np.abs(found - made)) < 8


def test_quiet_positions_are_the_same_for_a_seed_and_quiet():
    a = quiet_positions("english", 150, seed=4)
    assert a == quiet_positions("english", 150, seed=4)
    assert a != quiet_positions("english", 150, seed=5)
    assert len(set(a)) == 150
    assert not any(m.captured for p in a for m in p.legal_moves())


def test_a_teachers_score_is_its_search_score_whatever_the_jobs():
    positions = quiet_positions("english", 12, seed=2)
    one = teacher_scores(positions, "builtin", depth=5, jobs=1)
    two = teacher_scores(positions, "builtin", depth=5, jobs=2)
    assert np.array_equal(one, two) and not np.isnan(one).any()
    for p, s in zip(positions[:4], one, strict=False):
        assert BuiltinEngine("english").play(Game(start=p), Limit(depth=5)).info.score == s


def test_train_engine_from_a_teacher_writes_weights_the_engine_plays(tmp_path, capsys):
    out = tmp_path / "english.json"
    assert main(["train", "engine", "--variant", "english", "--teacher", "builtin",
                 "--teacher-depth", "3", "--positions", "200", "--jobs", "2",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "held-out error" in printed
    before, after = (float(w) for w in printed.split("held-out error ")[1].split()[::2][:2])
    assert after < before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["english.json", "english.patterns"]
    engine = open_engine(f"builtin:depth=3,eval={out}", "english")
    game = Game("english")
    assert engine.play(game, Limit(depth=3)).move in game.legal_moves()


def test_pattern_files_are_read_strictly(tmp_path):
    path = tmp_path / "international.json"
    tables = random_tables("international", seed=3)
    write_weights(Weights("international", load_weights("international").terms,
                          patterns=tables.tobytes()), path)
    assert read_weights(path).patterns == tables.tobytes()
    with pytest.raises(WeightsError, match="not english"):
        open_engine(f"builtin:eval={path}", "english")
    (tmp_path / "international.patterns").write_bytes(tables.tobytes()[:-2])
    with pytest.raises(WeightsError, match="bytes"):
        open_engine(f"builtin:depth=2,eval={path}", "international")
    (tmp_path / "international.patterns").unlink()
    with pytest.raises(WeightsError, match="cannot read its patterns"):
        read_weights(path)
    doc = json.loads(path.read_text())
    doc["patterns"] = "../elsewhere.patterns"
    path.write_text(json.dumps(doc))
    with pytest.raises(WeightsError, match="beside it"):
        read_weights(path)
    with pytest.raises(EngineSpecError, match="weights file"):
        open_engine("builtin:eval=strong", "english")


def test_train_engine_refuses_a_teacher_that_cannot_start(capsys):
    assert main(["train", "engine", "--variant", "english", "--teacher",
                 "hub:/nonexistent/scan hub", "--positions", "100", "--teacher-depth", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nonexistent" in err[0]
