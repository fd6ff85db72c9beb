"""X-corners, the lattice through them, the playing area on it, and markers of any
dictionary: on drawn boards whose truth is exact."""

import cv2
import numpy as np
import pytest

from damas.calibration.camera import Camera, Intrinsics
from damas.vision import markers
from damas.vision.corners import find_corners, fit_lattice
from damas.vision.extent import find_extent
from damas.vision.locate import locate

PX = 40  # pixels a square in the drawn texture


def checker(cells: int, light=(220, 220, 220), dark=(40, 40, 40), frame=(90, 140, 200),
            border: int = 1) -> np.ndarray:
    """A board texture: cells x cells squares inside `border` squares of frame."""
    side = (cells + 2 * border) * PX
    img = np.full((side, side, 3), frame, np.uint8)
    for r in range(cells):
        for c in range(cells):
            colour = dark if (r + c) % 2 else light
            y, x = (r + border) * PX, (c + border) * PX
            img[y:y + PX, x:x + PX] = colour
    return img


def view(texture: np.ndarray, angle: float = 20.0, tilt: float = 30.0,
         size=(1280, 720)) -> tuple[np.ndarray, np.ndarray]:
    """The texture seen by a webcam `tilt` degrees from straight down, turned `angle`
    about the vertical, on a grey table; (frame, 3x3 texture pixels -> frame)."""
    side = texture.shape[0]
    w, h = size
    cam = Camera.looking_at(Intrinsics.guess(w, h), (0, 0, 0), 1.9 * side, tilt, 270 + angle)
    to_world = np.array([[1, 0, -side / 2], [0, -1, side / 2], [0, 0, 1.0]])
    M = cam.plane_homography(0.0) @ to_world
    table = np.full((h, w, 3), 128, np.uint8)
    frame = cv2.warpPerspective(texture, M, (w, h), dst=table,
                                borderMode=cv2.BORDER_TRANSPARENT)
    rng = np.random.default_rng(0)
    noisy = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    return noisy, M


def test_every_inner_corner_is_found_on_one_lattice():
    frame, _ = view(checker(8))
    corners = find_corners(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    lattice = fit_lattice(corners, 49)
    assert lattice is not None
    assert len(lattice.points) == 49
    assert tuple(lattice.ij.max(axis=0)) == (6, 6)  # 7 x 7 inner corners


def test_pieces_on_the_squares_leave_enough_corners():
    tex = checker(8)
    for r in range(8):
        for c in range(8):
            if (r + c) % 2 and r != 3 and r != 4:
                centre = ((c + 1.5) * PX, (r + 1.5) * PX)
                cv2.circle(tex, (int(centre[0]), int(centre[1])), int(0.42 * PX),
                           (30, 30, 180), -1, cv2.LINE_AA)
    frame, _ = view(tex, angle=-35)
    lattice = fit_lattice(find_corners(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)), 39)
    assert lattice is not None and len(lattice.points) >= 40


