"""Engine specs, as the command line writes them:

- `builtin`, `builtin:level=5`, `builtin:depth=6`, `builtin:depth=2,eval=material`,
  `builtin:level=10,eval=FILE.json` (weights `damas train engine --out` wrote)
  (also `nodes=N`, `movetime=S`, `seed=N`, `threads=N`);
- `hub:COMMAND [ARGS…]`, e.g. `hub:/opt/scan/scan hub`: a Hub engine (Hub-1 or Hub-2,
  told by its handshake) run as a subprocess, in the folder of its executable (where
  Scan finds `scan.ini` and `data/`), or in the one a leading `cwd=DIR` names:
  `hub:cwd=/opt/scan ./scan hub`. Words are split as a shell would (quotes allowed);
- `dxp:host:port` (a DXP engine listening on this machine);
- `random`, `random:seed=N`.

`check_spec` reads a spec without starting anything, so a command can refuse a spec
that can never work (exit status 2 at once) before it begins a game.

>>> open_engine("builtin:depth=2,eval=material", "english").defaults.depth
2
>>> check_spec("hub:sh -c 'exit 1'").command
('sh', '-c', 'exit 1')
>>> check_spec("dxp:127.0.0.1:27531").port
27531
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field

from damas.rules import Variant

from .base import Engine
from .errors import EngineSpecError
from .levels import level as get_level

MAX_THREADS = 16  # the native core's (search.h)
BUILTIN_KEYS = {"level": int, "depth": int, "nodes": int, "movetime": float, "seed": int,
                "threads": int,
                "eval": str}
KINDS = "builtin:level=N, builtin:depth=D, hub:/path/to/engine [args], dxp:host:port or random"


@dataclass(frozen=True)
class Spec:
    kind: str  # builtin, random, hub, dxp
    options: dict = field(default_factory=dict)  # builtin and random
    command: tuple[str, ...] = ()  # hub
    cwd: str | None = None  # hub
    host: str = ""  # dxp
    port: int = 0


def _options(text: str, allowed: dict, spec: str) -> dict:
    out = {}
    for part in filter(None, text.split(",")):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in allowed:
            raise EngineSpecError(f"engine spec {spec!r}: unknown option {part!r} "
                                  f"(options: {', '.join(sorted(allowed))})")
        try:
            out[key] = allowed[key](value.strip())
        except ValueError:
            raise EngineSpecError(f"engine spec {spec!r}: {key} must be a "
                                  f"{allowed[key].__name__}, not {value!r}") from None
    return out


def check_spec(spec: str) -> Spec:
    """The spec's parts, checked as far as can be without starting the engine: a spec
    that cannot work raises EngineSpecError."""
    if not isinstance(spec, str):
        raise EngineSpecError(f"engine spec {spec!r} must be text ({KINDS})")
    kind, _, rest = spec.strip().partition(":")
    if kind == "builtin":
        opts = _options(rest, BUILTIN_KEYS, spec)
        evaluation = opts.get("eval", "full")
        if evaluation not in ("full", "material") and not evaluation.endswith(".json"):
            raise EngineSpecError(f"engine spec {spec!r}: eval is full, material or a "
                                  "weights file (.json)")
        get_level(opts.get("level"))
        for key in ("depth", "nodes"):
            if key in opts and opts[key] < 1:
                raise EngineSpecError(f"engine spec {spec!r}: {key} must be 1 or more")
        if not 1 <= opts.get("threads", 1) <= MAX_THREADS:
            raise EngineSpecError(f"engine spec {spec!r}: threads must be 1 to {MAX_THREADS}")
        if "movetime" in opts and not 0 < opts["movetime"] < 1e6:
            raise EngineSpecError(f"engine spec {spec!r}: movetime must be a number of "
                                  "seconds above 0")
        return Spec("builtin", opts)
    if kind == "random":
        return Spec("random", _options(rest, {"seed": int}, spec))
    if kind == "hub":
        return _hub(spec, rest)
    if kind == "dxp":
        host, _, port = rest.rpartition(":")
        if not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
            raise EngineSpecError(f"engine spec {spec!r}: write dxp:127.0.0.1:PORT")
        return Spec("dxp", host=host, port=int(port))
    raise EngineSpecError(f"unknown engine spec {spec!r} ({KINDS})")


def _hub(spec: str, rest: str) -> Spec:
    try:
        words = shlex.split(rest)
    except ValueError as e:
        raise EngineSpecError(f"engine spec {spec!r}: {e}") from None
    cwd = None
    while words and words[0].startswith("cwd="):
        cwd = os.path.expanduser(words.pop(0)[4:])
    if not words:
        raise EngineSpecError(f"engine spec {spec!r}: give the engine's path, "
                              f"e.g. hub:/usr/local/bin/scan hub")
    if cwd is not None and not os.path.isdir(cwd):
        raise EngineSpecError(f"engine spec {spec!r}: the working folder {cwd} does not exist")
    program = os.path.expanduser(words[0])
    if os.sep in program:  # a path: relative to the working folder, as the child sees it
        program = os.path.abspath(os.path.join(cwd or os.getcwd(), program))
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise EngineSpecError(f"engine spec {spec!r}: {program} is not a program")
        if cwd is None:
            cwd = os.path.dirname(program)  # where Scan looks for scan.ini and data/
    elif shutil.which(program) is None:
        raise EngineSpecError(f"engine spec {spec!r}: no program {program!r} on the PATH")
    return Spec("hub", command=(program, *words[1:]), cwd=cwd)


def open_engine(spec: str, variant: Variant | str) -> Engine:
    s = check_spec(spec)
    if s.kind == "builtin":
        from .builtin import BuiltinEngine

        opts = dict(s.options)
        evaluation = opts.pop("eval", "full")
        return BuiltinEngine(variant, evaluation=evaluation, name=spec, **opts)
    if s.kind == "random":
        from .randomplayer import RandomEngine

        return RandomEngine(name=spec, **s.options)
    if s.kind == "hub":
        from .hubclient import HubEngine

        return HubEngine(list(s.command), variant, name=spec, cwd=s.cwd)
    from .dxpclient import DxpEngine

    return DxpEngine(s.host, s.port, variant, name=spec)
