"""PDN 3.0 game files: read and write many games with tags, comments and NAGs.

Reading tolerates what real files do (missing results or move numbers, `:` or `-` for
captures, long or short capture notation, lower-case tag names, CRLF, a BOM, variations
which are skipped) and rejects the rest with a PdnError giving line and column. The
GameType tag says how squares are named (`damas.rules.gametype`): numbers, algebraic
names (Brazilian, GameType 26), or numbers from another corner, which are translated.
Writing names squares as the variant does: Brazilian moves and FENs are algebraic.

>>> games = read_pdn('[GameType "21"]\\n1. 11-15 23-19 2. 8-11 *')
>>> games[0].game.position.fen()
'W:W19,21,22,24-32:B1-7,9-12,15'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from .errors import DamasError, PdnError
from .fen import ending_plies, parse_fen
from .game import Game
from .gametype import read_gametype
from .geometry import clip, geometry
from .position import Position
from .variant import Color, Variant
from .variant import variant as get_variant

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
UNKNOWN = {"Date": "????.??.??", "Result": "*"}  # PDN 3.0's unknown values; "?" otherwise
MAX_NAG = 255
NAG_SYMBOLS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
SYMBOL_OF_NAG = {n: s for s, n in NAG_SYMBOLS.items()}
WHITE_WINS, BLACK_WINS, DRAWS = {"2-0", "1-0"}, {"0-2", "0-1"}, {"1-1", "1/2-1/2", "0-0"}

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<tag>\[)
  | (?P<comment>\{)
  | (?P<line_comment>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$[0-9]+)
  | (?P<result>(?:2-0|0-2|1-1|1-0|0-1|0-0|1/2-1/2|\*)(?![\w\-x:]))
  | (?P<number>[0-9]+\.+)
  | (?P<move>[a-jA-J]?[0-9]+(?:[-x:X][a-jA-J]?[0-9]+)+)(?P<suffix>[!?]{1,2})?
""", re.VERBOSE)
_TAG = re.compile(r'\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\]')


@dataclass
class PdnGame:
    tags: dict[str, str]
    game: Game
    comments: dict[int, list[str]] = field(default_factory=dict)  # after ply N; 0 = before
    nags: dict[int, list[int]] = field(default_factory=dict)  # on ply N (1 = first move)
    result: str = "*"
    offset: int = field(default=0, compare=False)  # where it begins in the text read

    @classmethod
    def from_game(cls, game: Game, **tags: str) -> PdnGame:
        outcome = game.outcome()
        result = tags.pop("Result", outcome.result if outcome else "*")
        return cls(dict(tags), game, result=result)


