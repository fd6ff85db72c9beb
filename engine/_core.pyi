# The native core's extension module (engine/native/module.c), built by pip install.

RULE_SIZE10: int
RULE_BACKWARDS: int
RULE_FLYING: int
RULE_MAXIMUM: int
RULE_STOPS: int
MAX_MOVES: int

def perft(rules: int, white: int, black: int, kings: int, turn: int, depth: int, /) -> int: ...
def moves(rules: int, white: int, black: int, kings: int, turn: int, /
          ) -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]: ...
