"""The unseen-set reader's decisions on made-up model outputs: what the photo teaches
its unsure squares, and how the pieces' colours split."""

import numpy as np

from damas.vision.patches import SIDE, SPAN
from damas.vision.read import (
    MARK_KING,
    MARK_UNSURE,
    PHOTO_EVIDENCE,
    _kings,
    _marked,
    _piece_colours,
    learn_from_the_photo,
    split_colours,
    top_marks,
)


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


def test_pieces_of_a_second_colour_like_a_sure_one_stay_pieces():
    rng = np.random.default_rng(2)
    empty, light, dark = (np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0, 0.0]),
                          np.array([0.8, 0.0, 0.6, 0.0]))
    # eight sure empties, eight sure light men, two sure dark men and four unsure ones:
    # the dark men lie nearer the empty squares than the light men do
    rows = [empty] * 8 + [light] * 8 + [dark] * 6
    features = np.array(rows) + rng.normal(0, 0.01, (len(rows), 4))
    p_empty = np.array([0.97] * 8 + [0.03] * 10 + [0.55, 0.6, 0.5, 0.45])
    p = learn_from_the_photo(p_empty, features)
    assert (p[18:] <= 0.05).all()  # like the sure dark men, unlike every empty square
    assert (p[:8] >= 0.95).all() and (p[8:18] <= 0.05).all()


def test_the_photo_never_makes_an_unsure_square_more_than_e3_to_1():
    """A square the model is unsure of, far along the line from the sure pieces to the
    sure empty squares and like neither: the photo leans it to empty, by e^3 at most
    (unbounded, it came out 99.99 % sure)."""
    rng = np.random.default_rng(4)
    empty, piece = np.array([1.0, 0.2, 0.0, 0.1]), np.array([0.1, 0.9, 0.5, 0.0])
    beyond = empty + 1.5 * (empty - piece)  # past the empty squares, away from the pieces
    features = np.vstack([features_of("e" * 8 + "p" * 8, rng), beyond])
    p_empty = np.array([0.97] * 8 + [0.03] * 8 + [0.5])
    p = learn_from_the_photo(p_empty, features)
    assert 0.9 < p[16] <= 1 / (1 + np.exp(-PHOTO_EVIDENCE)) + 1e-9
    # one the model leans the other way on: moved by e^3, no more
    p = learn_from_the_photo(np.array([0.97] * 8 + [0.03] * 8 + [0.2]), features)
    odds = np.log(p[16] / (1 - p[16])) - np.log(0.2 / 0.8)
    assert 2.9 < odds <= PHOTO_EVIDENCE + 1e-9


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


def test_one_colour_in_steps_of_its_pixels_stays_one_group():
    # tops are medians of a few pixels: a single colour comes in a few quantised steps
    # (fifteen black men on a green board, as read from a rendered frame)
    tops = np.array([
        [-0.561, 0.243, -0.159], [-0.571, 0.265, -0.19], [-0.571, 0.243, -0.169],
        [-0.561, 0.243, -0.159], [-0.561, 0.265, -0.19], [-0.571, 0.243, -0.159],
        [-0.571, 0.243, -0.159], [-0.561, 0.243, -0.159], [-0.571, 0.265, -0.18],
        [-0.561, 0.243, -0.159], [-0.561, 0.243, -0.159], [-0.561, 0.243, -0.159],
        [-0.582, 0.265, -0.19], [-0.561, 0.265, -0.19], [-0.571, 0.243, -0.169]])
    p_white, certainty = split_colours(tops)
    assert len(set(p_white.round(3))) == 1 and (certainty > 0.9).all()


def test_a_king_stands_out_from_the_men_of_its_own_photo():
    # men whose tops look a little crowned (carved rings): not a king at 0.75
    carved = np.array([0.16, 0.2, 0.25, 0.12, 0.3, 0.18, 0.22, 0.75])
    assert not _kings(carved).any()
    # men with plain tops: a crown at 0.4 stands out
    plain = np.array([0.02, 0.03, 0.02, 0.04, 0.03, 0.05, 0.02, 0.4])
    assert list(_kings(plain)) == [False] * 7 + [True]
    # too few pieces to tell what a man looks like: a fixed prior, never under 0.3
    assert list(_kings(np.array([0.25, 0.6]))) == [False, True]


