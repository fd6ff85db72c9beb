"""The unseen-set reader's decisions on made-up model outputs: what the photo teaches
its unsure squares, and how the pieces' colours split."""

import numpy as np

from damas.vision.read import learn_from_the_photo, split_colours


def features_of(kinds, rng, spread=0.05):
    """Model features: empties near one point, pieces near another, with noise."""
    empty, piece = np.array([1.0, 0.2, 0.0, 0.1]), np.array([0.1, 0.9, 0.5, 0.0])
    return np.array([(empty if k == "e" else piece) + rng.normal(0, spread, 4)
                     for k in kinds])


def test_unsure_squares_are_told_by_the_sure_ones_they_resemble():
    rng = np.random.default_rng(1)
    kinds = "eeeeeepppppp" + "ep"
    features = features_of(kinds, rng)
    p_empty = np.array([0.97] * 6 + [0.03] * 6 + [0.6, 0.45])  # the last two unsure
    p = learn_from_the_photo(p_empty, features)
    assert p[12] > 0.9 and p[13] < 0.1
    assert (p[:6] > 0.9).all() and (p[6:12] < 0.1).all()


def test_with_fewer_than_three_sure_squares_of_a_kind_nothing_changes():
    rng = np.random.default_rng(3)
    features = features_of("eeeeeepp" + "p", rng)
    p_empty = np.array([0.97] * 6 + [0.03] * 2 + [0.6])
    assert np.array_equal(learn_from_the_photo(p_empty, features), p_empty)
    assert np.array_equal(learn_from_the_photo(p_empty, None), p_empty)


def test_a_board_with_no_sure_piece_tells_its_unsure_squares_by_the_empty_ones():
    rng = np.random.default_rng(5)
    features = features_of("e" * 12 + "ep", rng)
    p_empty = np.array([0.97] * 12 + [0.6, 0.6])  # the last two unsure, no sure piece
    p = learn_from_the_photo(p_empty, features)
    assert p[12] >= 0.95  # looks like the empty squares
    assert p[13] == 0.6  # a piece stays as unsure as the model said
    assert np.array_equal(p[:12], p_empty[:12])


def test_an_unsure_empty_square_as_unlike_as_the_least_alike_sure_one_is_empty():
    rng = np.random.default_rng(6)
    features = features_of("e" * 12 + "ep", rng, spread=0.005)
    # one sure empty square stands off the others (a glint), as far as an unsure one
    features[0] += np.array([0.0, 0.12, 0.0, 0.0])
    features[12] += np.array([0.0, 0.0, 0.0, 0.12])
    p_empty = np.array([0.97] * 12 + [0.6, 0.6])
    p = learn_from_the_photo(p_empty, features)
    assert p[12] >= 0.95
    assert p[13] == 0.6  # a piece is still far beyond the reach of the empty squares


def test_a_board_with_no_sure_empty_square_tells_them_by_being_unlike_every_piece():
    rng = np.random.default_rng(7)
    # dark men on dark squares in a flat light: the model sure of the pieces only
    kinds = "p" * 12 + "eeee" + "p"
    features = features_of(kinds, rng, spread=0.02)
    p_empty = np.array([0.03] * 12 + [0.5, 0.4, 0.6, 0.3] + [0.45])
    p = learn_from_the_photo(p_empty, features)
    assert (p[12:16] > 0.9).all()  # unlike every piece: empty
    assert p[16] < 0.5  # an unsure piece looks like the sure ones: not made empty
    assert (p[:12] < 0.1).all()


def test_two_colours_of_one_lightness_split_by_hue_though_a_crown_is_lighter():
    rng = np.random.default_rng(4)
    purple = [[-0.95, 0.10, -0.07]] * 4
    teal = [[-1.10, -0.01, 0.02]] * 4
    tops = np.array(purple + teal, float) + rng.normal(0, 0.01, (8, 3))
    tops[4, 0] = -0.45  # a teal king whose crown is a light sticker
    p_white, certainty = split_colours(tops)
    white = p_white > 0.5
    assert len(set(white[:4])) == 1 and len(set(white[4:])) == 1 and white[0] != white[4]
    assert (certainty > 0.9).all()


def test_one_colour_stays_one_group():
    rng = np.random.default_rng(5)
    tops = np.array([[0.2, 0.05, 0.05]] * 10) + rng.normal(0, 0.02, (10, 3))
    p_white, _ = split_colours(tops)
    assert len(set(p_white.round(3))) == 1