class _Cursor:
    """Turns an offset in the text into line and column for error messages."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo] + 1


def read_pdn(text: str, variant: Variant | str = "international") -> list[PdnGame]:
    """Every game in the text. The GameType tag, when present, chooses the variant."""
    if not isinstance(text, str):
        raise PdnError("PDN must be text", 1, 1)
    default = get_variant(variant)
    text = text.lstrip("\ufeff")
    text = "\n".join("" if line.startswith("%") else line for line in text.split("\n"))
    cursor = _Cursor(text)
    games: list[PdnGame] = []
    builder: _Builder | None = None
    pos, n = 0, len(text)

    def fail(message: str, offset: int) -> NoReturn:
        line, col = cursor.where(offset)
        raise PdnError(message, line, col)

    while pos < n:
        m = _TOKEN.match(text, pos)
        if not m:
            bad = text[pos:].split(None, 1)[0]  # not a space: that is a token
            fail(f"unexpected {bad[:20]!r}", pos)
        kind = m.lastgroup if m.lastgroup != "suffix" else "move"
        start = pos
        pos = m.end()
        if kind == "space" or kind == "line_comment":
            continue
        if kind == "tag":
            t = _TAG.match(text, start)
            if not t:
                fail('malformed tag: expected [Name "value"]', start)
            pos = t.end()
            if builder is not None and builder.started:
                games.append(builder.finish())
                builder = None
            if builder is None:
                builder = _Builder(default, fail, start)
            value = re.sub(r"\\(.)", r"\1", t.group("value"))
            builder.tag(_canonical_tag(t.group("name")), value, start)
            continue
        if builder is None:
            builder = _Builder(default, fail, start)
        if kind == "comment":
            end = text.find("}", pos)
            if end < 0:
                fail("comment is never closed with '}'", start)
            builder.comment(text[pos:end])
            pos = end + 1
        elif kind == "open":
            pos = _skip_variation(text, start, fail)
        elif kind == "close":
            fail("')' without a '(' before it", start)
        elif kind == "nag":
            digits = m.group("nag")[1:]
            if len(digits) > 3 or int(digits) > MAX_NAG:
                fail(f"NAG ${clip(digits, 8)} is not one of $0..${MAX_NAG}", start)
            builder.nag(int(digits))
        elif kind == "number":
            continue
        elif kind == "result":
            builder.set_result(m.group("result"))
            games.append(builder.finish())
            builder = None
        else:
            builder.move(m.group("move"), start)
            if m.group("suffix"):
                builder.nag(NAG_SYMBOLS[m.group("suffix")]) if m.group(
                    "suffix") in NAG_SYMBOLS else fail(f"unknown annotation {m.group('suffix')!r}",
                                                       m.start("suffix"))
    if builder is not None and (builder.started or builder.tags):
        games.append(builder.finish())
    return games


def _skip_variation(text: str, start: int, fail: Fail) -> int:
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "{":
            end = text.find("}", i)
            if end < 0:
                fail("comment is never closed with '}'", i)
            i = end
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    fail("variation is never closed with ')'", start)


def _canonical_tag(name: str) -> str:
    for known in (*ROSTER, "GameType", "FEN", "TimeControl", "Annotator", "Clock"):
        if name.lower() == known.lower():
            return known
    return name


Fail = Callable[[str, int], NoReturn]  # raises PdnError at an offset


class _Builder:
    """Collects one game while it is read."""

    def __init__(self, default: Variant, fail: Fail, offset: int):
        self.default, self.fail, self.offset = default, fail, offset
        self.numbers: dict[int, int] | None = None  # the file's square numbers → Manoury
        self.tags: dict[str, str] = {}
        self.tag_offsets: dict[str, int] = {}
        self.game: Game | None = None
        self.comments: dict[int, list[str]] = {}
        self.nags: dict[int, list[int]] = {}
        self.result = "*"

    @property
    def started(self) -> bool:
        return self.game is not None

    def tag(self, name: str, value: str, offset: int) -> None:
        self.tags[name] = value
        self.tag_offsets[name] = offset

    def _ensure_game(self) -> Game:
        if self.game is None:
            v = self.default
            if "GameType" in self.tags:
                try:
                    gametype = read_gametype(self.tags["GameType"])
                except DamasError as e:
                    self.fail(str(e), self.tag_offsets["GameType"])
                v, self.numbers = gametype.variant, gametype.numbers
            start, plies = None, 0
            if self.tags.get("FEN"):
                try:
                    turn, pieces = parse_fen(self.tags["FEN"], v, self.numbers)
                    start = Position.from_pieces(v, pieces, turn)
                    plies = ending_plies(self.tags["FEN"])
                except DamasError as e:
                    self.fail(str(e), self.tag_offsets["FEN"])
            self.game = Game(v, start=start, ending_plies=plies)
        return self.game

    def comment(self, text: str) -> None:
        game = self._ensure_game()
        self.comments.setdefault(game.ply, []).append(" ".join(text.split()))

    def nag(self, number: int) -> None:
        game = self._ensure_game()
        if game.ply == 0:
            return  # a NAG before any move annotates nothing
        self.nags.setdefault(game.ply, []).append(number)

    def move(self, text: str, offset: int) -> None:
        game = self._ensure_game()
        try:
            game.push(self._in_manoury(text))
        except DamasError as e:
            self.fail(f"move {game.ply // 2 + 1} ({clip(text)}): {e}", offset)

    def _in_manoury(self, text: str) -> str:
        if self.numbers is None:
            return text
        numbers = self.numbers

        def square(m: re.Match) -> str:
            if m.group(1) or int(m.group(2)) not in numbers:
                return m.group()  # algebraic, or off the board: the move's own error
            return str(numbers[int(m.group(2))])

        return re.sub(r"([a-jA-J]?)([0-9]{1,3})(?![0-9])", square, text)

    def set_result(self, text: str) -> None:
        self._ensure_game()
        self.result = text

    def finish(self) -> PdnGame:
        game = self._ensure_game()
        result = self.result if self.result != "*" else self.tags.get("Result", "*")
        result = _in_variant_notation(result, game.variant)
        tags = dict(self.tags)
        if "Result" in tags:
            tags["Result"] = _in_variant_notation(tags["Result"], game.variant)
        return PdnGame(tags, game, self.comments, self.nags, result, self.offset)


def _in_variant_notation(result: str, v: Variant) -> str:
    if result in WHITE_WINS:
        return v.results[0]
    if result in BLACK_WINS:
        return v.results[1]
    if result in DRAWS:
        return v.results[2]
    return "*"


# --- writing ---------------------------------------------------------------------------

def write_pdn(games: list[PdnGame] | PdnGame, width: int = 79) -> str:
    if isinstance(games, PdnGame):
        games = [games]
    return "\n".join(_write_one(g, width) for g in games)


def _write_one(pg: PdnGame, width: int) -> str:
    game = pg.game
    tags = {name: UNKNOWN.get(name, "?") for name in ROSTER}
    tags.update(pg.tags)
    tags["Result"] = pg.result
    tags["GameType"] = str(game.variant.gametype)  # our notation, whatever the file read had
    if game.is_setup:
        tags["SetUp"] = "1"
        tags["FEN"] = game.start_fen
    else:
        tags.pop("SetUp", None)
        tags.pop("FEN", None)
    lines = [tag_line(name, value) for name, value in tags.items()]
    words: list[str] = []
    words += [comment_text(c) for c in pg.comments.get(0, [])]
    first = game.variant.first_to_move
    named = _namer(game.variant)
    number = 1
    interrupted = True  # a comment before a second mover's move calls for "N..."
    for ply, (pos, notation) in enumerate(zip(game.positions, game.notations(),
                                              strict=False), start=1):
        if pos.turn == first:
            words.append(f"{number}.")
        elif interrupted:
            words.append(f"{number}...")
        nags = pg.nags.get(ply, [])
        symbols = "".join(SYMBOL_OF_NAG[n] for n in nags[:1] if n in SYMBOL_OF_NAG)
        words.append(named(notation) + symbols)
        words += [f"${n}" for n in nags[1 if symbols else 0:]]
        comments = pg.comments.get(ply, [])
        words += [comment_text(c) for c in comments]
        interrupted = bool(comments)
        if pos.turn != first:
            number += 1
    words.append(pg.result)
    lines.append("")
    lines += _wrap(words, width)
    return "\n".join(lines) + "\n"


def _namer(v: Variant):
    """Move text as the variant's files write it: Brazilian squares algebraic (c3-d4)."""
    if v.notation != "algebraic":
        return lambda notation: notation
    g = geometry(v.size)
    return lambda notation: re.sub(r"[0-9]+", lambda m: g.algebraic(int(m.group())), notation)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NOT_TAG_NAME = re.compile(r"[^A-Za-z0-9_]")


