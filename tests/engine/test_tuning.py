"""`damas train engine`: the weights come back from data made with known weights, the same
seed gives the same weights, and weights files are read strictly and written whole."""

import json

import numpy as np
import pytest

from damas.cli import main
from damas.engine.evaluation import (
    Weights,
    WeightsError,
    load_weights,
    read_weights,
    write_weights,
)
from damas.engine.native import module
from damas.engine.tuning import Samples, fit, tune

FEATURES = module().FEATURES


def test_the_fit_finds_the_weights_the_results_were_drawn_with():
    rng = np.random.default_rng(7)
    n = len(FEATURES)
    truth = np.zeros(n)
    truth[FEATURES.index("man")] = 1.2
    truth[FEATURES.index("king")] = 3.0
    truth[FEATURES.index("mobility")] = 0.1
    terms = rng.integers(-3, 4, size=(40_000, n)).astype(float)
    wins = rng.random(len(terms)) < 1 / (1 + np.exp(-(terms @ truth)))
    # men and kings keep their ratio (they set the scale); the fit finds the scale and
    # the other terms
    start = Weights("international", {"man": 1600, "king": 4000, "edge": 300})
    beta = fit(start, Samples(terms, wins.astype(float), 0))
    assert beta[FEATURES.index("king")] / beta[FEATURES.index("man")] == pytest.approx(2.5)
    assert beta[FEATURES.index("man")] == pytest.approx(1.2, rel=0.1)
    assert beta[FEATURES.index("mobility")] == pytest.approx(0.1, abs=0.03)
    assert abs(beta[FEATURES.index("edge")]) < 0.03  # a term the results ignore


def test_the_same_seed_gives_the_same_weights():
    a = tune("english", games=10, depth=2, seed=3)
    b = tune("english", games=10, depth=2, seed=3)
    assert a.weights.terms == b.weights.terms
    assert a.weights.terms["man"] == load_weights("english").terms["man"]
    assert a.weights.provenance["games"] == 10 and len(a.held_out.results) > 0


def test_weights_files_are_read_strictly_and_written_whole(tmp_path):
    path = tmp_path / "w.json"
    write_weights(load_weights("brazilian"), path)
    assert read_weights(path) == load_weights("brazilian")
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    doc = json.loads(path.read_text())
    for contempt in ("a little", 101, -5):
        path.write_text(json.dumps({**doc, "contempt": contempt}))
        with pytest.raises(WeightsError, match="contempt"):
            read_weights(path)
    doc["weights"]["man"] = "a lot"
    path.write_text(json.dumps(doc))
    with pytest.raises(WeightsError, match="ints"):
        read_weights(path)
    path.write_text("{")
    with pytest.raises(WeightsError, match="cannot read"):
        read_weights(path)


def test_train_engine_refuses_too_few_games(capsys):
    assert main(["train", "engine", "--variant", "english", "--games", "3"]) == 2
    assert "--games" in capsys.readouterr().err
