"""Perft tables from the start positions and the Woldouby position (references/rules.md),
read by the pure-Python tests (test_perft.py) and the native core's (test_native.py)."""

INTERNATIONAL = [9, 81, 658, 4265, 27117, 167140, 1049442]
BRAZILIAN = [7, 49, 302, 1469, 7473, 37628, 187302, 907830]
ENGLISH = [7, 49, 302, 1469, 7361, 36768, 179740, 845931]
WOLDOUBY_FEN = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
WOLDOUBY = [6, 12, 30, 73, 215, 590, 1944, 6269, 22369]
START_TABLES = {"international": INTERNATIONAL, "brazilian": BRAZILIAN, "english": ENGLISH}
