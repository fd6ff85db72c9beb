"""The occupancy model as shipped: one net, and one more per photo source left out."""

import numpy as np
import pytest

from damas.vision.errors import VisionError
from damas.vision.occupancy import (
    WEIGHTS,
    OccupancyModel,
    _run,
    load,
    never_trained_on,
    standing_in,
    trained_on,
    without_source,
)
from damas.vision.patches import SIDE


def _patches(n=12, seed=3):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, (n, SIDE, SIDE, 3)).astype(np.float32)


def test_every_source_has_a_model_that_never_saw_it():
    sources = trained_on()
    assert len(sources) == 6  # the dev photos' sources, each left out of one model
    shipped = sorted((WEIGHTS.parent / "loso").glob("*.onnx"))
    assert shipped == sorted(without_source(WEIGHTS.parent, s) for s in sources)
    readings = [OccupancyModel(p)(_patches())[0] for p in [WEIGHTS, *shipped]]
    for k, a in enumerate(readings):  # each its own training, not one net copied
        for b in readings[k + 1:]:
            assert not np.allclose(a, b, atol=1e-4)


def test_a_reading_is_probabilities_and_unit_features():
    p, shift, features = OccupancyModel(WEIGHTS)(_patches())
    assert p.shape == (12, 4) and shift.shape == (12,) and len(features) == 12
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-5)
    assert (p >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), 1, atol=1e-5)


def test_a_patch_and_its_mirror_image_read_alike():
    """Each net reads a patch and its mirror image and averages them, so the model
    cannot tell the two apart; a net alone can (else the mirror adds nothing)."""
    x = _patches()
    mirrored = np.ascontiguousarray(x[:, :, ::-1])
    model = OccupancyModel(WEIGHTS)
    for got, want in zip(model(mirrored), model(x), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-5)
    one = _run(model.net, model.outputs, np.ascontiguousarray(x.transpose(0, 3, 1, 2)))[0]
    other = _run(model.net, model.outputs, np.ascontiguousarray(mirrored.transpose(0, 3, 1, 2)))[0]
    assert not np.allclose(one, other, atol=1e-3)


def test_a_damaged_net_is_named(tmp_path):
    (tmp_path / "occupancy.onnx").write_bytes(b"not a model")
    with pytest.raises(VisionError, match="occupancy.onnx: not a readable model"):
        OccupancyModel(tmp_path / "occupancy.onnx")


def test_a_missing_model_says_how_to_get_one(tmp_path):
    with pytest.raises(VisionError, match="missing"):
        OccupancyModel(tmp_path / "occupancy.onnx")


def test_a_stand_in_model_is_what_every_reader_takes_while_it_stands():
    from damas.vision.pipeline import BoardReader

    other = without_source(WEIGHTS.parent, sorted(trained_on())[0])
    assert BoardReader(8)._nets().path == WEIGHTS
    with standing_in(other):
        assert BoardReader(8)._nets().path == other
        assert load(WEIGHTS).path == WEIGHTS  # a model named is still that model
    assert BoardReader(8)._nets().path == WEIGHTS


def test_the_model_that_never_saw_a_source():
    source = sorted(trained_on())[0]
    assert never_trained_on(source) == (without_source(WEIGHTS.parent, source),
                                        "trained without this source")
    assert never_trained_on("someone/else") == (WEIGHTS,
                                                "shipped model (never saw this source)")