def test_a_crowned_king_takes_the_colour_of_the_men_its_rim_is_like():
    dark, light, gilt = [-0.68, -0.14, -0.27], [0.9, 0.0, 0.07], [0.45, -0.1, 0.2]
    tops = np.array([dark] * 5 + [light] * 3 + [gilt])
    rims = tops.copy()
    rims[-1] = [-0.62, -0.12, -0.25]  # round the gilt crown, the king's own colour
    kings = np.array([False] * 8 + [True])
    p_white, certainty = _piece_colours(tops, rims, kings)
    assert (p_white[:5] < 0.5).all() and (p_white[5:8] > 0.5).all()
    assert p_white[-1] < 0.5 and certainty[-1] > 0.8
    # a board of one colour: the king is that colour too, not the other
    p_white, _ = _piece_colours(tops[[0, 1, 2, 3, 8]], rims[[0, 1, 2, 3, 8]],
                                kings[[0, 1, 2, 3, 8]])
    assert (p_white < 0.5).all()


def _piece_patch(rng, shift: float, mark: float | None = None,
                 radius: float = 0.38) -> np.ndarray:
    """A patch of a dark top (`radius` squares) on the empty colour, noisy, its top
    `shift` squares up; with a light mark of radius `mark` squares in its middle."""
    px = SIDE / SPAN
    rows, cols = np.mgrid[0:SIDE, 0:SIDE] + 0.5
    d = np.hypot(rows - (SIDE / 2 - shift * px), cols - SIDE / 2)
    patch = np.zeros((SIDE, SIDE, 3), np.float32)
    patch[d <= radius * px] = [-0.7, 0.1, -0.2]
    if mark is not None:
        patch[d <= mark * px] = [0.4, 0.0, 0.1]
    return patch + rng.normal(0, 0.03, patch.shape).astype(np.float32)


def test_a_mark_in_a_tops_middle_stands_out_and_a_plain_top_does_not():
    rng = np.random.default_rng(1)
    plain = np.stack([_piece_patch(rng, s) for s in (0.0, 0.15, 0.3)])
    marked = np.stack([_piece_patch(rng, s, mark=0.16) for s in (0.0, 0.15, 0.3)])
    shifts = np.array([0.0, 0.15, 0.3])
    lean, on_board = np.full(3, 0.6), np.ones((3, SIDE, SIDE), bool)
    on_plain = np.zeros((3, SIDE, SIDE), bool)
    plain_colour = np.array([1.0, 0.0, 0.0])

    def marks(patches, shifts):
        return top_marks(patches, shifts, lean, on_board, on_plain, plain_colour)

    assert (marks(plain, shifts) < MARK_UNSURE).all()
    assert (marks(marked, shifts) > MARK_KING).all()
    # a tall piece's top further off than the model said is found there
    assert (marks(marked, shifts - 0.1) > MARK_KING).all()
    # and a ring round a man's far edge, on the bare board, makes no mark
    assert (marks(plain, shifts - 0.3) < MARK_UNSURE).all()


def test_a_man_much_smaller_than_his_square_shows_no_mark():
    # men 0.4 of a square wide (a travel set): the ring round a top's middle lies on the
    # board round them wherever the top is looked for, so no mark can be told
    rng = np.random.default_rng(3)
    shifts = np.array([0.0, 0.1, 0.2])
    small = np.stack([_piece_patch(rng, s, radius=0.2) for s in shifts])
    marks = top_marks(small, shifts, np.full(3, 0.6), np.ones((3, SIDE, SIDE), bool),
                      np.zeros((3, SIDE, SIDE), bool), np.array([1.0, 0.0, 0.0]))
    assert (marks < MARK_UNSURE).all()


def test_a_king_by_its_mark_stands_out_from_the_men_of_its_own_photo():
    men = [0.6, 0.9, 0.4, 1.1, 0.7, 0.8, 1.6]
    kings, unsure = _marked(np.array(men + [8.0, 4.5]))
    assert list(kings) == [False] * 7 + [True, False]
    assert list(unsure) == [False] * 7 + [True, True]
    # a set whose every man bears an emblem: none stands out enough to be a king
    emblems = np.array([3.8, 4.2, 4.0, 3.9, 4.4, 4.1, 8.0])
    assert not _marked(emblems)[0].any() and not _marked(emblems)[1].any()
