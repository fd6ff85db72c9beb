"""Mutated inputs for the parsers at the command line's boundary, and how each outcome is
judged. Shared by the hypothesis tests (`test_fuzz_parsers.py`) and the counting script
(`count.py`, which prints tried / clean error / traceback / wrong acceptance).

An outcome is one of:
- `accepted`: exit status 0, and the oracle of that parser finds nothing wrong;
- `clean`: exit status 2 and exactly one line on stderr, `damas: ...`;
- `traceback`: anything else (an exception escaping, another status, a second line);
- `wrong`: accepted, but the oracle says it must not have been (a FEN with 40 white men,
  a time stamp that is not a finite number, output that is not JSON, ...).

The oracles are written here from the documented grammar, independently of the parsers.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import re
import socket
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from damas.cli import main
from damas.rules import Game, geometry, variant
from damas.rules.pdn import PdnGame, write_pdn
from damas.rules.tracker.board import Observation
from damas.rules.tracker.format import format_observation
from damas.sim.person import move_steps

VARIANTS = ("international", "brazilian", "english")
HUGE = "9" * 4301  # more digits than int() converts by default
ODD_DIGITS = ("²", "٣", "０", "𝟗", "¹²", "Ⅻ")  # isdigit() or Unicode digits, not ASCII
TROUBLE = (*ODD_DIGITS, HUGE, "\x00", "\u00a0", "é", "\ufeff", "nan", "inf", "-1", "1e308",
           "1_0", "+1", " ", "\t", "\n", "\\", '"', "{", "}", "[", "]", "(", ")", "$")


# --- mutations --------------------------------------------------------------------------

def mutate(text: str, rng: random.Random, alphabet: str) -> str:
    """One to three edits: a character replaced, inserted or deleted, a chunk doubled or
    cut, a number made huge or written with other digits, a trouble-maker inserted."""
    for _ in range(rng.randint(1, 3)):
        n = len(text)
        i = rng.randrange(n + 1)
        op = rng.randrange(8)
        if op == 0 and n:
            text = text[:i] + rng.choice(alphabet) + text[i + 1:]
        elif op == 1:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif op == 2 and n:
            j = min(n, i + rng.randint(1, 4))
            text = text[:i] + text[j:]
        elif op == 3 and n:
            j = min(n, i + rng.randint(1, 12))
            text = text[:j] + text[i:j] + text[j:]
        elif op == 4:
            text = text[:i]
        elif op == 5:
            numbers = list(re.finditer(r"[0-9]+", text))
            if numbers:
                m = rng.choice(numbers)
                text = text[:m.start()] + rng.choice((HUGE, *ODD_DIGITS, "0", "00" + m.group())) \
                    + text[m.end():]
        else:
            text = text[:i] + rng.choice(TROUBLE) + text[i:]
    return text


def random_game(name: str, rng: random.Random, plies: int) -> Game:
    game = Game(name)
    while game.ply < plies and game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    return game


# --- running the command line in-process ------------------------------------------------

@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    crash: str | None = None  # the traceback of an exception that escaped

    @property
    def clean_error(self) -> bool:
        lines = self.err.splitlines()
        return (self.crash is None and self.code == 2 and len(lines) == 1
                and lines[0].startswith("damas: ") and "Traceback" not in self.err)


def run_cli(argv: list[str], stdin: str = "") -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except BaseException:  # noqa: BLE001 - whatever escapes is the finding
                return Outcome(None, out.getvalue(), err.getvalue(), traceback.format_exc())
    finally:
        sys.stdin = saved
    return Outcome(code, out.getvalue(), err.getvalue())


def verdict(outcome: Outcome, wrong: Callable[[Outcome], str | None]) -> tuple[str, str]:
    """(kind, why) with kind one of accepted, clean, traceback, wrong."""
    if outcome.crash is not None:
        return "traceback", outcome.crash.strip().splitlines()[-1]
    if outcome.code == 0:
        why = wrong(outcome)
        return ("wrong", why) if why else ("accepted", "")
    if outcome.clean_error:
        return "clean", ""
    return "traceback", f"status {outcome.code}: {outcome.err.strip()[:200]}"


# --- FEN ----------------------------------------------------------------------------------

def fen_seeds(rng: random.Random) -> Iterator[tuple[str, str]]:
    while True:
        name = rng.choice(VARIANTS)
        game = random_game(name, rng, rng.randrange(0, 80))
        fen = game.position.fen()
        if rng.random() < 0.2:
            fen += ":H0:F" + str(rng.randrange(1, 60))
        yield name, fen


def strict_fen_problem(text: str, name: str) -> str | None:
    """Why the FEN must be refused, or None: the grammar of rules/README.md with ASCII
    digits, squares on the board and listed once, no man on its crowning row, and no side
    with more pieces than it starts with."""
    v = variant(name)
    g = geometry(v.size)
    fen = text.strip().strip('"').rstrip(".").strip()
    fields = [f.strip() for f in fen.split(":")]
    if not fields[0] or fields[0].upper() not in ("W", "B"):
        return "no side to move"
    seen: dict[str, list[tuple[int, bool]]] = {}
    for section in fields[1:]:
        if not section:
            continue
        if section[0].upper() in "HF" and re.fullmatch(r"[0-9]{1,4}", section[1:]):
            continue
        colour = section[0].upper()
        if colour not in "WB" or colour in seen:
            return f"section {section[:10]!r}"
        squares = seen[colour] = []
        for token in section[1:].split(","):
            token = token.strip()
            if not token:
                continue
            king = token[0].upper() == "K"
            body = token[1:] if king else token
            ends = body.split("-")
            if len(ends) > 2:
                return f"token {token[:10]!r}"
            numbers = []
            for end in ends:
                end = end.strip()
                if re.fullmatch(r"[0-9]{1,3}", end):
                    numbers.append(int(end))
                elif v.size == 8 and re.fullmatch(r"[a-hA-H][1-8]", end):
                    try:
                        numbers.append(g.parse(end))
                    except Exception:  # noqa: BLE001 - a light square
                        return f"square {end!r}"
                else:
                    return f"square {end[:10]!r}"
            if not all(1 <= n <= v.squares for n in numbers) or numbers[0] > numbers[-1]:
                return f"range {body[:10]!r}"
            if len(ends) == 2 and not all(e.strip().isascii() and e.strip().isdigit()
                                          for e in ends):
                return "a range of algebraic squares"
            squares += [(n, king) for n in range(numbers[0], numbers[-1] + 1)]
    every = [sq for side in seen.values() for sq, _ in side]
    if len(every) != len(set(every)):
        return "a square listed twice"
    per_row = v.size // 2
    for colour, side in seen.items():
        if len(side) > v.start_rows * per_row:
            return f"{len(side)} pieces for {colour}"
        for sq, king in side:
            if not king and (sq <= per_row if colour == "W" else sq > v.squares - per_row):
                return f"a man on its crowning row ({sq})"
    return None


def fen_case(rng: random.Random, seeds: Iterator[tuple[str, str]]):
    name, seed = next(seeds)
    text = mutate(seed, rng, "WBK0123456789:,-. xHFabcdefgh")
    outcome = run_cli(["show", "--variant", name, "--fen", text])

    def wrong(o: Outcome) -> str | None:
        if not text:
            return None  # --fen "" is the start position, as no --fen
        return strict_fen_problem(text, name)

    return verdict(outcome, wrong), text


# --- PDN ------------------------------------------------------------------------------------

def pdn_seeds(rng: random.Random) -> Iterator[tuple[str, str]]:
    while True:
        name = rng.choice(VARIANTS)
        game = random_game(name, rng, rng.randrange(1, 60))
        comments = {rng.randrange(0, game.ply + 1): ["a comment [%clock w0:10:00 B0:10:00]"]}
        nags = {rng.randrange(1, game.ply + 1): [rng.randrange(1, 140)]} if game.ply else {}
        pg = PdnGame({"Event": "fuzz", "Date": "2024.01.02", "Round": "3"}, game, comments,
                     nags, rng.choice([*game.variant.results, "*"]))
        yield name, write_pdn(pg)


GAMETYPE = re.compile(r"[0-9]+(,[WB],[0-9]+,[0-9]+,[ANS][0123](,[01])?)?")  # PDN 3.0


def pdn_problem(text: str) -> str | None:
    """What an accepted PDN must not hold: a GameType outside the PDN 3.0 grammar, or a
    NAG that is not `$` and one to three ASCII digits."""
    for m in re.finditer(r'\[\s*GameType\s*"([^"]*)"', text, re.IGNORECASE):
        if not GAMETYPE.fullmatch(m.group(1).strip()):
            return f"GameType {m.group(1)[:20]!r}"
    outside = re.sub(r"\{[^}]*\}|\[[^\]]*\]|;[^\n]*", " ", text)
    for m in re.finditer(r"\$(\S*)", outside):
        if not re.match(r"[0-9]{1,3}(?![0-9])", m.group(1)):
            return f"NAG ${m.group(1)[:10]!r}"
    return None


def pdn_case(rng: random.Random, seeds, folder: Path):
    name, seed = next(seeds)
    text = mutate(seed, rng, "[]\"{}$.-x0123456789 \nabcdefghWB*!?()%;")
    path = folder / "game.pdn"
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:  # a file written in another encoding
        data = data.replace(b"fuzz", "Caf\xe9".encode("latin-1"))
    path.write_bytes(data)
    empty = folder / "empty.txt"
    empty.write_text("")
    outcome = run_cli(["track", "--variant", name, "--resume", str(path), str(empty)])
    return verdict(outcome, lambda o: pdn_problem(text)), text


# --- observations ---------------------------------------------------------------------------

def observation_seeds(rng: random.Random) -> Iterator[tuple[str, str]]:
    while True:
        name = rng.choice(VARIANTS)
        v = variant(name)
        game = Game(name)
        lines, t = [f"t=0 {Observation.from_pieces(v, game.position.pieces()).squares}"], 0.0
        for _ in range(rng.randrange(1, 4)):
            move = rng.choice(game.legal_moves())
            for board in move_steps(game.position, move):
                t += 0.3
                lines.append(format_observation(Observation.from_pieces(v, board, t)))
            t += 1.5
            lines.append(f"t={t:g} commit")
            game.push(move)
        if rng.random() < 0.3:
            lines[-2] += " light=b1:w"  # b1 is a light square on both boards
        yield name, "\n".join(lines) + "\n"


SETTLES = ("1", "0.5", "0", "inf", "nan", "-inf", "1e308", "-1", "abc", "1e-9", HUGE, "²")


def json_problem(out: str) -> str | None:
    def no_constants(name):
        raise ValueError(f"{name} is not JSON")

    for line in out.splitlines():
        try:
            event = json.loads(line, parse_constant=no_constants)
        except ValueError as e:
            return f"output is not JSON: {e}"
        t = event.get("t")
        if isinstance(t, float) and not math.isfinite(t):
            return f"time {t}"
    return None


def observation_case(rng: random.Random, seeds, folder: Path):
    name, seed = next(seeds)
    text = mutate(seed, rng, "ewbWB? t=.0123456789commitlight:,\n")
    settle = rng.choice(SETTLES) if rng.random() < 0.3 else "1"
    path = folder / "observations.txt"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcome = run_cli(["track", "--variant", name, "--settle", settle, str(path)])

    def wrong(o: Outcome) -> str | None:
        try:
            value = float(settle)
        except ValueError:
            return f"--settle {settle[:10]}"
        if not (math.isfinite(value) and 0 <= value <= 3600) or not settle.isascii():
            return f"--settle {settle[:10]}"
        for m in re.finditer(r"(?:^|\s)t=(\S*)", text):
            try:
                stamp = float(m.group(1))
            except ValueError:
                return f"t={m.group(1)[:10]}"
            if not math.isfinite(stamp) or not m.group(1).isascii():
                return f"t={m.group(1)[:10]}"
        return json_problem(o.out)

    return verdict(outcome, wrong), f"--settle {settle[:12]} {text[:300]}"


# --- Hub: our server reading a GUI's lines ---------------------------------------------------

HUB_SESSION = ["hub", "set-param name=level value=2", "init", "new-game",
               'pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 19-23"',
               "level depth=1", "go think", "ping", "level move-time=0.05", "go think",
               "stop", "level time=5 inc=0.1 moves=20", "ping"]


def hub_level_problem(line: str) -> str | None:
    """A `level` or `set-param level` the server must answer with `error`."""
    words = line.split()
    if not words:
        return None
    if words[0] == "level":
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq:
                continue
            if key in ("depth", "nodes", "moves") and not re.fullmatch(r"[0-9]{1,9}", value):
                return f"level {word[:20]}"
            if key in ("move-time", "time", "inc"):
                try:
                    number = float(value)
                except ValueError:
                    return f"level {word[:20]}"
                if not (value.isascii() and math.isfinite(number) and 0 <= number <= 1e6):
                    return f"level {word[:20]}"
    return None


def hub_server_case(rng: random.Random):
    from damas.engine.hubserver import HubServer

    lines = list(HUB_SESSION)
    k = rng.randrange(len(lines))
    lines[k] = mutate(lines[k], rng, " =\"-.0123456789abcdefghijklmnopqrstuvwxyzWBe")
    lines.append("ping")
    text = "\n".join(lines) + "\n"
    out = io.StringIO()
    errors: list[str] = []
    hook = threading.excepthook
    threading.excepthook = lambda a: errors.append("".join(
        traceback.format_exception(a.exc_type, a.exc_value, a.exc_traceback)))
    try:
        try:
            code = HubServer(io.StringIO(text), out).serve()
        except BaseException:  # noqa: BLE001
            return ("traceback", traceback.format_exc().strip().splitlines()[-1]), text
    finally:
        threading.excepthook = hook
    if errors:
        return ("traceback", errors[0].strip().splitlines()[-1]), text
    written = out.getvalue().splitlines()
    bad = hub_level_problem(lines[k])
    if code != 0:
        return ("traceback", f"status {code}"), text
    if bad and not any(w.startswith("error") for w in written):
        return ("wrong", bad), text
    return ("accepted" if not any(w.startswith("error") for w in written) else "clean", ""), text


# --- Hub: our client reading an engine's lines ----------------------------------------------

HUB_ENGINE = ["id name=fake version=1", "param name=variant value=normal type=enum "
              'values="normal"', "wait", "ready",
              'info depth=1 score=0.1 nodes=10 time=0.01 pv="32-28"', "done move=32-28"]
ENGINE_SCRIPT = """\
cat "$1"
# then listen; two seconds without a line from the client: the end (EOF for it)
while read -r -t 2 line; do [ "$line" = quit ] && exit 0; done
"""


def strict_hub_move(text: str) -> str | None:
    """The move of a `done` line, if it is one: ASCII squares joined by - or x."""
    m = re.search(r"(?:^|\s)move=(\S*)", text)
    return m.group(1) if m and re.fullmatch(r"[0-9]{1,2}([-x][0-9]{1,2})+", m.group(1)) \
        else None


def hub_client_case(rng: random.Random, folder: Path):
    lines = list(HUB_ENGINE)
    k = rng.randrange(len(lines))
    lines[k] = mutate(lines[k], rng, " =\"-x.0123456789abcdefghijklmnopqrstuvwxyz")
    transcript = folder / "transcript.txt"
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    script = folder / "engine.sh"
    script.write_text(ENGINE_SCRIPT)
    outcome = run_cli(["think", "--engine", f"hub:bash {script} {transcript}", "--depth", "1",
                       "--json"])

    def wrong(o: Outcome) -> str | None:
        done = next((line for line in lines if line.split()[:1] == ["done"]), "")
        said = strict_hub_move(done)
        answered = json.loads(o.out)["hub"]
        if said is None:
            return f"took {answered} from {done[:30]!r}"
        return None if said == answered else f"took {answered} from {said}"

    return verdict(outcome, wrong), "\n".join(lines)


# --- DXP --------------------------------------------------------------------------------------

DXP_SAMPLES = ("R01damas                           Z005050A", "A" + "scan".ljust(32) + "0",
               "M0012322800", "M0003281902231914", "E20", "E01", "B005W", "K0",
               "Chello there", "R01damas                           W001000B" + "W"
               + "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww")


def dxp_case(rng: random.Random):
    """A mutated message as it arrives: its bytes read as ASCII (what is not ASCII
    becomes U+FFFD, as `Connection` reads it). Accepted, it must be the message sent."""
    from damas.engine.dxpwire import decode, encode
    from damas.engine.errors import EngineError

    sent = mutate(rng.choice(DXP_SAMPLES), rng, "RAMEBKC0123456789WZwze ")
    text = sent.encode("utf-8", "surrogatepass").decode("ascii", "replace")
    try:
        msg = decode(text, variant("international"))
    except EngineError:
        return ("clean", ""), text
    except Exception:  # noqa: BLE001
        return ("traceback", traceback.format_exc().strip().splitlines()[-1]), text
    if text[:1] == "C":
        return ("accepted", ""), text
    if encode(msg)[:-1] != text.encode("ascii", "replace"):
        return ("wrong", f"read as {encode(msg)[:40]!r}"), text
    return ("accepted", ""), text


def dxp_server_case(rng: random.Random, server_port: int):
    """Mutated messages sent to a running `damas dxp` server: it may drop that
    connection, but must answer a good game request on the next one."""
    opening = rng.choice(DXP_SAMPLES[:1] + DXP_SAMPLES[9:])
    messages = [opening, "M0000322800", "M0000312700"]
    k = rng.randrange(len(messages))
    messages[k] = mutate(messages[k], rng, "RAMEBKC0123456789WZwze ")
    text = "\n".join(messages)
    errors: list[str] = []
    hook = threading.excepthook
    threading.excepthook = lambda a: errors.append(f"{a.exc_type.__name__}: {a.exc_value}")
    try:
        with socket.create_connection(("127.0.0.1", server_port), timeout=5) as sock:
            try:
                for m in messages:
                    sock.sendall(m.encode("utf-8", "replace") + b"\0")
                _drain(sock, 0.2)
            except OSError:
                pass  # it may hang up on a bad message: what counts is the next peer
        with socket.create_connection(("127.0.0.1", server_port), timeout=5) as sock:
            sock.sendall(DXP_SAMPLES[0].encode() + b"\0")
            reply = _drain(sock, 5.0, until=b"\0")
    except OSError as e:
        return ("traceback", f"server gone: {e}"), text
    finally:
        threading.excepthook = hook
    if errors:
        return ("traceback", errors[0][:200]), text
    if not reply.startswith(b"A"):
        return ("traceback", f"server no longer answers a game request ({reply[:20]!r})"), text
    return ("accepted", ""), text


def _drain(sock: socket.socket, timeout: float, until: bytes | None = None) -> bytes:
    sock.settimeout(timeout)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
            if until is not None and until in data:
                break
    except OSError:
        pass
    return data


# --- the run --------------------------------------------------------------------------------

class Tally:
    KINDS = ("accepted", "clean", "traceback", "wrong")

    def __init__(self):
        self.counts = {k: 0 for k in self.KINDS}
        self.examples: dict[str, list[str]] = {"traceback": [], "wrong": []}

    def add(self, result, text: str) -> None:
        kind, why = result
        self.counts[kind] += 1
        if kind in self.examples and len(self.examples[kind]) < 5:
            self.examples[kind].append(f"{why} <- {text[:120]!r}")

    @property
    def tried(self) -> int:
        return sum(self.counts.values())


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="damas-fuzz-") as d:
        yield Path(d)
