"""PDN files on disk: the one place where their bytes become text for `read_pdn`.

PDN 3.0 files are UTF-8 (a BOM is fine). Older programs write Windows-1252 or Latin-1
(`[Event "Café"]` as the byte 0xE9): a file that is not UTF-8 is read as Windows-1252,
and where that has no character for a byte, as Latin-1, which has one for every byte. So
a PDN file never fails for its encoding; its content is still checked by `read_pdn`.
"""

from __future__ import annotations

from pathlib import Path

from damas.rules import DamasError
from damas.rules.pdn import PdnGame, read_pdn


def pdn_text(data: bytes) -> str:
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def read_pdn_file(path: str | Path, variant: str = "international") -> list[PdnGame]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise DamasError(f"cannot read the PDN file {path}: {e.strerror}") from None
    return read_pdn(pdn_text(data), variant)
