"""damas.engine: the opponent. A built-in search with levels for every variant, and the
Hub and DXP protocols (clients and servers) to play other engines, all behind one
`Engine` interface with a `Limit` and a `PlayResult` (python-chess style).

>>> from damas.rules import Game
>>> engine = BuiltinEngine("brazilian")
>>> result = engine.play(Game("brazilian"), Limit(depth=4))
>>> result.move in Game("brazilian").legal_moves(), result.info.depth
(True, 4)
"""

# The folder sits at the repository root, which is often on sys.path: imported as `engine`
# it would be a second copy of every class. damas/engine is the package (a symlink).
if __name__ != "damas.engine":
    raise ImportError("import damas.engine, not engine (the folder is that package)")

from .base import Engine, as_game
from .builtin import BuiltinEngine
from .dxpclient import DxpEngine
from .dxpserver import DxpServer
from .errors import (
    EngineCrashed,
    EngineEndedGame,
    EngineError,
    EngineIllegalMove,
    EngineProtocolError,
    EngineSpecError,
    EngineTimeout,
)
from .hubclient import HubEngine
from .hubserver import HubServer, serve_hub
from .levels import LEVELS, Level
from .limits import Info, Limit, PlayResult
from .match import MatchResult, MatchTimeControl, elo, parse_time_control, run_match
from .randomplayer import RandomEngine
from .search import WIN, Search, SearchResult, score_text
from .spec import check_spec, open_engine

__all__ = [
    "LEVELS", "WIN", "BuiltinEngine", "DxpEngine", "DxpServer", "Engine", "EngineCrashed",
    "EngineEndedGame", "EngineError", "EngineIllegalMove", "EngineProtocolError",
    "EngineSpecError",
    "EngineTimeout", "HubEngine", "HubServer", "Info", "Level", "Limit", "MatchResult",
    "PlayResult", "RandomEngine", "Search", "SearchResult", "MatchTimeControl", "as_game",
    "check_spec", "elo", "open_engine", "parse_time_control", "run_match", "score_text",
    "serve_hub",
]
