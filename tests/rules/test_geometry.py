import pytest

from damas.rules import SquareError, geometry


def test_manoury_edges_of_the_10x10_board():
    g = geometry(10)
    assert [g.square_at(0, c) for c in range(1, 10, 2)] == [1, 2, 3, 4, 5]
    assert [g.square_at(9, c) for c in range(0, 10, 2)] == [46, 47, 48, 49, 50]
    left = [s for s in g.all_squares if g.row_col(s)[1] == 0]
    right = [s for s in g.all_squares if g.row_col(s)[1] == 9]
    assert left == [6, 16, 26, 36, 46]  # 000 §2.6.2
    assert right == [5, 15, 25, 35, 45]


@pytest.mark.parametrize("size", [8, 10])
def test_square_and_row_col_are_inverse_and_dark(size):
    g = geometry(size)
    seen = set()
    for s in g.all_squares:
        row, col = g.row_col(s)
        assert (row + col) % 2 == 1
        assert g.square_at(row, col) == s
        seen.add((row, col))
    assert len(seen) == size * size // 2
    assert g.square_at(0, 0) is None and g.square_at(size, 1) is None


def test_bottom_left_is_dark_for_each_player():
    for size in (8, 10):
        g = geometry(size)
        assert g.square_at(size - 1, 0) is not None  # White's bottom-left
        assert g.square_at(0, size - 1) is not None  # Black's bottom-left


def test_algebraic_names_on_8x8():
    g = geometry(8)
    assert g.algebraic(29) == "a1"
    assert g.algebraic(1) == "b8"
    assert g.algebraic(4) == "h8"
    assert g.algebraic(32) == "g1"
    for s in g.all_squares:
        assert g.parse(g.algebraic(s)) == s
        assert g.parse(str(s)) == s


@pytest.mark.parametrize("bad", ["0", "33", "a2", "z9", "", "b"])
def test_bad_square_names(bad):
    with pytest.raises(SquareError):
        geometry(8).parse(bad)
