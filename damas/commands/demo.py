"""`damas demo`: until the closed-loop demo exists, a full game between two random legal
movers, shown move by move, ending with the PDN."""

from __future__ import annotations

import random

from damas.rules import Game, variant
from damas.rules.pdn import PdnGame, write_pdn


def register(sub) -> None:
    p = sub.add_parser("demo", help="play a whole game between two random movers")
    p.add_argument("--variant", default="international")
    p.add_argument("--seed", type=int, default=None, help="the same seed plays the same game")
    p.add_argument("--max-moves", type=int, default=300, help="stop after this many plies")
    p.add_argument("--quiet", action="store_true", help="print only the PDN")
    p.set_defaults(run=run_demo)


def random_game(variant_name: str, rng: random.Random, max_plies: int = 300) -> Game:
    game = Game(variant(variant_name))
    while game.ply < max_plies and game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    return game


def run_demo(args) -> int:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    game = Game(variant(args.variant))
    if not args.quiet:
        print(f"damas demo: two random movers, {game.variant.name}, seed {seed}\n")
        print(game.position.diagram(), "\n")
    while game.ply < args.max_moves and game.outcome() is None:
        pos = game.position
        move = rng.choice(game.legal_moves())
        notation = pos.notation(move)
        game.push(move)
        if not args.quiet:
            mover = "White" if pos.turn == 0 else "Black"
            print(f"{game.ply}. {mover} plays {notation}")
            print(game.position.diagram(), "\n")
    outcome = game.outcome()
    if not args.quiet:
        if outcome:
            print(f"Game over: {outcome.result} ({outcome.reason}, {outcome.article})\n")
        else:
            print(f"Stopped after {game.ply} plies.\n")
    print(write_pdn(PdnGame.from_game(game, Event="damas demo", White="random",
                                      Black="random", Round=str(seed))))
    return 0
