"""What `damas train vision` reports of a model besides its accuracy, and what it
trains on besides its own patches."""

import json

import cv2
import numpy as np
import pytest

from damas.vision.patches import SIDE
from damas.vision.train import per_class_recall, photo_data, recall_text, training_photos


def test_the_recall_of_a_class_never_called_is_nought():
    truth = np.array([0, 0, 1, 1, 2, 2, 2, 3])
    called = np.array([0, 1, 1, 1, 1, 1, 2, 1])
    assert per_class_recall(called, truth) == {
        "empty": 0.5, "men": 1.0, "crowned": 1 / 3, "stacks": 0.0}
    assert recall_text(per_class_recall(called, truth)) == (
        "empty 50 %, men 100 %, crowned 33 %, stacks 0 %")


def test_a_class_with_no_held_out_patch_is_left_out():
    assert per_class_recall(np.array([1, 1]), np.array([1, 0])) == {"empty": 0.0, "men": 1.0}


def test_too_few_samples_to_train_on_is_a_one_line_error(tmp_path, capsys):
    from damas.cli import main

    assert main(["train", "vision", "--samples", "400", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--samples must be at least 1512" in err and err.count("\n") == 1
    assert not any(tmp_path.iterdir())  # nothing drawn, nothing written


def _image(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((8, 8, 3), value, np.uint8))


EMPTY = ["._._._._", "_._._._.", "._._._._", "_._._._.",
         "._._._._", "_._._._.", "._._._._", "_._._._."]
ONE = ["._._._._", "_._._._.", "._._._._", "_._l_._.",
       "._._._._", "_._._._.", "._._._._", "_._._._."]


@pytest.fixture
def game_folder(tmp_path):
    """A folder of one labelled game: two frames, its start and empty-board photos, and
    a single photo that is also the game's second frame (the same bytes)."""
    folder = tmp_path / "games"
    for k, name in enumerate(["f0.png", "f1.png", "calib/full.png", "calib/empty.png"]):
        _image(folder / name, 40 * k)
    (folder / "single.png").write_bytes((folder / "f1.png").read_bytes())
    game = {"repo": "someone/robot", "size": 8, "variant": "brazilian",
            "calibration": {"full": "calib/full.png", "empty": "calib/empty.png"},
            "calibration_grids": {"full": ONE, "empty": EMPTY},
            "frames": ["f0.png", "f1.png"], "grids": [ONE, EMPTY],
            "moves_between": ["light man row3col3 -> off"]}
    (folder / "sequences.json").write_text(json.dumps([game]))
    (folder / "singles.json").write_text(json.dumps(
        [{"file": "single.png", "repo": "someone/robot", "size": 8, "grid": EMPTY}]))
    return folder


def test_a_games_frames_and_calibration_photos_join_the_training(game_folder, tmp_path):
    photos_folder = tmp_path / "photos"
    _image(photos_folder / "p.png", 250)
    (photos_folder / "labels.json").write_text(json.dumps(
        [{"file": "p.png", "repo": "other/set", "size": 8, "grid": ONE}]))
    photos = training_photos((photos_folder, game_folder))
    names = sorted(str(p.path.relative_to(tmp_path)) for p in photos)
    # single.png is f1.png again: taken once
    assert names == ["games/calib/empty.png", "games/calib/full.png", "games/f0.png",
                     "games/f1.png", "photos/p.png"]
    by_name = {p.path.name: p for p in photos}
    assert by_name["f0.png"].grid == tuple(ONE) and by_name["empty.png"].grid == tuple(EMPTY)
    assert {p.source for p in photos} == {"someone/robot", "other/set"}


def test_a_folder_with_nothing_to_train_on_is_one_line_before_anything_is_drawn(
        game_folder, tmp_path, capsys):
    from damas.cli import main

    out = tmp_path / "out"
    assert main(["train", "vision", "--photos", str(game_folder), str(tmp_path / "nowhere"),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nowhere: no labels.json or sequences.json there" in err and err.count("\n") == 1
    assert not out.exists()
    (game_folder / "sequences.json").write_text("[{")
    assert main(["train", "vision", "--photos", str(game_folder), "--out", str(out)]) == 2
    assert "not a readable sequences file" in capsys.readouterr().err
    assert not out.exists()


def test_photos_of_one_source_left_out_leave_no_patches_and_no_error():
    # the model trained without the only source of the photos trains on none of them
    x, y, d = photo_data((), exclude=("someone/robot",), progress=lambda line: None)
    assert x.shape == (0, SIDE, SIDE, 3) and len(y) == 0 and len(d) == 0
