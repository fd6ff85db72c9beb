"""The occupancy model as shipped: every model is the mean of its nets."""

import shutil

import numpy as np
import pytest

from damas.vision.errors import VisionError
from damas.vision.occupancy import WEIGHTS, OccupancyModel, member_path, members
from damas.vision.patches import SIDE
from damas.vision.train import MEMBERS


def _patches(n=12, seed=3):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, (n, SIDE, SIDE, 3)).astype(np.float32)


def test_every_shipped_model_has_all_its_nets():
    models = [WEIGHTS] + sorted(p for p in (WEIGHTS.parent / "loso").glob("*.onnx")
                                if "." not in p.stem)
    assert len(models) == 6  # the shipped model and one without each of 5 sources
    for path in models:
        assert members(path) == [member_path(path, k) for k in range(1, MEMBERS + 1)]


def test_a_model_reads_as_the_mean_of_its_nets(tmp_path):
    alone = []
    for k in (1, 2):
        folder = tmp_path / f"net{k}"
        folder.mkdir()
        shutil.copyfile(member_path(WEIGHTS, k), folder / "occupancy.onnx")
        alone.append(OccupancyModel(folder / "occupancy.onnx"))
    assert all(len(m.nets) == 1 for m in alone)
    both = OccupancyModel(WEIGHTS)
    assert len(both.nets) == 2
    x = _patches()
    p, shift, features = both(x)
    one, two = alone[0](x), alone[1](x)
    assert not np.allclose(one[0], two[0])  # two nets, not one twice
    np.testing.assert_allclose(p, (one[0] + two[0]) / 2, atol=1e-6)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(shift, (one[1] + two[1]) / 2, atol=1e-6)
    width = one[2].shape[1]
    assert features.shape == (len(x), width + two[2].shape[1])
    # each net's features count alike, whatever their scale
    np.testing.assert_allclose(np.linalg.norm(features[:, :width], axis=1), 1, atol=1e-5)


def test_a_damaged_net_is_named(tmp_path):
    shutil.copyfile(WEIGHTS, tmp_path / "occupancy.onnx")
    (tmp_path / "occupancy.2.onnx").write_bytes(b"not a model")
    with pytest.raises(VisionError, match="occupancy.2.onnx: not a readable model"):
        OccupancyModel(tmp_path / "occupancy.onnx")


def test_a_missing_model_says_how_to_get_one(tmp_path):
    with pytest.raises(VisionError, match="missing"):
        OccupancyModel(tmp_path / "occupancy.onnx")
