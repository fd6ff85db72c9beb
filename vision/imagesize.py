"""An image's width and height from its header, before anything is decoded: a small file
can declare a picture of billions of pixels (a 389 kB PNG of 20000 x 20000 costs 2.4 GB
once decoded), so the size is checked first. PNG, JPEG, BMP, GIF, WebP and TIFF; None for
a header this does not know (OpenCV's own limit then applies) or a damaged one.
"""

from __future__ import annotations

import struct

MAX_PIXELS = 50_000_000  # more than any camera's photo (a 48 MP phone: 8000 x 6000)


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of an image file (64 kB is plenty)."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
        if head.startswith(b"\xff\xd8"):
            return _jpeg(head)
        if head.startswith(b"BM"):
            width, height = struct.unpack("<ii", head[18:26])
            return abs(width), abs(height)
        if head[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", head[6:10])
        if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
            return _webp(head)
        if head[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(head)
    except struct.error:
        return None
    return None


def _jpeg(head: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        if marker == 0xFF:  # padding
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", head[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a frame
            height, width = struct.unpack(">HH", head[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None


def _webp(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X":
        return (int.from_bytes(head[24:27], "little") + 1,
                int.from_bytes(head[27:30], "little") + 1)
    if chunk == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def _tiff(head: bytes) -> tuple[int, int] | None:
    order = "<" if head[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", head[4:8])
    (count,) = struct.unpack(order + "H", head[offset:offset + 2])
    size: dict[int, int] = {}
    for n in range(count):
        at = offset + 2 + 12 * n
        tag, kind = struct.unpack(order + "HH", head[at:at + 4])
        if tag in (256, 257):
            fmt = "H" if kind == 3 else "I"
            (size[tag],) = struct.unpack(order + fmt, head[at + 8:at + 8 + struct.calcsize(fmt)])
    return (size[256], size[257]) if 256 in size and 257 in size else None
