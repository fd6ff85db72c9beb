"""Counts of the parser fuzzing: tried / accepted / clean error / traceback / wrong
acceptance, per parser at the command line's boundary. A figure for the record, not a
test (the tests are `test_fuzz_parsers.py`):

    .venv/bin/python tests/fuzz/count.py [--seed N] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import fuzzing  # noqa: E402

from damas.engine import DxpServer, open_engine  # noqa: E402

SIZES = {"fen": 8000, "pdn": 3000, "observations": 3000, "hub-server": 2000,
         "hub-client": 400, "dxp-wire": 3000, "dxp-server": 300}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", action="append")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = {}
    with fuzzing.scratch() as folder:
        fens, pdns = fuzzing.fen_seeds(rng), fuzzing.pdn_seeds(rng)
        observations = fuzzing.observation_seeds(rng)
        runs = {
            "fen": lambda: fuzzing.fen_case(rng, fens),
            "pdn": lambda: fuzzing.pdn_case(rng, pdns, folder),
            "observations": lambda: fuzzing.observation_case(rng, observations, folder),
            "hub-server": lambda: fuzzing.hub_server_case(rng),
            "hub-client": lambda: fuzzing.hub_client_case(rng, folder),
            "dxp-wire": lambda: fuzzing.dxp_case(rng),
        }
        server = DxpServer(lambda: open_engine("builtin:depth=1", "international"),
                           "international")
        server.serve_in_thread()
        runs["dxp-server"] = lambda: fuzzing.dxp_server_case(rng, server.port)
        for name, run in runs.items():
            if args.only and name not in args.only:
                continue
            tally = fuzzing.Tally()
            for _ in range(max(1, int(SIZES[name] * args.scale))):
                result, text = run()
                tally.add(result, text)
            rows[name] = tally
            print(f"{name:<13} tried {tally.tried:>5}  accepted {tally.counts['accepted']:>5}  "
                  f"clean error {tally.counts['clean']:>5}  traceback "
                  f"{tally.counts['traceback']:>4}  wrong acceptance {tally.counts['wrong']:>4}",
                  flush=True)
            for kind, examples in tally.examples.items():
                for e in examples[:3]:
                    print(f"    {kind}: {e}")
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
