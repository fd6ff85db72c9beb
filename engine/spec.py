"""Engine specs, as the command line writes them:

- `builtin`, `builtin:level=5`, `builtin:depth=6`, `builtin:depth=2,eval=material`
  (also `nodes=N`, `movetime=S`, `seed=N`);
- `hub:/path/to/engine [args]` (a Hub engine run as a subprocess);
- `dxp:host:port` (a DXP engine listening on this machine);
- `random`, `random:seed=N`.

>>> open_engine("builtin:depth=2,eval=material", "english").defaults.depth
2
"""

from __future__ import annotations

import shlex

from damas.rules import Variant

from .base import Engine
from .errors import EngineSpecError

BUILTIN_KEYS = {"level": int, "depth": int, "nodes": int, "movetime": float, "seed": int,
                "eval": str}


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


def open_engine(spec: str, variant: Variant | str) -> Engine:
    kind, _, rest = spec.strip().partition(":")
    if kind == "builtin":
        from .builtin import BuiltinEngine

        opts = _options(rest, BUILTIN_KEYS, spec)
        evaluation = opts.pop("eval", "full")
        if evaluation not in ("full", "material"):
            raise EngineSpecError(f"engine spec {spec!r}: eval is full or material")
        return BuiltinEngine(variant, evaluation=evaluation, name=spec, **opts)
    if kind == "random":
        from .randomplayer import RandomEngine

        return RandomEngine(name=spec, **_options(rest, {"seed": int}, spec))
    if kind == "hub":
        from .hubclient import HubEngine

        command = shlex.split(rest)
        if not command:
            raise EngineSpecError(f"engine spec {spec!r}: give the engine's path, "
                                  f"e.g. hub:/usr/local/bin/scan")
        return HubEngine(command, variant, name=spec)
    if kind == "dxp":
        from .dxpclient import DxpEngine

        host, _, port = rest.rpartition(":")
        if not host or not port.isdigit():
            raise EngineSpecError(f"engine spec {spec!r}: write dxp:127.0.0.1:PORT")
        return DxpEngine(host, int(port), variant, name=spec)
    raise EngineSpecError(f"unknown engine spec {spec!r} (builtin:level=N, builtin:depth=D, "
                          f"hub:/path/to/engine, dxp:host:port or random)")