def test_tape_round_the_playing_area_of_a_bigger_board():
    # a 10x10 board whose outer ring of squares is covered by blue tape: the playing
    # area is the 8x8 inside the tape
    tex = checker(10, border=0)
    band = np.zeros(tex.shape[:2], bool)
    band[PX // 3: -PX // 3, PX // 3: -PX // 3] = True
    band[PX: -PX, PX: -PX] = False
    tex[band] = (200, 120, 40)
    frame, M = view(tex, angle=12)
    found = locate(frame, 8, use_markers=False)
    # the playing area's corners in the frame: texture squares 1..9 of 10
    inner = np.array([[PX, PX], [9 * PX, PX], [9 * PX, 9 * PX], [PX, 9 * PX]], np.float64)
    truth = cv2.perspectiveTransform(inner.reshape(-1, 1, 2), M).reshape(-1, 2)
    got = found.pose.project(np.array([[-4, 4, 0], [4, 4, 0], [4, -4, 0], [-4, -4, 0.0]]))
    step = np.linalg.norm(truth[1] - truth[0]) / 8
    # the same four corners, in some order (the labelling turns with the dark squares)
    err = max(np.min(np.linalg.norm(truth - g, axis=1)) for g in got)
    assert err < 0.15 * step


def test_the_extent_ignores_stray_corners_beyond_the_edge():
    tex = checker(8, border=2)
    # two little checkers on the frame near opposite corners (like marker bits)
    for y, x in ((PX // 2, PX // 2), (11 * PX - PX // 2 - 20, 11 * PX - PX // 2 - 20)):
        tex[y:y + 10, x:x + 10] = 0
        tex[y + 10:y + 20, x + 10:x + 20] = 0
        tex[y:y + 10, x + 10:x + 20] = 255
        tex[y + 10:y + 20, x:x + 10] = 255
    frame, _ = view(tex, angle=5)
    small = frame
    lattice = fit_lattice(find_corners(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)), 49)
    extent = find_extent(small, lattice, 8)
    span = lattice.ij.max(axis=0)
    # the window's inner corner lines must be the 7 lines holding the board's corners
    counts_a = np.bincount(lattice.ij[:, 0], minlength=span[0] + 1)
    counts_b = np.bincount(lattice.ij[:, 1], minlength=span[1] + 1)
    assert counts_a[extent.a0 + 1: extent.a0 + 8].sum() >= 45
    assert counts_b[extent.b0 + 1: extent.b0 + 8].sum() >= 45


@pytest.mark.parametrize("name", ["DICT_4X4_50", "DICT_6X6_250", "DICT_ARUCO_ORIGINAL",
                                  "DICT_APRILTAG_36H11", "DICT_7X7_1000"])
def test_markers_of_any_dictionary_are_found_without_being_told(name):
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    page = np.full((600, 900), 255, np.uint8)
    ids = [1, 7, 23, 42]
    for k, marker_id in enumerate(ids):
        tile = cv2.aruco.generateImageMarker(d, marker_id, 120)
        y, x = 60 + (k // 2) * 300, 80 + (k % 2) * 560
        page[y:y + 120, x:x + 120] = tile
    found = markers.find(page)
    # the first codes of a big dictionary are its small sibling's (6X6_50 in 6X6_250)
    family = name.rsplit("_", 1)[0] if name[5].isdigit() else name
    assert sorted(m.id for m in found if m.dictionary.startswith(family)) == ids
    assert len(found) == 4
    assert markers.outline(found) is not None


def test_no_markers_no_outline():
    page = np.full((300, 300), 255, np.uint8)
    assert markers.find(page) == []
    assert markers.outline([]) is None


def _page_with_small_turned_markers(side: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """damas' four corner markers, `side` pixels wide and turned 45 degrees, on a
    1280x720 frame: a board far off and turned in the frame."""
    page = np.full((720, 1280), 200, np.uint8)
    centres = [(640, 600), (880, 360), (640, 120), (400, 360)]
    for marker_id, (x, y) in enumerate(centres):
        tile = np.full((2 * side, 2 * side), 255, np.uint8)
        tile[side // 2: side // 2 + side, side // 2: side // 2 + side] = \
            markers.marker_image(marker_id, side)
        turn = cv2.getRotationMatrix2D((side, side), 45, 1.0)
        page[y - side: y + side, x - side: x + side] = cv2.warpAffine(
            tile, turn, (2 * side, 2 * side), flags=cv2.INTER_AREA, borderValue=200)
    return cv2.GaussianBlur(page, (3, 3), 0.9), centres


def test_small_markers_lost_at_the_working_size_are_found_at_full_size():
    page, _ = _page_with_small_turned_markers(18)
    assert sorted(m.id for m in markers.find(page)) == [0, 1, 2, 3]


@pytest.mark.parametrize("hidden", [0, 1, 2, 3])
def test_three_of_our_markers_give_the_outline(hidden):
    page, centres = _page_with_small_turned_markers(40)
    found = [m for m in markers.find(page) if m.id != hidden]
    assert len(found) == 3
    corners = markers.outline(found)
    assert corners is not None and len(corners) == 4
    # the missing corner completes the board where its marker was
    assert min(np.linalg.norm(corners - np.array(centres[hidden]), axis=1)) < 2.0


def test_three_markers_of_another_dictionary_give_no_outline():
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    page = np.full((600, 900), 255, np.uint8)
    for k, marker_id in enumerate([7, 23, 42]):
        y, x = 60 + (k // 2) * 300, 80 + (k % 2) * 560
        page[y:y + 120, x:x + 120] = cv2.aruco.generateImageMarker(d, marker_id, 120)
    found = markers.find(page)
    assert len(found) == 3
    assert markers.outline(found) is None
