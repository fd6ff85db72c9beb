"""What `damas train vision` reports of a model besides its accuracy."""

import numpy as np

from damas.vision.train import per_class_recall, recall_text


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