def tag_value(value: str) -> str:
    """A tag's value as a PDN file can hold it on its one line: control characters (a
    newline would begin a new tag or a move) become spaces. `read_pdn` reads this back."""
    return _CONTROL.sub(" ", value)


def tag_line(name: str, value: str) -> str:
    """`[Name "value"]`, the name of letters, digits and _ only, the value escaped
    (quotes and backslashes) on one line: nothing in either can end the tag early."""
    name = _NOT_TAG_NAME.sub("_", name) or "_"
    return f'[{name} "{_escape(tag_value(value))}"]'


def comment_value(text: str) -> str:
    """A comment's text as a PDN file can hold it: braces (which would end the comment, or
    open another for readers that nest them) become parentheses, and any run of spaces or
    control characters one space, as `read_pdn` reads every comment back."""
    return " ".join(_CONTROL.sub(" ", text).replace("{", "(").replace("}", ")").split())


def comment_text(text: str) -> str:
    return f"{{{comment_value(text)}}}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _wrap(words: list[str], width: int) -> list[str]:
    lines, current = [], ""
    for word in words:
        for piece in _split_long(word, width):
            # a line that begins with % is an escape line, which readers skip
            if current and len(current) + 1 + len(piece) > width and piece[:1] != "%":
                lines.append(current)
                current = piece
            else:
                current = f"{current} {piece}" if current else piece
    if current:
        lines.append(current)
    return lines


def _split_long(word: str, width: int) -> list[str]:
    """Comments may be broken between words (read back, a comment's spaces and line
    breaks are one space); nothing else is ever split."""
    if len(word) <= width or not word.startswith("{"):
        return [word]
    return word.split(" ")


def winner_of(result: str) -> Color | None:
    if result in WHITE_WINS:
        return Color.WHITE
    if result in BLACK_WINS:
        return Color.BLACK
    return None
