"""PDN files on disk: the one place where their bytes become text for `read_pdn`.

PDN 3.0 files are UTF-8 (a BOM is fine). Older programs write Windows-1252 or Latin-1
(`[Event "Café"]` as the byte 0xE9): a file that is not UTF-8 is read as Windows-1252,
and where that has no character for a byte, as Latin-1, which has one for every byte. So
a PDN file never fails for its encoding; its content is still checked by `read_pdn`.

A session's PDN (`damas play`, `damas demo`) keeps every game, as its journal does: a new
game is written after the games already in the file (`earlier_games`), and a resumed game
replaces its own unfinished record, the file's last game.
"""

from __future__ import annotations

from pathlib import Path

from damas.rules import DamasError, Game
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


def earlier_games(path: str | Path, resumed: Game | None = None) -> str:
    """The text a new game's record follows: the whole file, or when `resumed` goes on,
    the file without its last game if that is `resumed`'s record so far."""
    p = Path(path)
    if not p.exists():
        return ""
    text = pdn_text(p.read_bytes()).lstrip("\ufeff")
    if resumed is None:
        return text
    try:
        games = read_pdn(text, resumed.variant)
    except DamasError:
        return text  # not ours to judge: it stays as it is, the game goes after it
    if games:
        last = games[-1].game
        if last.start == resumed.start and last.moves == resumed.moves[:len(last.moves)]:
            return text[:games[-1].offset]
    return text


def games_in(text: str) -> int:
    """How many games a PDN text holds, by their Event tags (every game we write has one;
    counting them needs no parse, so a damaged earlier game still counts)."""
    return sum(1 for line in text.splitlines() if line.lstrip("\ufeff").startswith("[Event "))


def after(earlier: str, pdn: str) -> str:
    """A game's PDN written after earlier games."""
    return f"{earlier.rstrip()}\n\n{pdn}" if earlier.strip() else pdn
