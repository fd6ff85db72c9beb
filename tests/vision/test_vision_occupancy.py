"""The occupancy model as shipped: every model is the mean of its nets."""

import shutil

import numpy as np
import pytest

from damas.vision.errors import VisionError
from damas.vision.occupancy import (
    WEIGHTS,
    OccupancyModel,
    _run,
    member_path,
    members,
    trained_on,
    without_source,
)
from damas.vision.patches import SIDE
from damas.vision.train import MEMBERS


def _patches(n=12, seed=3):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, (n, SIDE, SIDE, 3)).astype(np.float32)


def test_every_shipped_model_has_all_its_nets():
    sources = trained_on()
    assert len(sources) == 6  # the dev photos' sources, each left out of one model
    models = [WEIGHTS] + [without_source(WEIGHTS.parent, s) for s in sorted(sources)]
    for path in models:
        assert members(path) == [member_path(path, k) for k in range(1, MEMBERS + 1)]
    shipped = sorted((WEIGHTS.parent / "loso").glob("*.onnx"))
    assert shipped == sorted(member_path(p, k) for p in models[1:]
                             for k in range(1, MEMBERS + 1))


def test_a_model_reads_as_the_mean_of_its_nets(tmp_path):
    # two nets that differ: the shipped one and one trained without a source
    nets = [WEIGHTS, without_source(WEIGHTS.parent, sorted(trained_on())[0])]
    alone = []
    for k, net in enumerate(nets, 1):
        folder = tmp_path / f"net{k}"
        folder.mkdir()
        shutil.copyfile(net, folder / "occupancy.onnx")
        shutil.copyfile(net, member_path(tmp_path / "occupancy.onnx", k))
        alone.append(OccupancyModel(folder / "occupancy.onnx"))
    assert all(len(m.nets) == 1 for m in alone)
    together = OccupancyModel(tmp_path / "occupancy.onnx")
    assert len(together.nets) == len(nets)
    x = _patches()
    p, shift, features = together(x)
    each = [m(x) for m in alone]
    assert not np.allclose(each[0][0], each[1][0])  # other nets, not one again
    np.testing.assert_allclose(p, np.mean([e[0] for e in each], axis=0), atol=1e-6)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(shift, np.mean([e[1] for e in each], axis=0), atol=1e-6)
    widths = np.cumsum([0] + [e[2].shape[1] for e in each])
    assert features.shape == (len(x), widths[-1])
    # each net's features count alike, whatever their scale
    for a, b in zip(widths[:-1], widths[1:], strict=True):
        np.testing.assert_allclose(np.linalg.norm(features[:, a:b], axis=1), 1, atol=1e-5)


def test_a_patch_and_its_mirror_image_read_alike():
    """Each net reads a patch and its mirror image and averages them, so the model
    cannot tell the two apart; a net alone can (else the mirror adds nothing)."""
    x = _patches()
    mirrored = np.ascontiguousarray(x[:, :, ::-1])
    model = OccupancyModel(WEIGHTS)
    for got, want in zip(model(mirrored), model(x), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-5)
    net, outputs = model.nets[0]
    one = _run(net, outputs, np.ascontiguousarray(x.transpose(0, 3, 1, 2)))[0]
    other = _run(net, outputs, np.ascontiguousarray(mirrored.transpose(0, 3, 1, 2)))[0]
    assert not np.allclose(one, other, atol=1e-3)


def test_a_damaged_net_is_named(tmp_path):
    shutil.copyfile(WEIGHTS, tmp_path / "occupancy.onnx")
    (tmp_path / "occupancy.2.onnx").write_bytes(b"not a model")
    with pytest.raises(VisionError, match="occupancy.2.onnx: not a readable model"):
        OccupancyModel(tmp_path / "occupancy.onnx")


def test_a_missing_model_says_how_to_get_one(tmp_path):
    with pytest.raises(VisionError, match="missing"):
        OccupancyModel(tmp_path / "occupancy.onnx")
